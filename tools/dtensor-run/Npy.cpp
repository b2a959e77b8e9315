//===- Npy.cpp - minimal .npy reading and writing -------------------------===//

#include "Npy.h"

#include <cstring>
#include <fstream>
#include <sstream>

using namespace dtensor_run;

static int64_t itemSize(const std::string &dtype) {
  if (dtype == "<f4" || dtype == "<i4")
    return 4;
  if (dtype == "<f8" || dtype == "<i8")
    return 8;
  if (dtype == "|b1" || dtype == "|i1")
    return 1;
  return 0;
}

/// Value of `key` in the header dict, e.g. 'descr': '<f4'.
static std::string field(const std::string &header, const std::string &key) {
  size_t k = header.find("'" + key + "'");
  if (k == std::string::npos)
    return "";
  size_t colon = header.find(':', k);
  size_t start = header.find_first_not_of(" ", colon + 1);
  if (header[start] == '\'') {
    size_t end = header.find('\'', start + 1);
    return header.substr(start + 1, end - start - 1);
  }
  if (header[start] == '(') {
    size_t end = header.find(')', start);
    return header.substr(start + 1, end - start - 1);
  }
  size_t end = header.find_first_of(",}", start);
  return header.substr(start, end - start);
}

bool dtensor_run::readNpy(const std::string &path, HostArray &out,
                          std::string &error) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    error = "cannot open " + path;
    return false;
  }
  char magic[8];
  in.read(magic, 8);
  if (!in || std::memcmp(magic, "\x93NUMPY", 6) != 0) {
    error = path + " is not a .npy file";
    return false;
  }
  uint32_t headerLen = 0;
  if (magic[6] == 1) {
    uint16_t len;
    in.read(reinterpret_cast<char *>(&len), 2);
    headerLen = len;
  } else {
    in.read(reinterpret_cast<char *>(&headerLen), 4);
  }
  std::string header(headerLen, '\0');
  in.read(header.data(), headerLen);
  out.dtype = field(header, "descr");
  if (out.dtype == "<b1")
    out.dtype = "|b1";
  if (field(header, "fortran_order") == "True") {
    error = path + ": Fortran order is not supported";
    return false;
  }
  int64_t size = itemSize(out.dtype);
  if (!size) {
    error = path + ": unsupported dtype '" + out.dtype + "'";
    return false;
  }
  out.shape.clear();
  std::stringstream shape(field(header, "shape"));
  std::string tok;
  while (std::getline(shape, tok, ','))
    if (tok.find_first_not_of(" ") != std::string::npos)
      out.shape.push_back(std::stoll(tok));
  out.data.resize(out.numElements() * size);
  in.read(out.data.data(), out.data.size());
  if (!in) {
    error = path + ": truncated data";
    return false;
  }
  return true;
}

bool dtensor_run::writeNpy(const std::string &path, const HostArray &a,
                           std::string &error) {
  std::string shape = "(";
  for (int64_t s : a.shape)
    shape += std::to_string(s) + ",";
  if (a.shape.size() > 1)
    shape.pop_back();
  shape += ")";
  std::string header = "{'descr': '" + a.dtype +
                       "', 'fortran_order': False, 'shape': " + shape + ", }";
  // Pad so that the data starts on a 64-byte boundary.
  size_t total = 10 + header.size() + 1;
  header += std::string((64 - total % 64) % 64, ' ') + "\n";
  std::ofstream out(path, std::ios::binary);
  if (!out) {
    error = "cannot write " + path;
    return false;
  }
  out.write("\x93NUMPY\x01\x00", 8);
  uint16_t len = static_cast<uint16_t>(header.size());
  out.write(reinterpret_cast<const char *>(&len), 2);
  out.write(header.data(), header.size());
  out.write(a.data.data(), a.data.size());
  return static_cast<bool>(out);
}
