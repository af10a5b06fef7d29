// SPDX-License-Identifier: GPL-3.0-or-later
#include "palette.h"

#include <array>
#include <cmath>

namespace commprof::timeline {
namespace {

// Mid-saturation hues, distinct side by side; light enough for black text, dark enough that
// the slice stands out from the white lane background.
constexpr std::array<Rgb, 16> kNamePalette{{
    {0x4e, 0x79, 0xa7},
    {0xf2, 0x8e, 0x2b},
    {0x59, 0xa1, 0x4f},
    {0xe1, 0x57, 0x59},
    {0x76, 0xb7, 0xb2},
    {0xed, 0xc9, 0x48},
    {0xb0, 0x7a, 0xa1},
    {0xff, 0x9d, 0xa7},
    {0x9c, 0x75, 0x5f},
    {0xba, 0xb0, 0xac},
    {0x8c, 0xd1, 0x7d},
    {0xa0, 0xcb, 0xe8},
    {0xff, 0xbe, 0x7d},
    {0xd4, 0xa6, 0xc8},
    {0x86, 0xbc, 0xb6},
    {0xd3, 0x72, 0x95},
}};

double linear(std::uint8_t channel) {
    const double c = channel / 255.0;
    return c <= 0.04045 ? c / 12.92 : std::pow((c + 0.055) / 1.055, 2.4);
}

} // namespace

Rgb classColour(trace::EventClass cls) {
    switch (cls) {
    case trace::EventClass::Compute:
        return {0x1f, 0x77, 0xb4};
    case trace::EventClass::Communication:
        return {0xff, 0x7f, 0x0e};
    case trace::EventClass::Bookkeeping:
        return {0x2c, 0xa0, 0x2c};
    case trace::EventClass::Memory:
        return {0x94, 0x67, 0xbd};
    case trace::EventClass::NotCounted:
        break;
    }
    return {0xa8, 0xa8, 0xb4};
}

std::span<const Rgb> namePalette() {
    return kNamePalette;
}

Rgb nameColour(std::string_view name) {
    std::uint32_t h = 2166136261u;
    for (const char c : name) {
        h ^= std::uint8_t(c);
        h *= 16777619u;
    }
    return kNamePalette[h % kNamePalette.size()];
}

double relativeLuminance(Rgb c) {
    return 0.2126 * linear(c.r) + 0.7152 * linear(c.g) + 0.0722 * linear(c.b);
}

double contrastRatio(Rgb a, Rgb b) {
    const double la = relativeLuminance(a);
    const double lb = relativeLuminance(b);
    return (std::max(la, lb) + 0.05) / (std::min(la, lb) + 0.05);
}

Rgb textColourOn(Rgb fill) {
    const Rgb black{0, 0, 0};
    const Rgb white{255, 255, 255};
    return contrastRatio(fill, black) >= contrastRatio(fill, white) ? black : white;
}

} // namespace commprof::timeline
