// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// A YAML scalar as text. yaml-cpp hands over what a "\0" escape makes and bytes that are not
// UTF-8 unchecked; a name holding them would be cut short by C strings or mangled on its way
// to cells, reports and the terminal, so they are refused where they are written.

#include <yaml-cpp/yaml.h>

#include <QString>

namespace commprof::matrix {

// The scalar `n` as UTF-8 text; a NUL character or bytes that are not UTF-8 are an error at
// its file:line:col naming `key`. Throws MatrixError.
QString scalarText(const QString& file, const YAML::Node& n, const QString& key);

} // namespace commprof::matrix
