// SPDX-License-Identifier: GPL-3.0-or-later
// How long the designer takes, after the typing pause, to show a 100k-cell matrix's new plan:
// the whole update (the planner job, the table and bars taken back on the GUI thread) timed
// from the debounce firing to planChanged, and beside it the planner's phases run in-process
// (parse, expand and size, order, worst cell, freeing the plan) in CPU time, each the median of
// several rounds.
//
//   QT_QPA_PLATFORM=offscreen build/bin/designer_bench [rounds]

#include "big_matrix.h"
#include "code_editor.h"
#include "feasibility/plan.h"
#include "matrix/matrix.h"
#include "matrix_designer.h"
#include "models/cell_table_model.h"

#include <QApplication>
#include <QElapsedTimer>
#include <QPlainTextEdit>
#include <QSignalSpy>
#include <QTextCursor>

#include <QTextDocument>

#include <algorithm>
#include <cstdio>
#include <ctime>
#include <functional>
#include <vector>

using namespace commprof;

namespace {

// CPU time of this thread: the in-process phases are quoted as CPU, so a loaded machine does not
// hide what a change did.
double threadCpuMs() {
    timespec ts{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

} // namespace

int main(int argc, char** argv) {
    QApplication app(argc, argv);
    const int rounds = argc > 1 ? std::max(1, atoi(argv[1])) : 5;
    const QByteArray yaml = bigMatrix().toUtf8();
    feasibility::PlanOptions options;
    options.overrides.hostGib = 64.0;
    options.overrides.gpus = 0;
    options.facts = feasibility::MachineFacts{};

    std::vector<double> parse, plan, order, worst, freed, gui;
    for (int r = 0; r < rounds; ++r) {
        double t = threadCpuMs();
        const auto lap = [&t](std::vector<double>& into) {
            const double now = threadCpuMs();
            into.push_back(now - t);
            t = now;
        };
        const matrix::Matrix m = matrix::parseMatrix(yaml, "big.yaml");
        lap(parse);
        auto p = std::make_unique<feasibility::Plan>(feasibility::makePlan(m, options));
        lap(plan);
        const std::vector<int> rows =
            models::CellTableModel::order(*p, QString(), -1, Qt::AscendingOrder);
        lap(order);
        volatile int w = models::CellTableModel::worstCell(*p);
        (void)w;
        lap(worst);
        const std::size_t planned = p->cells.size();
        p.reset();
        lap(freed);
        if (planned != 100000 || rows.size() != 100000) {
            std::fprintf(stderr, "designer_bench: expected 100000 cells, planned %zu\n", planned);
            return 1;
        }
    }

    widgets::MatrixDesigner designer;
    designer.resize(1200, 800);
    designer.show();
    designer.setBudgets(64.0, std::nullopt, 0);
    QSignalSpy planned(&designer, &widgets::MatrixDesigner::planChanged);
    designer.setText(bigMatrix(), "big.yaml");
    if (!planned.wait(120000)) {
        std::fprintf(stderr, "designer_bench: the first plan never came\n");
        return 1;
    }
    // An edit that means the same (a comment) and one that changes cells (one model's size).
    const auto update = [&](const std::function<void(int)>& edit, std::vector<double>& into) {
        for (int r = 0; r < rounds; ++r) {
            planned.clear();
            edit(r);
            // The pause is the designer's own debounce; what follows it is the update.
            QElapsedTimer t;
            t.start();
            if (!planned.wait(120000)) {
                std::fprintf(stderr, "designer_bench: a plan never came\n");
                std::exit(1);
            }
            QApplication::processEvents();
            into.push_back(t.nsecsElapsed() / 1e6 - widgets::MatrixDesigner::kDebounceMs);
        }
    };
    std::vector<double> changed;
    update(
        [&](int r) {
            designer.editor()->moveCursor(QTextCursor::End);
            designer.editor()->insertPlainText(QString("# edit %1\n").arg(r));
        },
        gui);
    update(
        [&](int r) {
            // m0 goes from 1000000 to 1000001 parameters and back.
            QTextCursor c = designer.editor()->document()->find(
                QString("{name: m0, params: 100000%1}").arg(r % 2 ? 1 : 0));
            c.insertText(QString("{name: m0, params: 100000%1}").arg(r % 2 ? 0 : 1));
        },
        changed);
    if (designer.cells()->totalRows() != 100000) {
        std::fprintf(stderr, "designer_bench: the designer shows %d rows\n",
                     designer.cells()->totalRows());
        return 1;
    }
    std::printf("100k cells, medians of %d rounds: CPU ms parse %.1f, expand and size %.1f, "
                "order %.1f, worst %.1f, free %.1f; wall ms of the designer's update after the "
                "%d ms pause: a comment %.1f, one model's size %.1f\n",
                rounds, median(parse), median(plan), median(order), median(worst), median(freed),
                widgets::MatrixDesigner::kDebounceMs, median(gui), median(changed));
    return 0;
}
