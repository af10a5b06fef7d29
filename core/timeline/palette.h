// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Slice colours of the trace timeline as plain RGB, so that the rules are tested without a
// window: the four classes' colours, a stable colour per name (the same name gets the same
// colour in every trace and every session, as in Perfetto), and the text colour that stays
// readable on each fill.

#include "trace/trace_event.h"

#include <cstdint>
#include <span>
#include <string_view>

namespace commprof::timeline {

struct Rgb {
    std::uint8_t r = 0, g = 0, b = 0;
    friend bool operator==(const Rgb&, const Rgb&) = default;
};

Rgb classColour(trace::EventClass cls);
// FNV-1a of the name picks one of namePalette(); never depends on the run or the trace.
Rgb nameColour(std::string_view name);
std::span<const Rgb> namePalette();
// WCAG 2 contrast ratio (1 to 21).
double contrastRatio(Rgb a, Rgb b);
// Black or white, whichever contrasts more with the fill.
Rgb textColourOn(Rgb fill);

} // namespace commprof::timeline
