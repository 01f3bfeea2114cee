// A small JSON reader (RFC 8259) for the safetensors header and the tests' reference data.
// No dependency. Objects keep their members in document order, duplicates included (the
// caller decides whether a duplicate key is an error); numbers keep their literal text so
// that 64-bit integers are read exactly.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace sg::json {

enum class Type { Null, Bool, Number, String, Array, Object };

const char* type_name(Type t);  // "null", "a boolean", "a number", ...

struct Value {
  Type type = Type::Null;
  bool boolean = false;
  std::string text;               // String: the decoded UTF-8; Number: the literal as written
  std::vector<std::string> keys;  // Object: member names, in order
  std::vector<Value> items;  // Array: the elements; Object: the member values (parallel to keys)

  bool is(Type t) const { return type == t; }
  // The first member named `key`, or null. Objects only.
  const Value* find(std::string_view key) const;
  // Number as double (any number literal).
  double number() const;
  // The number as an exact integer: false when it has a fraction or exponent part, or does
  // not fit the type.
  bool to_uint64(uint64_t& out) const;
  bool to_int64(int64_t& out) const;
};

// Parses exactly one JSON value surrounded by optional whitespace. Throws sg::Error
// "<what>: invalid JSON at byte <n>: <reason>". Nesting deeper than max_depth is an error
// (a bounded recursion: the reader also serves untrusted files).
Value parse(std::string_view text, const std::string& what, int max_depth = 64);

// True when bytes is well-formed UTF-8 (no overlong forms, surrogates or code points > U+10FFFF).
bool valid_utf8(std::string_view bytes);

// s as a JSON string literal, quotes included: escapes ", \ and control characters; other
// characters (UTF-8) are copied as they are.
std::string quote(std::string_view s);

}  // namespace sg::json
