//===- Mesh.cpp - Row-major mesh coordinates and axis groups --------------===//

#include "Mesh.h"

using namespace dtrt;

int64_t dtrt::meshSize(const std::vector<int64_t> &shape) {
  int64_t size = 1;
  for (int64_t extent : shape)
    size *= extent;
  return size;
}

std::vector<int64_t> dtrt::meshCoords(int64_t rank,
                                      const std::vector<int64_t> &shape) {
  std::vector<int64_t> coords(shape.size());
  for (size_t i = shape.size(); i-- > 0;) {
    coords[i] = rank % shape[i];
    rank /= shape[i];
  }
  return coords;
}

std::string dtrt::formatShape(const std::vector<int64_t> &shape) {
  std::string text = "[";
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i)
      text += ", ";
    text += std::to_string(shape[i]);
  }
  return text + "]";
}

GroupPlacement dtrt::placeInGroup(const std::vector<int64_t> &coords,
                                  const std::vector<int64_t> &shape,
                                  uint64_t axesMask) {
  GroupPlacement placement;
  for (size_t i = 0; i < shape.size(); ++i) {
    if (axesMask & (uint64_t(1) << i)) {
      placement.rank = placement.rank * shape[i] + coords[i];
      placement.size *= shape[i];
    } else {
      placement.color = placement.color * shape[i] + coords[i];
    }
  }
  return placement;
}
