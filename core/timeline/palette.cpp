// SPDX-License-Identifier: GPL-3.0-or-later
#include "palette.h"

#include <array>
#include <cmath>

namespace commprof::timeline {
namespace {

// Mid-saturation hues, distinct side by side; light enough for black text, dark enough that
// the slice stands out from the white lane background. Every hue keeps at least 20 degrees from
// the classes' (compute 205, communication 28, bookkeeping 120, memory 271): coloured by name,
// a hook's slice must not read as communication. Eight hues, light then dark.
constexpr std::array<Rgb, 16> kNamePalette{{{0xe0, 0x65, 0x65},
                                            {0xe0, 0xd6, 0x65},
                                            {0xb7, 0xe0, 0x65},
                                            {0x65, 0xe0, 0xa3},
                                            {0x65, 0xe0, 0xd6},
                                            {0x65, 0x6f, 0xe0},
                                            {0xe0, 0x65, 0xe0},
                                            {0xe0, 0x65, 0xa3},
                                            {0x9e, 0x57, 0x57},
                                            {0x9e, 0x98, 0x57},
                                            {0x86, 0x9e, 0x57},
                                            {0x57, 0x9e, 0x7b},
                                            {0x57, 0x9e, 0x98},
                                            {0x57, 0x5d, 0x9e},
                                            {0x9e, 0x57, 0x9e},
                                            {0x9e, 0x57, 0x7b}}};

double linear(std::uint8_t channel) {
    const double c = channel / 255.0;
    return c <= 0.04045 ? c / 12.92 : std::pow((c + 0.055) / 1.055, 2.4);
}

double relativeLuminance(Rgb c) {
    return 0.2126 * linear(c.r) + 0.7152 * linear(c.g) + 0.0722 * linear(c.b);
}

} // namespace

Rgb classColour(trace::EventClass cls) {
    // In EventClass's order: not counted, compute, communication, bookkeeping, memory.
    constexpr Rgb kColours[] = {{0xa8, 0xa8, 0xb4},
                                {0x1f, 0x77, 0xb4},
                                {0xff, 0x7f, 0x0e},
                                {0x2c, 0xa0, 0x2c},
                                {0x94, 0x67, 0xbd}};
    return kColours[std::size_t(cls)];
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
