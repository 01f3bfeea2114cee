// The JSON reader (json.h): a recursive-descent parser over a string_view.
#include "io/json.h"

#include <cstdlib>
#include <limits>

#include "core/error.h"

namespace sg::json {

const char* type_name(Type t) {
  switch (t) {
    case Type::Null:
      return "null";
    case Type::Bool:
      return "a boolean";
    case Type::Number:
      return "a number";
    case Type::String:
      return "a string";
    case Type::Array:
      return "an array";
    case Type::Object:
      return "an object";
  }
  return "?";
}

const Value* Value::find(std::string_view key) const {
  for (size_t i = 0; i < keys.size(); ++i)
    if (keys[i] == key) return &items[i];
  return nullptr;
}

double Value::number() const { return std::strtod(text.c_str(), nullptr); }

bool Value::to_uint64(uint64_t& out) const {
  if (type != Type::Number || text.empty() || text[0] == '-') return false;
  uint64_t v = 0;
  for (char c : text) {
    if (c < '0' || c > '9') return false;  // fraction or exponent
    const uint64_t digit = static_cast<uint64_t>(c - '0');
    if (v > (std::numeric_limits<uint64_t>::max() - digit) / 10) return false;
    v = v * 10 + digit;
  }
  out = v;
  return true;
}

bool Value::to_int64(int64_t& out) const {
  if (type != Type::Number) return false;
  const bool negative = !text.empty() && text[0] == '-';
  Value magnitude;
  magnitude.type = Type::Number;
  magnitude.text = negative ? text.substr(1) : text;
  uint64_t m = 0;
  if (!magnitude.to_uint64(m)) return false;
  const uint64_t limit =
      static_cast<uint64_t>(std::numeric_limits<int64_t>::max()) + (negative ? 1 : 0);
  if (m > limit) return false;
  out = negative ? static_cast<int64_t>(0 - m) : static_cast<int64_t>(m);
  return true;
}

namespace {

// Length of the UTF-8 sequence starting at s[i] (1-4), or 0 if it is malformed.
size_t utf8_sequence(std::string_view s, size_t i) {
  const auto byte = [&](size_t k) { return static_cast<unsigned char>(s[k]); };
  const unsigned char c = byte(i);
  if (c < 0x80) return 1;
  size_t len;
  uint32_t cp;
  if (c >= 0xC2 && c <= 0xDF)
    len = 2, cp = c & 0x1F;
  else if (c >= 0xE0 && c <= 0xEF)
    len = 3, cp = c & 0x0F;
  else if (c >= 0xF0 && c <= 0xF4)
    len = 4, cp = c & 0x07;
  else
    return 0;
  if (i + len > s.size()) return 0;
  for (size_t k = 1; k < len; ++k) {
    if ((byte(i + k) & 0xC0) != 0x80) return 0;
    cp = (cp << 6) | (byte(i + k) & 0x3F);
  }
  if ((len == 3 && cp < 0x800) || (len == 4 && cp < 0x10000)) return 0;  // overlong
  if ((cp >= 0xD800 && cp <= 0xDFFF) || cp > 0x10FFFF) return 0;
  return len;
}

void append_utf8(std::string& out, uint32_t cp) {
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xC0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += static_cast<char>(0xE0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (cp >> 18));
    out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  }
}

class Parser {
 public:
  Parser(std::string_view text, const std::string& what, int max_depth)
      : s_(text), what_(what), max_depth_(max_depth) {}

  Value document() {
    skip_ws();
    Value v = value(0);
    skip_ws();
    if (pos_ != s_.size()) error("unexpected data after the JSON value");
    return v;
  }

 private:
  [[noreturn]] void error(const std::string& reason) const {
    fail(what_, ": invalid JSON at byte ", pos_, ": ", reason);
  }

  bool at_end() const { return pos_ >= s_.size(); }
  char peek() const { return at_end() ? '\0' : s_[pos_]; }

  void skip_ws() {
    while (!at_end() &&
           (s_[pos_] == ' ' || s_[pos_] == '\t' || s_[pos_] == '\n' || s_[pos_] == '\r'))
      ++pos_;
  }

  void expect(char c) {
    if (peek() != c || at_end()) error(std::string("expected '") + c + "'");
    ++pos_;
  }

  void literal(std::string_view word) {
    if (s_.substr(pos_, word.size()) != word) error("unexpected character");
    pos_ += word.size();
  }

  Value value(int depth) {
    if (at_end()) error("unexpected end of input");
    Value v;
    switch (peek()) {
      case '{':
        object(v, depth + 1);
        break;
      case '[':
        array(v, depth + 1);
        break;
      case '"':
        v.type = Type::String;
        v.text = string();
        break;
      case 't':
        literal("true");
        v.type = Type::Bool;
        v.boolean = true;
        break;
      case 'f':
        literal("false");
        v.type = Type::Bool;
        break;
      case 'n':
        literal("null");
        break;
      default:
        v.type = Type::Number;
        v.text = number();
    }
    return v;
  }

