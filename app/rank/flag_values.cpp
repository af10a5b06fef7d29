// SPDX-License-Identifier: GPL-3.0-or-later
#include "flag_values.h"

#include <stdexcept>
#include <type_traits>

namespace commprof::rank {
namespace {

// A whole-string number of type T, or a UsageError naming the flag.
template <typename T>
T parseNumber(const std::string& flag, const std::string& v, const char* what) {
    try {
        std::size_t used = 0;
        const T out = std::is_integral_v<T> ? T(std::stoi(v, &used)) : T(std::stod(v, &used));
        if (used != v.size()) {
            throw std::invalid_argument(v);
        }
        return out;
    } catch (const std::exception&) {
        throw UsageError(flag + ": expected " + what + ", got '" + v + "'");
    }
}

// "a,b,c" as its parts; a comma at either end or beside another leaves an empty part.
std::vector<std::string> commaParts(const std::string& v) {
    std::vector<std::string> out;
    std::size_t from = 0;
    for (std::size_t comma; (comma = v.find(',', from)) != std::string::npos; from = comma + 1) {
        out.push_back(v.substr(from, comma - from));
    }
    out.push_back(v.substr(from));
    return out;
}

} // namespace

int toInt(const std::string& flag, const std::string& v) {
    return parseNumber<int>(flag, v, "an integer");
}

double toDouble(const std::string& flag, const std::string& v) {
    return parseNumber<double>(flag, v, "a number");
}

std::string oneOf(const options::Option& row, const std::string& v) {
    if (std::string e = options::choiceError(row, v); !e.empty()) {
        throw UsageError(e);
    }
    return v;
}

std::vector<int> parseRanks(const std::string& flag, const std::string& v) {
    std::vector<int> out;
    if (v == "all") {
        return out;
    }
    for (const std::string& part : commaParts(v)) {
        const std::size_t dash = part.find('-');
        if (dash == std::string::npos) {
            out.push_back(toInt(flag, part));
        } else {
            const int a = toInt(flag, part.substr(0, dash));
            const int b = toInt(flag, part.substr(dash + 1));
            if (b < a) {
                throw UsageError(flag + ": empty range '" + part + "'");
            }
            for (int r = a; r <= b; ++r) {
                out.push_back(r);
            }
        }
    }
    return out;
}

void readDelay(const std::string& flag, const std::string& v, RankOptions& o) {
    const auto colon = v.find(':');
    if (colon == std::string::npos) {
        throw UsageError(flag + ": expected RANK:MS, got '" + v + "'");
    }
    o.delayRank = toInt(flag, v.substr(0, colon));
    o.delayMs = toDouble(flag, v.substr(colon + 1));
    if (o.delayRank < 0 || o.delayMs < 0 || o.delayMs > 600000) {
        throw UsageError(flag + ": expected a rank >= 0 and 0..600000 ms, got '" + v + "'");
    }
}

double parseHookDelay(const std::string& flag, const std::string& v) {
    const double ms = toDouble(flag, v);
    if (ms < 0 || ms > 60000) {
        throw UsageError(flag + ": expected 0..60000 ms, got '" + v + "'");
    }
    return ms;
}

// "C,H,W": each dimension is appended, so a repeated flag adds dimensions.
void readInputShape(const std::string& flag, const std::string& v, RankOptions& o) {
    for (const std::string& part : commaParts(v)) {
        const int d = toInt(flag, part);
        if (d < 1) {
            throw UsageError(flag + ": expected positive dimensions, got '" + v + "'");
        }
        o.inputShape.push_back(d);
    }
}

// "START:END[:EVERY]", END exclusive.
void readFpIters(const std::string& flag, const std::string& v, RankOptions& o) {
    const auto c1 = v.find(':');
    if (c1 == std::string::npos) {
        throw UsageError(flag + ": expected START:END[:EVERY], got '" + v + "'");
    }
    const auto c2 = v.find(':', c1 + 1);
    o.fpIterStart = toInt(flag, v.substr(0, c1));
    o.fpIterEnd =
        toInt(flag, v.substr(c1 + 1, c2 == std::string::npos ? std::string::npos : c2 - c1 - 1));
    o.fpIterEvery = c2 == std::string::npos ? 1 : toInt(flag, v.substr(c2 + 1));
    if (o.fpIterEvery < 1 || o.fpIterEnd <= o.fpIterStart) {
        throw UsageError(flag + ": empty iteration range '" + v + "'");
    }
}

void readSweepKinds(const std::string& flag, const std::string& v, RankOptions& o) {
    const std::vector<std::string> kinds = commaParts(v);
    for (const std::string& kind : kinds) {
        if (kind != "all_reduce" && kind != "all_gather" && kind != "reduce_scatter" &&
            kind != "broadcast") {
            throw UsageError(flag + ": expected a list of all_reduce, all_gather, " +
                             "reduce_scatter, broadcast, got '" + kind + "'");
        }
    }
    o.sweepKinds = kinds;
}

// "OP@RANKS:ITER": the last '@' and ':' split it, so OP itself may hold either.
void readPerturb(const std::string& flag, const std::string& v, RankOptions& o) {
    const auto at = v.rfind('@');
    const auto colon = v.rfind(':');
    if (at == std::string::npos || colon == std::string::npos || colon < at) {
        throw UsageError(flag + ": expected OP@RANK:ITER, got '" + v + "'");
    }
    o.perturbOp = v.substr(0, at);
    o.perturbRanks = parseRanks(flag, v.substr(at + 1, colon - at - 1));
    o.perturbIter = toInt(flag, v.substr(colon + 1));
}

} // namespace commprof::rank
