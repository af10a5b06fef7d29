// SPDX-License-Identifier: GPL-3.0-or-later
#include "time_axis.h"

#include <algorithm>

namespace commprof::timeline {

TimeAxis::TimeAxis(double startUs, double endUs, int widthPx)
    : start_(startUs), end_(endUs > startUs ? endUs : startUs + 1), width_(std::max(1, widthPx)) {}

void TimeAxis::setWidth(int widthPx) {
    width_ = std::max(1, widthPx);
}

void TimeAxis::zoom(double factor, double anchorPx) {
    if (!(factor > 0)) {
        return;
    }
    const double anchor = toUs(anchorPx);
    const double span = (end_ - start_) / factor;
    const double frac = anchorPx / width_;
    start_ = anchor - frac * span;
    end_ = start_ + span;
}

void TimeAxis::pan(double dxPx) {
    const double dt = dxPx * usPerPixel();
    start_ += dt;
    end_ += dt;
}

void TimeAxis::clamp(double lo, double hi, double minSpan) {
    double span = std::max(minSpan, std::min(end_ - start_, hi - lo));
    start_ = std::clamp(start_, lo, std::max(lo, hi - span));
    end_ = start_ + span;
}

} // namespace commprof::timeline
