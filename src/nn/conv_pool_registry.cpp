// Registers this family's ops by their JS names (see bindings/README.md). Filled by the
// family's own engineer; empty until its ops land.
#include "ops/registry.h"

namespace sg {
void register_conv_pool_ops(std::map<std::string, OpInfo>&) {}
}  // namespace sg