  void object(Value& v, int depth) {
    if (depth > max_depth_) error("nesting deeper than " + std::to_string(max_depth_) + " levels");
    v.type = Type::Object;
    ++pos_;  // '{'
    skip_ws();
    if (peek() == '}' && !at_end()) {
      ++pos_;
      return;
    }
    for (;;) {
      skip_ws();
      if (peek() != '"' || at_end()) error("expected a string key");
      v.keys.push_back(string());
      skip_ws();
      expect(':');
      skip_ws();
      v.items.push_back(value(depth));
      skip_ws();
      if (peek() == ',' && !at_end()) {
        ++pos_;
        continue;
      }
      expect('}');
      return;
    }
  }

  void array(Value& v, int depth) {
    if (depth > max_depth_) error("nesting deeper than " + std::to_string(max_depth_) + " levels");
    v.type = Type::Array;
    ++pos_;  // '['
    skip_ws();
    if (peek() == ']' && !at_end()) {
      ++pos_;
      return;
    }
    for (;;) {
      skip_ws();
      v.items.push_back(value(depth));
      skip_ws();
      if (peek() == ',' && !at_end()) {
        ++pos_;
        continue;
      }
      expect(']');
      return;
    }
  }

  uint32_t hex4() {
    if (pos_ + 4 > s_.size()) error("truncated \\u escape");
    uint32_t v = 0;
    for (int k = 0; k < 4; ++k) {
      const char c = s_[pos_++];
      v <<= 4;
      if (c >= '0' && c <= '9')
        v |= static_cast<uint32_t>(c - '0');
      else if (c >= 'a' && c <= 'f')
        v |= static_cast<uint32_t>(c - 'a' + 10);
      else if (c >= 'A' && c <= 'F')
        v |= static_cast<uint32_t>(c - 'A' + 10);
      else
        error("invalid hex digit in \\u escape");
    }
    return v;
  }

  std::string string() {
    ++pos_;  // '"'
    std::string out;
    for (;;) {
      if (at_end()) error("unterminated string");
      const unsigned char c = static_cast<unsigned char>(s_[pos_]);
      if (c == '"') {
        ++pos_;
        return out;
      }
      if (c < 0x20) error("control character in a string");
      if (c == '\\') {
        ++pos_;
        if (at_end()) error("unterminated string");
        const char e = s_[pos_++];
        switch (e) {
          case '"':
            out += '"';
            break;
          case '\\':
            out += '\\';
            break;
          case '/':
            out += '/';
            break;
          case 'b':
            out += '\b';
            break;
          case 'f':
            out += '\f';
            break;
          case 'n':
            out += '\n';
            break;
          case 'r':
            out += '\r';
            break;
          case 't':
            out += '\t';
            break;
          case 'u': {
            uint32_t cp = hex4();
            if (cp >= 0xDC00 && cp <= 0xDFFF) error("lone trailing surrogate in \\u escape");
            if (cp >= 0xD800 && cp <= 0xDBFF) {  // a surrogate pair: \uD83D\uDE00
              if (s_.substr(pos_, 2) != "\\u") error("lone leading surrogate in \\u escape");
              pos_ += 2;
              const uint32_t low = hex4();
              if (low < 0xDC00 || low > 0xDFFF) error("invalid low surrogate in \\u escape");
              cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
            }
            append_utf8(out, cp);
            break;
          }
          default:
            --pos_;
            error("invalid escape character");
        }
        continue;
      }
      const size_t len = utf8_sequence(s_, pos_);
      if (len == 0) error("invalid UTF-8 in a string");
      out.append(s_.substr(pos_, len));
      pos_ += len;
    }
  }

  // -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
  std::string number() {
    const size_t start = pos_;
    const auto digits = [&] {
      const size_t from = pos_;
      while (!at_end() && s_[pos_] >= '0' && s_[pos_] <= '9') ++pos_;
      return pos_ - from;
    };
    if (peek() == '-') ++pos_;
    if (peek() == '0' && !at_end()) {
      ++pos_;
    } else if (digits() == 0) {
      pos_ = start;
      error("unexpected character");
    }
    if (peek() == '.' && !at_end()) {
      ++pos_;
      if (digits() == 0) error("expected a digit after the decimal point");
    }
    if ((peek() == 'e' || peek() == 'E') && !at_end()) {
      ++pos_;
      if (peek() == '+' || peek() == '-') ++pos_;
      if (digits() == 0) error("expected a digit in the exponent");
    }
    return std::string(s_.substr(start, pos_ - start));
  }

  std::string_view s_;
  const std::string& what_;
  int max_depth_;
  size_t pos_ = 0;
};

}  // namespace

Value parse(std::string_view text, const std::string& what, int max_depth) {
  return Parser(text, what, max_depth).document();
}

bool valid_utf8(std::string_view bytes) {
  for (size_t i = 0; i < bytes.size();) {
    const size_t len = utf8_sequence(bytes, i);
    if (len == 0) return false;
    i += len;
  }
  return true;
}

std::string quote(std::string_view s) {
  static const char* hex = "0123456789abcdef";
  std::string out = "\"";
  for (char ch : s) {
    const unsigned char c = static_cast<unsigned char>(ch);
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      case '\b':
        out += "\\b";
        break;
      case '\f':
        out += "\\f";
        break;
      default:
        if (c < 0x20) {
          out += "\\u00";
          out += hex[c >> 4];
          out += hex[c & 0xF];
        } else {
          out += ch;
        }
    }
  }
  out += '"';
  return out;
}

}  // namespace sg::json
