// Whether ops record the backward graph (PyTorch's torch.no_grad / set_grad_enabled).
#pragma once

namespace sg {

bool grad_enabled();
void set_grad_enabled(bool on);

// Sets recording on or off for a scope, then puts back what it was.
class GradModeGuard {
 public:
  explicit GradModeGuard(bool on) : prev_(grad_enabled()) { set_grad_enabled(on); }
  ~GradModeGuard() { set_grad_enabled(prev_); }
  GradModeGuard(const GradModeGuard&) = delete;
  GradModeGuard& operator=(const GradModeGuard&) = delete;

 private:
  bool prev_;
};

// Turns recording off for a scope; backward formulas run under one.
class NoGradGuard : public GradModeGuard {
 public:
  NoGradGuard() : GradModeGuard(false) {}
};

}  // namespace sg
