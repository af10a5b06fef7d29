// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Pixel checks for rendered widgets and figures: a blank or single-colour image is a bug.

#include <QImage>
#include <QSet>

// Distinct colours on a sampling grid (every `step` pixels).
inline int distinctColours(const QImage& image, int step = 4) {
    QSet<QRgb> colours;
    for (int y = 0; y < image.height(); y += step) {
        for (int x = 0; x < image.width(); x += step) {
            colours.insert(image.pixel(x, y));
        }
    }
    return int(colours.size());
}

// Sampled pixels darker than near-white.
inline int inkedPixels(const QImage& image, int step = 3) {
    int inked = 0;
    for (int y = 0; y < image.height(); y += step) {
        for (int x = 0; x < image.width(); x += step) {
            inked += qGray(image.pixel(x, y)) < 240;
        }
    }
    return inked;
}
