// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// One sanity rule for the sizes, rates and factors commprof reads from flags and files, applied
// where each is read so the message names the flag or field. "> 0 and finite" is not enough: a
// denormal (4.9e-324) passes it and divides to inf, and each dimension of a shape may be sane
// while their product (2^32 x 2^32 elements) is not. Plain C++17, header-only.

#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

namespace commprof::spec {

// No tensor, bucket or model a DDP job reduces holds more than this (16 TiB: far beyond any
// accelerator's memory, so a larger size is a typo or a planted value, never a model).
inline constexpr double kMaxSaneBytes = 16.0 * 1024 * 1024 * 1024 * 1024;
// The finest and coarsest factor a what-if scales a rate by (a link a million times slower or
// faster); below and above it the arithmetic of a step is no longer a prediction.
inline constexpr double kMinSaneFactor = 1e-6;
inline constexpr double kMaxSaneFactor = 1e6;
// No job runs on more ranks than this.
inline constexpr double kMaxSaneWorldSize = 1e6;

struct SaneRange {
    double lo;        // the least value allowed (inclusive)
    double hi;        // the greatest value allowed (inclusive)
    const char* unit; // for the message: "MiB", "" for a plain factor
    bool zeroAllowed; // 0 itself is meaningful (a share of none)
    bool whole;       // a count
};

// A bucket cap or first bucket in MiB: 1 byte .. 16 TiB.
inline constexpr SaneRange kSaneMebibytes{1.0 / (1024 * 1024), kMaxSaneBytes / (1024 * 1024), "MiB",
                                          false, false};
// A factor a rate is scaled by (--bandwidth-x).
inline constexpr SaneRange kSaneFactor{kMinSaneFactor, kMaxSaneFactor, "", false, false};
// A share from 0 to 1 (--compute-contention): 0, or a share a measurement can tell from 0.
inline constexpr SaneRange kSaneShare{kMinSaneFactor, 1, "", true, false};
// A world size.
inline constexpr SaneRange kSaneWorldSize{1, kMaxSaneWorldSize, "", false, true};

inline std::string saneNumber(double v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.6g", v);
    return buf;
}

// Empty when v lies in `range`; else "expected ... from LO to HI UNIT, got V" for a message
// that names the flag or field before it.
inline std::string outsideSaneRange(double v, const SaneRange& range) {
    const bool ok = std::isfinite(v) &&
                    ((range.zeroAllowed && v == 0) || (v >= range.lo && v <= range.hi)) &&
                    (!range.whole || v == std::floor(v));
    if (ok) {
        return {};
    }
    const std::string unit = range.unit[0] ? std::string(" ") + range.unit : std::string();
    return std::string("expected ") + (range.whole ? "a whole number" : "a number") + " " +
           (range.zeroAllowed ? "0 or " : "") + "from " + saneNumber(range.lo) + " to " +
           saneNumber(range.hi) + unit + ", got " + saneNumber(v);
}

// Empty when a tensor of these dimensions, each `elementBytes` bytes, holds at most
// kMaxSaneBytes; else why not. Checked as the product grows, so it cannot overflow.
inline std::string outsideSaneBytes(const std::vector<double>& dims, double elementBytes) {
    double bytes = elementBytes;
    for (const double d : dims) {
        if (!std::isfinite(d) || d < 0) {
            return "expected whole sizes >= 0, got " + saneNumber(d);
        }
        bytes *= d;
        if (bytes > kMaxSaneBytes) {
            return "the product of its dimensions is " + saneNumber(bytes) +
                   " bytes or more, above the " + saneNumber(kMaxSaneBytes) +
                   " bytes (16 TiB) any tensor can hold";
        }
    }
    return {};
}

} // namespace commprof::spec
