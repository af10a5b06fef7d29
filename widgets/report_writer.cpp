// SPDX-License-Identifier: GPL-3.0-or-later
#include "report_writer.h"

#include "facets.h"
#include "files/safe_file.h"
#include "report/cells_table.h"
#include "result_plots.h"

#include <qcustomplot.h>

#include <QDir>
#include <QJsonDocument>
#include <QPdfWriter>
#include <QSvgGenerator>

#include <cmath>
#include <stdexcept>

namespace commprof::widgets {
namespace {

// Figures keep the proportions of a typical paper figure.
constexpr double kAspect = 0.62;
constexpr double kMetresPerInch = 0.0254;
// The data keep at least this share of a figure's height (its plot area: the axis rects, summed
// over their rows where a figure has panels).
constexpr double kPlotShare = 0.55;
// Cell labels across their axis: at most this share of the figure's first height.
constexpr double kLabelShareOfBase = 0.5;

void failUnless(bool ok, const QString& path) {
    if (!ok) {
        throw std::runtime_error(("cannot write " + path).toStdString());
    }
}

DrawFigure drawing(const FigureSpec& figure, const report::ReportData& data) {
    return [&](QCustomPlot& p, const FigureStyle& style) { figure.draw(p, data, style); };
}

} // namespace

void makeDir(const QString& outDir) {
    if (!QDir().mkpath(outDir)) {
        throw std::runtime_error(("cannot create " + outDir).toStdString());
    }
}

void writeText(const QString& path, const QString& text, QStringList& written) {
    if (const QString error = files::writeAtomically(path, text.toUtf8()); !error.isEmpty()) {
        throw std::runtime_error(("cannot write " + error).toStdString());
    }
    written << path;
}

QStringList writeTables(store::Database& db, const report::ReportData& data,
                        const QString& outDir) {
    makeDir(outDir);
    QStringList written;
    const QDir out(outDir);
    writeText(out.filePath("cells.csv"), report::cellsCsv(data.cells, data.predictionsByCell),
              written);
    writeText(out.filePath("macros.tex"), report::macrosTex(data), written);
    writeText(out.filePath("buckets.csv"), report::bucketsCsv(db, data), written);
    writeText(out.filePath("sweep.csv"), report::sweepCsv(data), written);
    writeText(out.filePath("fit.json"),
              QString::fromUtf8(QJsonDocument(report::fitsJson(data)).toJson()), written);
    if (data.tuning) {
        writeText(out.filePath("recommend.csv"), report::recommendCsv(*data.tuning), written);
    }
    return written;
}

QSize layOutFigure(QCustomPlot& plot, const FigureSpec& figure, const report::ReportData& data,
                   const ExportOptions& options) {
    return layOutDrawn(plot, drawing(figure, data), options);
}

QSize layOutDrawn(QCustomPlot& plot, const DrawFigure& draw, const ExportOptions& options) {
    // Lay the figure out in the units its fonts are measured in (the screen's logical dpi),
    // and give every output that same unit per inch: the text keeps its point size and the
    // layout computed for it is the layout drawn.
    const int unitsPerInch = plot.logicalDpiX();
    const int w = int(std::lround(options.widthIn * unitsPerInch));
    const int base = int(std::lround(options.widthIn * kAspect * unitsPerInch));
    int h = base;
    const auto grow = [&](int to) {
        h = to;
        setFigureSize(plot, {w, h});
        plot.replot(QCustomPlot::rpImmediateRefresh);
    };
    setFigureSize(plot, {w, h});
    // Cell labels may take up to this much across their axis, whatever the page grows to.
    plot.setProperty("tickLabelRoomPx", base * kLabelShareOfBase);
    // A legend below the axes grows the page by its height: half the first height keeps it
    // within a third of the page, and lets a legend of two columns name ten entries at 8 pt.
    plot.setProperty("legendRoomPx", base / 2.0);
    draw(plot, FigureStyle{.fontPt = options.fontPt, .titleDeltaPt = 0.0});
    placeLegend(plot);
    // What sits below the axes (a legend no corner had room for, a note) gets room of its own,
    // and so do long tick labels: the page grows until the data keep at least kPlotShare of it.
    if (const int below = heightBelowAxes(plot); below > 0) {
        grow(h + below);
    }
    // Rows of panels keep their least heights where the page is shorter than the layout's, and
    // the legend under them is cut at the page's foot: the page grows by what the legend lacks.
    for (int pass = 0; pass < 8; ++pass) {
        const int squeezed = squeezedBelowAxes(plot);
        if (squeezed == 0) {
            break;
        }
        grow(h + squeezed);
    }
    for (int pass = 0; pass < 3; ++pass) {
        const int around = h - plotAreaHeight(plot);
        const int need = int(std::ceil(around / (1.0 - kPlotShare)));
        if (need <= h) {
            break;
        }
        grow(need);
    }
    return {w, h};
}

QStringList writeFigure(const FigureSpec& figure, const report::ReportData& data,
                        const QString& outDir, const ExportOptions& options) {
    return writeDrawn(figure.name, figure.title, drawing(figure, data), outDir, options);
}

QStringList writeDrawn(const QString& name, const QString& title, const DrawFigure& draw,
                       const QString& outDir, const ExportOptions& options) {
    makeDir(outDir);
    QCustomPlot plot;
    const int unitsPerInch = plot.logicalDpiX();
    const QSize size = layOutDrawn(plot, draw, options);
    const int w = size.width();
    const int h = size.height();
    const double heightIn = double(h) / unitsPerInch;

    QStringList written;
    const QString base = QDir(outDir).filePath(name);
    // Draws the laid-out figure into a device; the file is written when the painter ends (an
    // image's when it is saved, which throws where it cannot: nothing written is returned then).
    const auto paint = [&](QPaintDevice& device, const QString& path, double scale = 1.0) {
        QCPPainter painter;
        failUnless(painter.begin(&device), path);
        painter.setMode(QCPPainter::pmNoCaching);
        painter.scale(scale, scale);
        plot.toPainter(&painter, w, h);
        failUnless(painter.end(), path);
        written << path;
    };
    if (options.pdf) {
        const QString path = base + ".pdf";
        QPdfWriter pdf(path);
        pdf.setPageSize(QPageSize(QSizeF(options.widthIn, heightIn), QPageSize::Inch));
        pdf.setPageMargins(QMarginsF(0, 0, 0, 0));
        pdf.setResolution(unitsPerInch);
        pdf.setTitle(title);
        pdf.setCreator("commprof");
        paint(pdf, path);
    }
    if (options.svg) {
        const QString path = base + ".svg";
        QSvgGenerator svg;
        svg.setFileName(path);
        svg.setResolution(unitsPerInch);
        svg.setSize(QSize(w, h));
        svg.setViewBox(QRect(0, 0, w, h));
        svg.setTitle(title);
        paint(svg, path);
    }
    if (options.png) {
        const QString path = base + ".png";
        const double scale = double(options.dpi) / unitsPerInch;
        QImage image(int(std::lround(w * scale)), int(std::lround(h * scale)),
                     QImage::Format_ARGB32_Premultiplied);
        image.fill(Qt::white);
        // Paint at the layout's unit per inch, scaled up to the requested dpi.
        image.setDotsPerMeterX(int(std::lround(unitsPerInch / kMetresPerInch)));
        image.setDotsPerMeterY(int(std::lround(unitsPerInch / kMetresPerInch)));
        paint(image, path, scale);
        image.setDotsPerMeterX(int(std::lround(options.dpi / kMetresPerInch)));
        image.setDotsPerMeterY(int(std::lround(options.dpi / kMetresPerInch)));
        failUnless(image.save(path, "PNG"), path);
    }
    return written;
}

QStringList writeReport(store::Database& db, const report::ReportData& data, const QString& outDir,
                        const ExportOptions& options) {
    QStringList written = options.tables ? writeTables(db, data, outDir) : QStringList{};
    for (const FigureSpec& fig : reportFigures()) {
        if (fig.appliesTo(data)) {
            written << writeFigure(fig, data, outDir, options);
        }
    }
    return written;
}

} // namespace commprof::widgets
