// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// A minimal streaming JSON writer: the rank worker links no JSON library and no Qt.

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string>
#include <type_traits>
#include <vector>

namespace commprof::rank {

// Nanoseconds as microseconds with three decimals, exact for any int64.
inline std::string formatMicros(std::int64_t ns) {
    const bool neg = ns < 0;
    const std::uint64_t a = neg ? std::uint64_t(-(ns + 1)) + 1 : std::uint64_t(ns);
    char buf[32];
    std::snprintf(buf, sizeof buf, "%s%llu.%03llu", neg ? "-" : "", (unsigned long long)(a / 1000),
                  (unsigned long long)(a % 1000));
    return buf;
}

class JsonWriter {
public:
    void beginObject(const char* k = nullptr) { open('{', k); }
    void endObject() { close('}'); }
    void beginArray(const char* k = nullptr) { open('[', k); }
    void endArray() { close(']'); }
    void key(const std::string& k) {
        comma();
        quote(k);
        out_ += ':';
        afterKey_ = true;
    }
    void value(const std::string& v) {
        prefix();
        quote(v);
    }
    void value(const char* v) { value(std::string(v)); }
    void value(bool v) {
        prefix();
        out_ += v ? "true" : "false";
    }
    template <typename I, std::enable_if_t<std::is_integral_v<I>, int> = 0> void value(I v) {
        prefix();
        out_ += std::to_string(v);
    }
    void value(double v) {
        prefix();
        if (!std::isfinite(v)) {
            out_ += "null"; // JSON has no NaN; a reader must see "unknown", not a number
            return;
        }
        char buf[40];
        std::snprintf(buf, sizeof buf, "%.17g", v);
        out_ += buf;
    }
    template <typename T> void field(const std::string& k, const T& v) {
        key(k);
        value(v);
    }
    template <typename C> void intArray(const C& values) {
        beginArray();
        for (const auto& v : values) {
            value(static_cast<std::int64_t>(v));
        }
        endArray();
    }
    void fieldRaw(const std::string& k, const std::string& json) {
        key(k);
        prefix();
        out_ += json;
    }
    const std::string& str() const { return out_; }

private:
    void open(char c, const char* k) {
        if (k) {
            key(k);
        }
        prefix();
        out_ += c;
        first_.push_back(true);
    }
    void close(char c) {
        out_ += c;
        first_.pop_back();
    }
    void comma() {
        if (!first_.empty()) {
            if (!first_.back()) {
                out_ += ',';
            }
            first_.back() = false;
        }
    }
    void prefix() {
        if (afterKey_) {
            afterKey_ = false;
            return;
        }
        comma();
    }
    void quote(const std::string& s) {
        out_ += '"';
        for (unsigned char c : s) {
            if (c == '"' || c == '\\') {
                out_ += {'\\', char(c)};
            } else if (c == '\n' || c == '\t') {
                out_ += c == '\n' ? "\\n" : "\\t";
            } else if (c < 0x20) {
                char buf[8];
                std::snprintf(buf, sizeof buf, "\\u%04x", c);
                out_ += buf;
            } else {
                out_ += char(c);
            }
        }
        out_ += '"';
    }
    std::string out_;
    std::vector<bool> first_;
    bool afterKey_ = false;
};

} // namespace commprof::rank
