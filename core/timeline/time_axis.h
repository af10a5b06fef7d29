// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The time-to-pixel mapping of the trace timeline: a visible window [start, end] in
// microseconds onto [0, width) pixels, with zoom about a pixel and pan by pixels.

namespace commprof::timeline {

class TimeAxis {
public:
    TimeAxis() = default;
    TimeAxis(double startUs, double endUs, int widthPx);

    double startUs() const { return start_; }
    double endUs() const { return end_; }
    int widthPx() const { return width_; }
    double usPerPixel() const { return (end_ - start_) / width_; }

    double toPixel(double us) const { return (us - start_) / usPerPixel(); }
    double toUs(double px) const { return start_ + px * usPerPixel(); }

    void setWidth(int widthPx);
    // factor > 1 zooms in; the time under anchorPx stays under it.
    void zoom(double factor, double anchorPx);
    void pan(double dxPx); // positive moves the view to later times
    // Keeps the window inside [lo, hi] and at least minSpanUs wide.
    void clamp(double loUs, double hiUs, double minSpanUs = 1e-3);

private:
    double start_ = 0;
    double end_ = 1;
    int width_ = 1;
};

} // namespace commprof::timeline
