// SPDX-License-Identifier: GPL-3.0-or-later
#include "matrix_cap.h"

#include "matrix/yaml_input.h"

#include <cmath>

namespace commprof::inputs {

std::optional<double> matrixScalarCapMb(const QString& matrixYaml) {
    if (matrixYaml.trimmed().isEmpty()) {
        return std::nullopt;
    }
    try {
        const YAML::Node root = matrix::loadYaml(matrixYaml.toUtf8(), "run.json matrix_yaml");
        if (!root.IsMap() || !root["defaults"] || !root["defaults"].IsMap()) {
            return std::nullopt;
        }
        const YAML::Node cap = root["defaults"]["bucket_cap_mb"];
        if (!cap || !cap.IsScalar()) {
            return std::nullopt; // absent or a list: no one current cap written
        }
        bool ok = false;
        const double v = QString::fromStdString(cap.Scalar()).toDouble(&ok);
        return ok && std::isfinite(v) && v > 0 ? std::optional<double>(v) : std::nullopt;
    } catch (const std::exception&) {
        return std::nullopt; // a text that does not parse names no cap; the run said why then
    }
}

} // namespace commprof::inputs
