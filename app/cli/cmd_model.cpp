// SPDX-License-Identifier: GPL-3.0-or-later
// commprof model export: a TorchScript module and its description; commprof model describe: the
// description of a module the user scripted. Both made by PyTorch's Python
// (tools/model_export.py, compiled into this program), so that a matrix can name the file and
// this program stays free of torch.

#include "cli_common.h"
#include "matrix/input_bounds.h"
#include "matrix/yaml_fields.h"
#include "model_exporter.h"

#include <cmath>
#include <optional>
#include <tuple>

namespace commprof::cli {
namespace {

QStringList passed(const Args& args, std::initializer_list<const char*> flags) {
    QStringList out;
    for (const char* flag : flags) {
        if (args.has(flag)) {
            out << flag << args.value(flag);
        }
    }
    return out;
}

} // namespace

int modelExportCommand(const Args& args) {
    return runExporter("model export",
                       QStringList{args.operands().first(), "--out", args.value("--out")} +
                           passed(args, {"--input-shape", "--classes", "--seed"}),
                       ExporterOutput::Forwarded);
}

int modelDescribeCommand(const Args& args) {
    // The bounds a description is read back with (matrix/model_description.cpp), so describe
    // never writes one that calibrate and the plan then refuse.
    const auto count = [&](const char* flag, const QString& text, qint64 min,
                           qint64 max) -> std::optional<QString> {
        bool ok = false;
        const double v = text.trimmed().toDouble(&ok);
        if (ok && v == std::floor(v) && v >= double(min) && v <= double(max)) {
            return std::nullopt;
        }
        return QString("%1: expected a whole number from %2 to %3, got '%4'")
            .arg(flag)
            .arg(min)
            .arg(max)
            .arg(text);
    };
    std::optional<QString> bad;
    if (args.has("--input-shape")) {
        for (const QString& d : args.value("--input-shape").split(',')) {
            bad = bad ? bad : count("--input-shape", d, 1, matrix::kMaxCount);
        }
    }
    for (const auto& [flag, min, max] : {std::tuple{"--classes", 1, matrix::kMaxCount},
                                         std::tuple{"--tokens", 1, matrix::kMaxCount},
                                         std::tuple{"--vocab", 2, matrix::kMaxVocab}}) {
        if (args.has(flag)) {
            bad = bad ? bad : count(flag, args.value(flag), min, max);
        }
    }
    if (bad) {
        return args.usageError(*bad);
    }
    return describeModule(
        "model describe", args.operands().first(),
        passed(args, {"--input-shape", "--classes", "--tokens", "--vocab", "--out"}),
        ExporterOutput::Forwarded);
}

} // namespace commprof::cli
