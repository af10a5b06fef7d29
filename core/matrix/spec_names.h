// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The names of spec/'s plain tables as Qt strings, for the parts of core that speak Qt.

#include "spec/layers.h"
#include "spec/mapped.h"
#include "spec/model_families.h"

#include <QString>
#include <QStringList>

namespace commprof::matrix {

inline QString qName(std::string_view v) {
    return QString::fromUtf8(v.data(), qsizetype(v.size()));
}

inline QStringList modelFamilyList() {
    return spec::mapped<QStringList>(spec::kModelFamilies,
                                     [](const spec::ModelFamily& f) { return qName(f.name); });
}

} // namespace commprof::matrix
