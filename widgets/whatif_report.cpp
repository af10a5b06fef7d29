// SPDX-License-Identifier: GPL-3.0-or-later
#include "whatif_report.h"

#include "report/ddp_step_graph_text.h"
#include "report/whatif_macros.h"
#include "report/whatif_text.h"
#include "whatif_plot.h"

#include <QDir>
#include <QJsonDocument>

namespace commprof::widgets {

QStringList writeWhatIfReport(const analysis::WhatIf& w, const analysis::DdpJob& job,
                              const std::optional<analysis::StepParts>& recorded,
                              const QString& dir, const QString& outDir,
                              const ExportOptions& options) {
    makeDir(outDir);
    QStringList written;
    const QDir out(outDir);
    if (options.tables) {
        writeText(out.filePath("macros.tex"),
                  report::whatIfMacrosTex(w, job.incomplete ? dir + " (an incomplete job)" : dir),
                  written);
        writeText(
            out.filePath("whatif.json"),
            QString::fromUtf8(QJsonDocument(report::withWarnings(report::toJson(w), job)).toJson()),
            written);
    }
    WhatIfFigure figure = whatIfFigure(w, recorded, report::recommendedScenario(w));
    figure.incomplete = job.incomplete;
    written << writeDrawn(
        "whatif", "What if",
        [&](QCustomPlot& plot, const FigureStyle& style) { drawWhatIf(plot, figure, style); },
        outDir, options);
    return written;
}

} // namespace commprof::widgets
