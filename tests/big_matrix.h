// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The 100,000-cell matrix the designer is tested and benchmarked on: 100 models x 1 layer x
// 100 world sizes x 10 repeats.

#include <QString>
#include <QStringList>

inline QString bigMatrix() {
    QStringList models, sizes;
    for (int i = 0; i < 100; ++i) {
        models << QString("{name: m%1, params: %2}").arg(i).arg(1000000 + i * 10000);
    }
    for (int ws = 1; ws <= 100; ++ws) {
        sizes << QString::number(ws);
    }
    return QString("name: big\nmodels: [%1]\nlayers: [{name: gloo_cpu}]\nworld_sizes: [%2]\n"
                   "repeats: 10\n")
        .arg(models.join(", "), sizes.join(", "));
}
