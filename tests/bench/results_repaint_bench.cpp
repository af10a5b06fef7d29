// SPDX-License-Identifier: GPL-3.0-or-later
// How long the results view takes to repaint at a study's scale: the 4-, 33- and 300-cell
// folders of tests/study_folders.h (a real smoke run's cells, copied), shown at 1920x1080 and
// 1366x768 as the Results workspace lays them out. Two kinds of repaint are timed, each from the
// request to the pixels (QWidget::repaint of the whole view, which paints every visible plot):
//
//   repaint   the view as it stands (an expose: the plots paint their buffers);
//   replot    every figure drawn again into its buffer, then the repaint (what a resize does);
//   select    a cell picked (the selection highlighted in every plot), then the repaint.
//
// Each is repeated `rounds` times and its median and worst printed in ms, beside the same for
// the 4-cell study (the ratio says what the scale costs).
//
//   QT_QPA_PLATFORM=offscreen build/bin/results_repaint_bench [rounds]

#include "cli_runner.h"
#include "gui_helpers.h"
#include "report/report_data.h"
#include "results_view.h"
#include "store/open_results.h"
#include "study_folders.h"

#include <qcustomplot.h>

#include <QApplication>
#include <QElapsedTimer>
#include <QTemporaryDir>

#include <algorithm>
#include <cstdio>
#include <vector>

using namespace commprof;

namespace {

struct Timing {
    double medianMs = 0, worstMs = 0;
};

Timing summarise(std::vector<double> ms) {
    std::sort(ms.begin(), ms.end());
    return {ms[ms.size() / 2], ms.back()};
}

} // namespace

int main(int argc, char** argv) {
    QApplication app(argc, argv);
    const int rounds = argc > 1 ? std::max(3, atoi(argv[1])) : 31;
    isolateSettings();
    QTemporaryDir work;
    const QString smoke = work.filePath("smoke");
    if (const QString error = runSmoke(smoke); !error.isEmpty()) {
        std::fprintf(stderr, "smoke run failed: %s\n", qPrintable(error));
        return 1;
    }
    std::printf("%-8s %-10s %-8s %10s %10s\n", "cells", "screen", "kind", "median ms", "worst ms");
    for (const StudyShape& shape : {smallStudy(), tuningStudy(), largeStudy()}) {
        const QString dir = work.filePath(QString("study%1").arg(shape.cells()));
        if (!makeStudyFolder(smoke, dir, shape)) {
            std::fprintf(stderr, "%s: could not be made\n", qPrintable(dir));
            return 1;
        }
        const store::OpenedResults opened = store::openResults(dir, store::defaultDbPath(dir), {});
        const report::ReportData data =
            report::loadReportData(*opened.db, QDir(dir).canonicalPath());
        QStringList ids;
        for (const auto& c : data.cells) {
            ids << c.id;
        }
        for (const QSize screen : {QSize(1920, 1080), QSize(1366, 768)}) {
            widgets::ResultsView view;
            view.resize(screen.width() * 2 / 3, screen.height() - 120);
            view.show();
            view.setData(data);
            QApplication::processEvents();
            view.repaint(); // the first paint lays the plots out
            std::vector<double> repaint, replot, select;
            std::vector<QCustomPlot*> plots;
            for (const QString& name : widgets::ResultsView::shownFigures()) {
                if (QCustomPlot* p = view.plot(name.toLatin1().constData())) {
                    plots.push_back(p);
                }
            }
            QElapsedTimer t;
            for (int i = 0; i < rounds; ++i) {
                t.start();
                view.repaint();
                repaint.push_back(double(t.nsecsElapsed()) / 1e6);
                t.start();
                for (QCustomPlot* p : plots) {
                    p->replot(QCustomPlot::rpQueuedRefresh);
                }
                view.repaint();
                replot.push_back(double(t.nsecsElapsed()) / 1e6);
                t.start();
                view.selectCell(ids[i % ids.size()]);
                view.repaint();
                select.push_back(double(t.nsecsElapsed()) / 1e6);
            }
            const QString size = QString("%1x%2").arg(screen.width()).arg(screen.height());
            for (const auto& [kind, ms] :
                 {std::pair{"repaint", repaint}, {"replot", replot}, {"select", select}}) {
                const Timing s = summarise(ms);
                std::printf("%-8d %-10s %-8s %10.2f %10.2f\n", shape.cells(), qPrintable(size),
                            kind, s.medianMs, s.worstMs);
            }
        }
    }
    double load[1] = {};
    getloadavg(load, 1);
    std::printf("load average %.2f, %d rounds\n", load[0], rounds);
    return 0;
}
