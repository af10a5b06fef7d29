// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Writes a report directory: cells.csv, buckets.csv, sweep.csv, fit.json, macros.tex, and every
// figure once, in the chosen formats, at a paper's column width with 8-9 pt text, rendered by the
// workbench's own plot code. `commprof report` and the workbench's Export both come here.

#include "report/report_data.h"

#include <QSize>
#include <QStringList>

#include <functional>

class QCustomPlot;

namespace commprof::widgets {

struct FigureSpec;
struct FigureStyle;

// Draws a figure into a plot at a style: what layOutDrawn and writeDrawn take, for figures whose
// data is not a results folder's (the What if figure of a trace folder).
using DrawFigure = std::function<void(QCustomPlot&, const FigureStyle&)>;

struct ExportOptions {
    static constexpr double kSingleColumnIn = 3.3;
    static constexpr double kDoubleColumnIn = 7.0;
    bool pdf = true;
    bool svg = false;
    bool png = true;
    double widthIn = kDoubleColumnIn;
    double fontPt = 9.0;
    int dpi = 300; // PNG only
    bool tables = true;
};

// Makes outDir, and writes `text` to `path` atomically, adding it to `written`: each throws
// std::runtime_error naming what it could not create or write.
void makeDir(const QString& outDir);
void writeText(const QString& path, const QString& text, QStringList& written);
// cells.csv, buckets.csv, sweep.csv, fit.json, macros.tex. Throws std::runtime_error naming a file
// that could not be written. Safe to call off the GUI thread.
QStringList writeTables(store::Database& db, const report::ReportData& data, const QString& outDir);
// Draws the figure into `plot` and lays it out as writeFigure writes it: the page's width, and
// a height grown from the width's proportions by what sits below the axes and by long tick
// labels, so that the plot area keeps at least half of it. Returns that size in the plot's
// units (its logical dpi per inch).
QSize layOutFigure(QCustomPlot& plot, const FigureSpec& figure, const report::ReportData& data,
                   const ExportOptions& options);
QSize layOutDrawn(QCustomPlot& plot, const DrawFigure& draw, const ExportOptions& options);
// One figure in every chosen format, as OUTDIR/<name>.<ext>. GUI thread only (it draws with a
// widget). Throws std::runtime_error naming a file that could not be written.
QStringList writeFigure(const FigureSpec& figure, const report::ReportData& data,
                        const QString& outDir, const ExportOptions& options);
QStringList writeDrawn(const QString& name, const QString& title, const DrawFigure& draw,
                       const QString& outDir, const ExportOptions& options);
// Tables (if options.tables) and every figure. Returns the files written.
QStringList writeReport(store::Database& db, const report::ReportData& data, const QString& outDir,
                        const ExportOptions& options = {});

} // namespace commprof::widgets
