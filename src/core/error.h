// One exception type for every user-facing failure. Messages say what was expected
// and what was got; the bindings turn them into JavaScript Errors unchanged.
#pragma once
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace sg {

struct Error : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// "[2, 3]" — the way every message prints a shape.
std::string shape_str(const std::vector<int64_t>& shape);

namespace detail {
inline void append(std::ostringstream&) {}
template <class T, class... Rest>
void append(std::ostringstream& os, const T& v, const Rest&... rest) {
  if constexpr (std::is_same_v<T, std::vector<int64_t>>) os << shape_str(v);
  else os << v;
  append(os, rest...);
}
}  // namespace detail

// fail("matmul: shapes ", a, " and ", b, " are not aligned") — shapes print as [2, 3].
template <class... Parts>
[[noreturn]] void fail(const Parts&... parts) {
  std::ostringstream os;
  detail::append(os, parts...);
  throw Error(os.str());
}

template <class... Parts>
void check(bool ok, const Parts&... parts) {
  if (!ok) fail(parts...);
}

}  // namespace sg
