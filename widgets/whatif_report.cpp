// SPDX-License-Identifier: GPL-3.0-or-later
#include "whatif_report.h"

#include "files/safe_file.h"
#include "report/whatif_macros.h"
#include "report/whatif_text.h"
#include "whatif_plot.h"

#include <QDir>
#include <QJsonDocument>

#include <stdexcept>

namespace commprof::widgets {
namespace {

void writeText(const QString& path, const QByteArray& text, QStringList& written) {
    if (const QString error = files::writeAtomically(path, text); !error.isEmpty()) {
        throw std::runtime_error(("cannot write " + error).toStdString());
    }
    written << path;
}

} // namespace

QStringList writeWhatIfReport(const analysis::WhatIf& w,
                              const std::optional<analysis::StepParts>& recorded,
                              const QString& source, const QString& outDir,
                              const ExportOptions& options) {
    if (!QDir().mkpath(outDir)) {
        throw std::runtime_error(("cannot create " + outDir).toStdString());
    }
    QStringList written;
    const QDir out(outDir);
    if (options.tables) {
        writeText(out.filePath("macros.tex"), report::whatIfMacrosTex(w, source).toUtf8(), written);
        writeText(out.filePath("whatif.json"), QJsonDocument(report::toJson(w)).toJson(),
                  written);
    }
    const WhatIfFigure figure = whatIfFigure(w, recorded, report::recommendedScenario(w));
    written << writeDrawn(
        "whatif", "What if",
        [&](QCustomPlot& plot, const FigureStyle& style) { drawWhatIf(plot, figure, style); },
        outDir, options);
    return written;
}

} // namespace commprof::widgets
