#include "report_writer.h"

#include "report/cells_table.h"
#include "result_plots.h"

#include <qcustomplot.h>

#include <QDir>
#include <QJsonDocument>
#include <QSaveFile>

#include <stdexcept>

namespace commprof::widgets {
namespace {

// Publication size: a two-column figure at 300 dpi is about 7 x 4.3 inches.
constexpr int kWidth = 1050;
constexpr int kHeight = 650;

void writeText(const QString& path, const QString& text, QStringList& written) {
    QSaveFile f(path);
    if (!f.open(QIODevice::WriteOnly) || f.write(text.toUtf8()) < 0 || !f.commit()) {
        throw std::runtime_error(("cannot write " + path).toStdString());
    }
    written << path;
}

} // namespace

QStringList writeReport(store::Database& db, const report::ReportData& data,
                        const QString& outDir) {
    if (!QDir().mkpath(outDir)) {
        throw std::runtime_error(("cannot create " + outDir).toStdString());
    }
    QStringList written;
    const QDir out(outDir);
    writeText(out.filePath("cells.csv"), report::cellsCsv(data.cells), written);
    writeText(out.filePath("macros.tex"), report::macrosTex(data), written);
    writeText(out.filePath("buckets.csv"), report::bucketsCsv(db, data), written);
    writeText(out.filePath("fit.json"),
              QString::fromUtf8(QJsonDocument(report::fitsJson(data)).toJson()), written);
    QCustomPlot plot;
    plot.resize(kWidth, kHeight);
    for (const FigureSpec& fig : reportFigures()) {
        fig.draw(plot, data);
        plot.replot();
        const QString pdf = out.filePath(QString(fig.name) + ".pdf");
        const QString png = out.filePath(QString(fig.name) + ".png");
        if (!plot.savePdf(pdf, kWidth, kHeight) || !plot.savePng(png, kWidth, kHeight, 2.0)) {
            throw std::runtime_error(("cannot render " + QString(fig.name)).toStdString());
        }
        written << pdf << png;
    }
    return written;
}

} // namespace commprof::widgets
