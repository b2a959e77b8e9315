//===- ElementType.cpp - the runner's view of dtrt element types ----------===//

#include "ElementType.h"

using namespace dtensor_run;

std::optional<dtrt_dtype> dtensor_run::dtypeFromNpy(const std::string &descr) {
  for (const ElementTypeInfo &info : kElementTypes)
    if (descr == info.npyDescr)
      return info.dtype;
  // NumPy writes one-byte types with '|' but accepts '<' and '=' too.
  if (descr.size() == 3 && (descr[0] == '<' || descr[0] == '='))
    return dtypeFromNpy("|" + descr.substr(1));
  return std::nullopt;
}

std::optional<dtrt_dtype> dtensor_run::dtypeFromName(const std::string &name) {
  for (const ElementTypeInfo &info : kElementTypes)
    if (name == info.name)
      return info.dtype;
  return std::nullopt;
}

std::string dtensor_run::supportedNpyDescrs() {
  std::string list;
  for (const ElementTypeInfo &info : kElementTypes) {
    list += (list.empty() ? "" : ", ") + std::string(info.npyDescr);
    // NumPy has no bfloat16: its raw bits are uint16.
    if (info.dtype == DTRT_BF16)
      list += " (bf16 bits)";
  }
  return list;
}
