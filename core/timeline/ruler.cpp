// SPDX-License-Identifier: GPL-3.0-or-later
#include "ruler.h"

#include <algorithm>
#include <cmath>

namespace commprof::timeline {
namespace {

// Powers of ten of the units in nanoseconds.
constexpr int kUnitExponent[] = {0, 3, 6, 9};

double pow10(int e) {
    return std::pow(10.0, e);
}

// The numbers before the point, then the digits after it in groups of three, so that a long
// fraction reads like Perfetto's "5.000 000 1".
QString groupFraction(const QString& number) {
    const int dot = int(number.indexOf('.'));
    if (dot < 0 || number.size() - dot - 1 <= 3) {
        return number;
    }
    QString out = number.left(dot + 1);
    const QString fraction = number.mid(dot + 1);
    for (int i = 0; i < fraction.size(); i += 3) {
        if (i > 0) {
            out += ' ';
        }
        out += fraction.mid(i, 3);
    }
    return out;
}

} // namespace

const char* unitSuffix(TimeUnit unit) {
    constexpr const char* kSuffixes[] = {"ns", "µs", "ms", "s"}; // in TimeUnit's order
    return kSuffixes[int(unit)];
}

double unitInUs(TimeUnit unit) {
    return pow10(kUnitExponent[int(unit)] - 3);
}

QString formatInUnit(double us, TimeUnit unit, int decimals) {
    const double v = us / unitInUs(unit);
    return groupFraction(QString::number(v, 'f', std::max(0, decimals))) + ' ' + unitSuffix(unit);
}

QString formatDuration(double us) {
    if (!std::isfinite(us)) {
        return "-";
    }
    const double a = std::abs(us);
    if (a == 0) {
        return "0 ns";
    }
    int u = a < 1 ? 0 : a < 1e3 ? 1 : a < 1e6 ? 2 : 3;
    for (;;) {
        const double v = a / unitInUs(TimeUnit(u));
        int decimals = v >= 1000 ? 0 : v >= 100 ? 1 : v >= 10 ? 2 : 3;
        if (u == 0) {
            decimals = v >= 10 ? 0 : 1; // below a nanosecond is noise in every trace format
        }
        const QString number = QString::number(v, 'f', decimals);
        if (u < 3 && number.toDouble() >= 1000) {
            ++u; // 999.96 µs rounds to "1000.0": say 1.000 ms instead
            continue;
        }
        return (us < 0 ? "-" : "") + number + ' ' + unitSuffix(TimeUnit(u));
    }
}

Ruler makeRuler(const TimeAxis& axis, double originUs, int minLabelSpacingPx) {
    Ruler r;
    const double minStepNs = std::max(1, minLabelSpacingPx) * axis.usPerPixel() * 1e3;
    int k = 0;
    int m = 1;
    if (std::isfinite(minStepNs) && minStepNs > 1) {
        k = int(std::floor(std::log10(minStepNs)));
        m = 10;
        for (int candidate : {1, 2, 5}) {
            if (candidate * pow10(k) >= minStepNs * (1 - 1e-12)) {
                m = candidate;
                break;
            }
        }
        if (m == 10) {
            m = 1;
            ++k;
        }
    }
    const double stepNs = m * pow10(k);
    r.stepUs = stepNs / 1e3;
    const int perMajor = m == 2 ? 4 : 5;
    r.minorStepUs = r.stepUs / perMajor;
    // The largest unit in which the step is at least a tenth: 500 µs reads "0.5 ms".
    const int e = *(std::ranges::upper_bound(kUnitExponent, k + 1) - 1); // k >= 0
    r.unit = TimeUnit(e / 3);
    r.decimals = std::max(0, e - k);

    const double from = (axis.startUs() - originUs) / r.minorStepUs;
    const double to = (axis.endUs() - originUs) / r.minorStepUs;
    const auto first = std::int64_t(std::ceil(from - 1e-9));
    const auto last = std::int64_t(std::floor(to + 1e-9));
    // A ruler never needs more ticks than pixels; anything else is a broken axis.
    if (last - first > std::int64_t(axis.widthPx()) * 2 + 16) {
        return r;
    }
    std::int64_t maxMajor = 0;
    for (std::int64_t n = first; n <= last; ++n) {
        const bool major = ((n % perMajor) + perMajor) % perMajor == 0;
        r.ticks.push_back({originUs + double(n) * r.minorStepUs, major, {}});
        if (major) {
            maxMajor = std::max(maxMajor, std::abs(n / perMajor));
        }
    }
    // Labels of five or more digits before the point: one base, then "+Δ".
    const double unitNs = pow10(e);
    r.hasBase = double(maxMajor) * stepNs / unitNs >= 1e4;
    std::int64_t baseIndex = 0;
    if (r.hasBase) {
        for (const auto& t : r.ticks) {
            if (t.major) {
                baseIndex = std::int64_t(std::llround((t.us - originUs) / r.stepUs));
                break;
            }
        }
        r.baseUs = originUs + double(baseIndex) * r.stepUs;
        const double baseNs = std::abs(double(baseIndex) * stepNs);
        const auto above = std::ranges::upper_bound(kUnitExponent, baseNs, {}, pow10);
        const int eb = above == std::begin(kUnitExponent) ? 0 : *(above - 1);
        r.baseLabel =
            formatInUnit(double(baseIndex) * r.stepUs, TimeUnit(eb / 3), std::max(0, eb - k));
    }
    for (auto& t : r.ticks) {
        if (!t.major) {
            continue;
        }
        const auto j = std::int64_t(std::llround((t.us - originUs) / r.stepUs));
        const double valueUs = double(j - baseIndex) * stepNs / 1e3;
        t.label = (r.hasBase ? "+" : "") + formatInUnit(valueUs, r.unit, r.decimals);
    }
    return r;
}

} // namespace commprof::timeline
