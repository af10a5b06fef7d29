// SPDX-License-Identifier: GPL-3.0-or-later
#include "whatif_report.h"

#include "report/whatif_macros.h"
#include "report/whatif_text.h"
#include "whatif_plot.h"

#include <QDir>
#include <QJsonDocument>

namespace commprof::widgets {

QStringList writeWhatIfReport(const analysis::WhatIf& w,
                              const std::optional<analysis::StepParts>& recorded,
                              const QString& source, const QString& outDir,
                              const ExportOptions& options) {
    makeDir(outDir);
    QStringList written;
    const QDir out(outDir);
    if (options.tables) {
        writeText(out.filePath("macros.tex"), report::whatIfMacrosTex(w, source), written);
        writeText(out.filePath("whatif.json"),
                  QString::fromUtf8(QJsonDocument(report::toJson(w)).toJson()), written);
    }
    const WhatIfFigure figure = whatIfFigure(w, recorded, report::recommendedScenario(w));
    written << writeDrawn(
        "whatif", "What if",
        [&](QCustomPlot& plot, const FigureStyle& style) { drawWhatIf(plot, figure, style); },
        outDir, options);
    return written;
}

} // namespace commprof::widgets
