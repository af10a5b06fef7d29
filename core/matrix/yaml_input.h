// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The one way core reads YAML (matrices and machine profiles): bounded in size, and every
// yaml-cpp failure (syntax, depth, a conversion) turned into a MatrixError at file:line:col,
// so no input can end the process through an exception that nobody catches.

#include "matrix/matrix.h"

#include <yaml-cpp/yaml.h>

#include <QByteArray>
#include <QSet>
#include <QString>

namespace commprof::matrix {

// Reads FILE (a regular file, at most 2 MiB or COMMPROF_MAX_MATRIX_BYTES). Throws MatrixError.
QByteArray readYamlFile(const QString& file);

// Parses TEXT; `file` names it in errors. Throws MatrixError.
YAML::Node loadYaml(const QByteArray& text, const QString& file);

[[noreturn]] void failAt(const QString& file, const YAML::Node& at, const QString& key,
                         const QString& message);

// A mapping key as a plain name. A key that is a list or a mapping, or one that appears twice in
// the same mapping, is an error at the key's own line and column.
QString keyName(const QString& file, const YAML::Node& key, QSet<QString>& seen);

} // namespace commprof::matrix
