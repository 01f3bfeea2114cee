// The optimizer family registers no ops: an optimizer step returns no tensor and works on
// per-parameter state (ParamState maps, optim.h), which callOp's flat tensor lists cannot
// carry. The JS layer reaches it through dedicated functions instead (optimStep,
// optimInitState, clipGradNorm, clipGradValue in bindings/io_optim.cpp; bindings/README.md).
#include "ops/registry.h"

namespace sg {
void register_optim_ops(std::map<std::string, OpInfo>&) {}
}  // namespace sg
