// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// A minimal scanner over JSON text: enough to step over the values around traceEvents and to
// find where one event object ends, without parsing what lies inside.

#include <cstddef>
#include <string>

namespace commprof::trace {

inline bool isJsonSpace(char c) {
    return c == ' ' || c == '\n' || c == '\r' || c == '\t';
}

// The ',' that only whitespace separates from text[p], looking no further back than lo; npos
// when there is none.
inline std::size_t commaBefore(const char* text, std::size_t lo, std::size_t p) {
    while (p > lo && isJsonSpace(text[p - 1])) {
        --p;
    }
    return p > lo && text[p - 1] == ',' ? p - 1 : std::string::npos;
}

class TopLevel {
public:
    static constexpr std::size_t npos = std::string::npos;

    TopLevel(const char* text, std::size_t size) : t_(text), n_(size) {}

    std::size_t skipSpace(std::size_t p) const {
        while (p < n_ && isJsonSpace(t_[p])) {
            ++p;
        }
        return p;
    }
    // p at an opening quote; returns the position after the closing one, or npos.
    std::size_t endOfString(std::size_t p) const {
        for (++p; p < n_; ++p) {
            if (t_[p] == '\\') {
                ++p;
            } else if (t_[p] == '"') {
                return p + 1;
            }
        }
        return npos;
    }
    // p at the first character of a value; returns the position after it, or npos.
    std::size_t endOfValue(std::size_t p) const {
        if (p >= n_) {
            return npos;
        }
        if (t_[p] == '"') {
            return endOfString(p);
        }
        if (t_[p] != '{' && t_[p] != '[') {
            while (p < n_ && !isJsonSpace(t_[p]) && t_[p] != ',' && t_[p] != '}' && t_[p] != ']') {
                ++p;
            }
            return p;
        }
        int depth = 0;
        for (; p < n_; ++p) {
            const char c = t_[p];
            if (c == '"') {
                p = endOfString(p);
                if (p == npos) {
                    return npos;
                }
                --p;
            } else if (c == '{' || c == '[') {
                ++depth;
            } else if (c == '}' || c == ']') {
                if (--depth == 0) {
                    return p + 1;
                }
            }
        }
        return npos;
    }

private:
    const char* t_;
    std::size_t n_;
};

} // namespace commprof::trace
