// SPDX-License-Identifier: GPL-3.0-or-later
// Results: linked plots and the cell table over a real run plus an incomplete cell, offscreen;
// and over a real run with sweep cells (plus a failed one): the sweep figure against the
// sweep_rank files worked out by hand, its selection and hover, and what `commprof report`
// exports of it.

#include "analysis/recommendation.h"
#include "cell_inspector_panel.h"
#include "cli_runner.h"
#include "image_checks.h"
#include "models/cap_table_model.h"
#include "models/cell_figures_model.h"
#include "models/results_cell_model.h"
#include "rank_files.h"
#include "report/report_data.h"
#include "result_plots.h"
#include "results_view.h"
#include "run_helpers.h"
#include "store/ingest.h"
#include "store/study_cells.h"

#include <qcustomplot.h>

#include <QAbstractItemModelTester>
#include <QDir>
#include <QJsonArray>
#include <QLabel>
#include <QLineEdit>
#include <QRegularExpression>
#include <QSignalSpy>
#include <QSortFilterProxyModel>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>

using namespace commprof;

namespace {

bool hasSelectionMark(QCustomPlot* plot) {
    for (int i = 0; i < plot->graphCount(); ++i) {
        if (plot->graph(i)->name() == "selection" && plot->graph(i)->dataCount() > 0) {
            return true;
        }
    }
    for (int i = 0; i < plot->itemCount(); ++i) {
        if (plot->item(i)->objectName() == "selection") {
            return true;
        }
    }
    return false;
}

// A tiny DDP model and a sweep of three kinds up to 64 KiB, at one and two ranks.
const char* const kSweepMatrix = R"(name: sweep_view
defaults: {iterations: 8, warmup: 2, batch_size: 8, trace: {enabled: true, first_step: 3, steps: 4}, timeout_s: 300}
models:
  - {name: tiny, family: mlp, params: 2.0e5}
  - {name: sweep, kind: sweep, collectives: [all_reduce, all_gather, broadcast], max_bytes: 65536, iterations: 3}
layers: [{name: gloo_cpu}]
world_sizes: [1, 2]
)";

// One size of one kind, from every rank's sweep_rank file, by hand: each rank's fastest
// repetition and its median (3 repetitions: the middle one), the slowest rank's of each.
struct HandPoint {
    double bytes = 0, fastestUs = 0, typicalUs = 0;
};

std::map<QString, std::vector<HandPoint>> handSweep(const QString& cellDir) {
    std::map<QString, std::map<double, HandPoint>> bySize;
    for (const QString& f : QDir(cellDir).entryList({"sweep_rank*.json"})) {
        for (const QJsonValue k : readJsonFile(cellDir + "/" + f)["kinds"].toArray()) {
            for (const QJsonValue size : k.toObject()["sizes"].toArray()) {
                QList<double> us;
                for (const QJsonValue t : size.toObject()["times_us"].toArray()) {
                    us << t.toDouble();
                }
                std::sort(us.begin(), us.end());
                HandPoint& p =
                    bySize[k.toObject()["kind"].toString()][size.toObject()["bytes"].toDouble()];
                p.bytes = size.toObject()["bytes"].toDouble();
                p.fastestUs = std::max(p.fastestUs, us.front());
                p.typicalUs = std::max(p.typicalUs, us[us.size() / 2]);
            }
        }
    }
    std::map<QString, std::vector<HandPoint>> out;
    for (const auto& [kind, sizes] : bySize) {
        for (const auto& [bytes, p] : sizes) {
            out[kind].push_back(p);
        }
    }
    return out;
}

// nccl-tests' bus bandwidth factors at two ranks, written out: 2(n-1)/n, (n-1)/n, 1.
double busFactorAtTwo(const QString& kind) {
    return kind == "all_reduce" ? 1.0 : kind == "all_gather" ? 0.5 : 1.0;
}

double gbps(double bytes, double us) {
    return bytes / us / 1e3;
}

bool near(double a, double b, double rel = 1e-6) {
    return std::abs(a - b) <= rel * std::max(std::abs(a), std::abs(b));
}

// A sweep cell the runner recorded as failed: rank 0 wrote its file (copied from the real ws2
// sweep), rank 1 crashed, no manifest.
bool addFailedSweep(const QString& run) {
    const QString donor = run + "/cells/sweep_gloo_cpu_ws2_r0";
    const QString cell = run + "/cells/sweep_gloo_cpu_ws3_r0";
    QDir().mkpath(cell);
    QJsonObject cellJson = readJsonFile(donor + "/cell.json");
    cellJson["id"] = "sweep_gloo_cpu_ws3_r0";
    cellJson["world_size"] = 3;
    cellJson["status"] = "failed";
    cellJson["failure"] = "rank 1 exited 134";
    QJsonObject rank0 = readJsonFile(donor + "/sweep_rank0.json");
    rank0["world_size"] = 3;
    rank0["cell_id"] = "sweep_gloo_cpu_ws3_r0";
    return writeJsonFile(cell + "/cell.json", cellJson) &&
           writeJsonFile(cell + "/sweep_rank0.json", rank0);
}

// The graphs of a figure that carry data, by legend name.
QMap<QString, const QCPGraph*> dataGraphs(const QCustomPlot& plot) {
    QMap<QString, const QCPGraph*> out;
    for (int i = 0; i < plot.graphCount(); ++i) {
        const QCPGraph* g = plot.graph(i);
        if (g->name() != "selection" && g->dataCount() > 0) {
            out[g->name()] = g;
        }
    }
    return out;
}

QStringList flaggedIds(const QCustomPlot& plot) {
    QStringList out;
    for (int i = 0; i < plot.itemCount(); ++i) {
        if (const auto* t = qobject_cast<QCPItemText*>(plot.item(i));
            t && t->objectName() == "flagged") {
            out << t->property("cellId").toString();
        }
    }
    return out;
}

QString readText(const QString& path) {
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? QString::fromUtf8(f.readAll()) : QString();
}

// RFC 4180: fields in double quotes may hold commas and doubled quotes.
QList<QStringList> csvRows(const QString& path) {
    QFile f(path);
    f.open(QIODevice::ReadOnly);
    QList<QStringList> rows;
    for (const QString& line : QString(f.readAll()).split('\n', Qt::SkipEmptyParts)) {
        QStringList fields{QString()};
        bool quoted = false;
        for (int i = 0; i < line.size(); ++i) {
            if (line[i] == '"') {
                if (quoted && i + 1 < line.size() && line[i + 1] == '"') {
                    fields.back() += '"';
                    ++i;
                } else {
                    quoted = !quoted;
                }
            } else if (line[i] == ',' && !quoted) {
                fields << QString();
            } else {
                fields.back() += line[i];
            }
        }
        rows << fields;
    }
    return rows;
}

} // namespace

class TstGuiResults : public QObject {
    Q_OBJECT
    QTemporaryDir work_;
    report::ReportData data_;
    QString sweepRun_;
    report::ReportData sweepData_;

private slots:
    void initTestCase() {
        const QString dir = work_.filePath("run");
        const CliResult r =
            runCli("commprof",
                   {"run", COMMPROF_SOURCE_DIR "/configs/experiments/smoke.yaml", "--out", dir});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        QVERIFY(addOomLeftovers(dir));
        store::ingest(dir, store::defaultDbPath(dir));
        store::Database db(store::defaultDbPath(dir));
        data_ = report::loadReportData(db, QDir(dir).canonicalPath());
        QCOMPARE(int(data_.cells.size()), 6); // 2 DDP cells, 3 sweeps, the planted one

        sweepRun_ = work_.filePath("sweep_run");
        const CliResult sweep =
            runCli("commprof", {"run", writeMatrix(work_, kSweepMatrix), "--out", sweepRun_});
        QVERIFY2(sweep.exitCode == 0, sweep.err.constData());
        QVERIFY(addFailedSweep(sweepRun_));
        store::ingest(sweepRun_, store::defaultDbPath(sweepRun_));
        store::Database sweepDb(store::defaultDbPath(sweepRun_));
        sweepData_ = report::loadReportData(sweepDb, QDir(sweepRun_).canonicalPath());
        QCOMPARE(int(sweepData_.cells.size()), 5);
    }

    // Issue 29: before any results are open, each figure says why it is empty, over no axes
    // (bare 0-5 axes were drawn); opened results draw their axes again.
    void figuresSayWhyTheyAreEmptyBeforeResults() {
        widgets::ResultsView view;
        view.resize(1400, 800);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        for (const QString& name : widgets::ResultsView::shownFigures()) {
            const QCustomPlot* plot = view.plot(name.toLatin1().constData());
            QVERIFY(plot);
            QStringList notes;
            for (int i = 0; i < plot->itemCount(); ++i) {
                if (const auto* t = qobject_cast<const QCPItemText*>(plot->item(i))) {
                    notes << t->text();
                }
            }
            QCOMPARE(notes, QStringList{"no data: no results folder is open (File > Open "
                                        "results, Ctrl+O)"});
            QVERIFY2(!plot->xAxis->visible() && !plot->yAxis->visible(), qPrintable(name));
        }
        view.setData(sweepData_);
        const QCustomPlot* sweep = view.plot("sweep_bandwidth");
        QVERIFY(sweep->xAxis->visible() && sweep->yAxis->visible());
        QVERIFY(!dataGraphs(*sweep).isEmpty());
    }

    // Every complete sweep series of two ranks is one line whose points are the sweep_rank
    // files' sizes and bus bandwidths, worked out here by hand; one rank's series are named in
    // the note, not drawn; the failed sweep is a flagged marker, never a line.
    void sweepFigureDrawsTheRankFilesNumbers() {
        widgets::ResultsView view;
        view.resize(1400, 800);
        view.setData(sweepData_);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        const QCustomPlot* plot = view.plot("sweep_bandwidth");
        const auto graphs = dataGraphs(*plot);
        const auto hand = handSweep(sweepRun_ + "/cells/sweep_gloo_cpu_ws2_r0");
        QCOMPARE(int(hand.size()), 3);
        QCOMPARE(graphs.keys(), (QStringList{"gloo_cpu ws2 all_gather", "gloo_cpu ws2 all_reduce",
                                             "gloo_cpu ws2 broadcast"}));
        for (const auto& [kind, points] : hand) {
            const QCPGraph* g = graphs.value("gloo_cpu ws2 " + kind);
            QVERIFY2(g, qPrintable(kind));
            QCOMPARE(g->property("cellId").toString(), QString("sweep_gloo_cpu_ws2_r0"));
            QCOMPARE(g->dataCount(), int(points.size()));
            QCOMPARE(points.front().bytes, 8.0);
            QCOMPARE(points.back().bytes, 65536.0);
            for (int i = 0; i < g->dataCount(); ++i) {
                const HandPoint& p = points[std::size_t(i)];
                QCOMPARE(g->data()->at(i)->key, p.bytes);
                const double busbw = gbps(p.bytes, p.fastestUs) * busFactorAtTwo(kind);
                QVERIFY2(near(g->data()->at(i)->value, busbw),
                         qPrintable(QString("%1 %2 B: %3 vs %4")
                                        .arg(kind)
                                        .arg(p.bytes)
                                        .arg(g->data()->at(i)->value)
                                        .arg(busbw)));
            }
        }
        QCOMPARE(plot->xAxis->scaleType(), QCPAxis::stLogarithmic);
        QCOMPARE(plot->yAxis->scaleType(), QCPAxis::stLogarithmic);
        // The ticks carry the unit (1 KiB, 1 MiB): the label names the quantity alone.
        QCOMPARE(plot->xAxis->label(), QString("message size"));
        QVERIFY(plot->yAxis->label().contains("GB/s"));
        // One rank moves no data: said in the note under the axes.
        bool noted = false;
        for (int i = 0; i < plot->plotLayout()->elementCount(); ++i) {
            const auto* t = qobject_cast<QCPTextElement*>(plot->plotLayout()->elementAt(i));
            noted = noted || (t && t->objectName() == "note" && t->text().contains("gloo_cpu ws1"));
        }
        QVERIFY(noted);
        // The failed sweep: flagged, with no line.
        QCOMPARE(flaggedIds(*plot), QStringList{"sweep_gloo_cpu_ws3_r0"});
        for (const QCPGraph* g : graphs) {
            QVERIFY(g->property("cellId").toString() != "sweep_gloo_cpu_ws3_r0");
        }
        const int row = view.model()->rowOf("sweep_gloo_cpu_ws3_r0");
        const auto* m = view.model();
        QCOMPARE(m->data(m->index(row, 0), models::ResultsCellModel::FlaggedRole).toBool(), true);
        QCOMPARE(m->data(m->index(row, models::ResultsCellModel::Status)).toString(),
                 QString("⚑ failed"));
        QCOMPARE(m->data(m->index(row, models::ResultsCellModel::Kind)).toString(),
                 QString("sweep"));
        QVERIFY(m->data(m->index(row, models::ResultsCellModel::Reasons))
                    .toString()
                    .contains("rank 1 exited 134"));
        // A complete sweep's row says what it measured where a DDP cell has its step figures.
        const int ws2 = view.model()->rowOf("sweep_gloo_cpu_ws2_r0");
        QCOMPARE(m->data(m->index(ws2, models::ResultsCellModel::StepMs)).toString(), QString("-"));
        QVERIFY(m->data(m->index(ws2, models::ResultsCellModel::Reasons))
                    .toString()
                    .startsWith("sweep of "));
    }

    // Issue 52: the numbers per cap list the groups that carry advice (more than one rank)
    // before world size 1's "not predicted" row, which a 276-cell study put first for each model.
    // The smoke run's world sizes 1 and 2, recommended for as `commprof recommend` does it.
    void numbersPerCapPutAdviceFirst() {
        const QString dir = work_.filePath("run");
        store::Database db(store::defaultDbPath(dir));
        report::ReportData data = data_;
        data.tuning = analysis::recommend(store::studyCells(db, QDir(dir).canonicalPath()));
        widgets::ResultsView view;
        view.setData(data);
        const auto* table = view.findChild<QTableView*>("tuningTable");
        QVERIFY(table);
        const QAbstractItemModel* shown = table->model();
        QStringList worldSizes; // of each row, as shown
        for (int row = 0; row < shown->rowCount(); ++row) {
            const QString group =
                shown->data(shown->index(row, models::CapTableModel::Group)).toString();
            const QString note =
                shown->data(shown->index(row, models::CapTableModel::Note)).toString();
            worldSizes << (group.contains("world size 1,") ? "1" : "2");
            QCOMPARE(note.startsWith("not predicted"), worldSizes.back() == "1");
        }
        QVERIFY2(worldSizes.size() > 2 && worldSizes.front() == "2" &&
                     worldSizes.indexOf("1") == worldSizes.size() - 1,
                 qPrintable(worldSizes.join(' ')));
        // `recommend` prints its groups in the same order.
        const CliResult text = runCli("commprof", {"recommend", dir});
        const QString out = QString::fromUtf8(text.out);
        const qsizetype two = out.indexOf("mlp2m on gloo_cpu, world size 2");
        const qsizetype one = out.indexOf("mlp2m on gloo_cpu, world size 1");
        QVERIFY2(two >= 0 && one > two, qPrintable(out));
    }

    // The DDP figures and aggregates leave every sweep cell out, the failed one included.
    void sweepCellsStayOutOfTheDdpFigures() {
        QStringList ddp;
        for (const auto& c : sweepData_.cells) {
            if (c.model == "tiny") {
                ddp << c.id;
            }
        }
        QCOMPARE(ddp.size(), 2);
        QStringList onAxis;
        for (const store::CellRow* c : widgets::axisCells(sweepData_)) {
            onAxis << c->id;
        }
        QCOMPARE(onAxis, ddp);
        widgets::ResultsView view;
        view.setData(sweepData_);
        for (const char* fig : {"overhead_vs_world_size", "time_breakdown"}) {
            QVERIFY2(flaggedIds(*view.plot(fig)).isEmpty(), fig);
        }
        QCustomPlot* overhead = view.plot("overhead_vs_world_size");
        for (int i = 0; i < overhead->graphCount(); ++i) {
            for (auto it = overhead->graph(i)->data()->begin();
                 it != overhead->graph(i)->data()->end(); ++it) {
                QVERIFY(it->key == 1 || it->key == 2); // no point at the failed sweep's 3 ranks
            }
        }
        QCOMPARE(QStringList(sweepData_.bucketPools.keys()), QStringList{"gloo_cpu"});
        std::size_t buckets = 0; // of the cells of more than one rank: one rank sends nothing
        for (const QString& id : ddp) {
            buckets += widgets::findCell(sweepData_, id)->worldSize > 1
                           ? sweepData_.bucketsByCell.value(id).size()
                           : 0;
        }
        QCOMPARE(sweepData_.bucketPools["gloo_cpu"].samples.size(), buckets);
        QVERIFY(!sweepData_.bucketsByCell.contains("sweep_gloo_cpu_ws2_r0"));
    }

    // Selecting a sweep cell brings its page forward and marks its lines; a click on one of its
    // points (placed from the hand-computed bandwidth) selects it; hovering names the point.
    void sweepSelectionAndHover() {
        widgets::ResultsView view;
        view.resize(1400, 800);
        view.setData(sweepData_);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        view.selectCell("tiny_gloo_cpu_ws2_r0");
        QVERIFY(view.showsFigure("overhead_vs_world_size"));
        view.selectCell("sweep_gloo_cpu_ws2_r0");
        QVERIFY(view.showsFigure("sweep_bandwidth"));
        QCustomPlot* plot = view.plot("sweep_bandwidth");
        QVERIFY(hasSelectionMark(plot));
        QTest::qWait(50); // the page's first layout at its size
        plot->replot(QCustomPlot::rpImmediateRefresh);

        view.selectCell("tiny_gloo_cpu_ws1_r0");
        view.selectCell("sweep_gloo_cpu_ws3_r0"); // flagged: outlined where it is marked
        QCOMPARE(view.selectedCell(), QString("sweep_gloo_cpu_ws3_r0"));
        QVERIFY(view.showsFigure("sweep_bandwidth"));

        const HandPoint p = handSweep(sweepRun_ + "/cells/sweep_gloo_cpu_ws2_r0")["all_reduce"][10];
        const double busbw = gbps(p.bytes, p.fastestUs);
        const QPoint at(int(plot->xAxis->coordToPixel(p.bytes)),
                        int(plot->yAxis->coordToPixel(busbw)));
        QTest::mouseClick(plot, Qt::LeftButton, {}, at);
        QCOMPARE(view.selectedCell(), QString("sweep_gloo_cpu_ws2_r0"));
        const QString tip = view.toolTipAt("sweep_bandwidth", at);
        QVERIFY2(tip.startsWith("sweep_gloo_cpu_ws2_r0\n"), qPrintable(tip));
        // The nearest point may be another kind's at the same size; the size and the numbers
        // shown are that point's.
        QVERIFY2(tip.contains(QString("(%1 B)").arg(p.bytes, 0, 'f', 0)), qPrintable(tip));
        if (tip.contains("all_reduce at")) {
            QVERIFY2(tip.contains(QString("busbw %1 GB/s").arg(busbw, 0, 'g', 4)), qPrintable(tip));
            QVERIFY2(tip.contains(QString("time %1 us").arg(p.fastestUs, 0, 'f', 1)),
                     qPrintable(tip));
        }
        QVERIFY(view.toolTipAt("sweep_bandwidth", QPointF(3, 3)).isEmpty());
    }

    // sweep.csv holds every point of every complete sweep (the rank files' numbers by hand);
    // cells.csv has the kind and each DDP cell's prediction (cells --json's), never NaN; the
    // macros carry each not-refused all_reduce fit (cells --json's) and the headline's off-by.
    void reportExportsTheSweep() {
        const QString out = work_.filePath("sweep_report");
        const CliResult r = runCli("commprof", {"report", sweepRun_, "--out", out});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        QVERIFY(QFile::exists(out + "/sweep_bandwidth.pdf"));
        QVERIFY(QFile::exists(out + "/sweep_bandwidth.png"));
        const QList<QStringList> sweep = csvRows(out + "/sweep.csv");
        QCOMPARE(
            sweep.front().join(','),
            QString("cell,layer,world_size,kind,bytes,time_us,typical_us,algbw_GBps,busbw_GBps"));
        int expected = 0;
        for (const int ws : {1, 2}) {
            const QString id = QString("sweep_gloo_cpu_ws%1_r0").arg(ws);
            for (const auto& [kind, points] : handSweep(sweepRun_ + "/cells/" + id)) {
                for (const HandPoint& p : points) {
                    ++expected;
                    const auto row = std::find_if(sweep.begin(), sweep.end(), [&](const auto& c) {
                        return c[0] == id && c[3] == kind && c[4].toDouble() == p.bytes;
                    });
                    QVERIFY2(row != sweep.end(), qPrintable(id + " " + kind));
                    const double factor =
                        ws == 1 ? (kind == "broadcast" ? 1.0 : 0.0) : busFactorAtTwo(kind);
                    QCOMPARE((*row)[1], QString("gloo_cpu"));
                    QCOMPARE((*row)[2].toInt(), ws);
                    QVERIFY(near((*row)[5].toDouble(), p.fastestUs));
                    QVERIFY(near((*row)[6].toDouble(), p.typicalUs));
                    QVERIFY(near((*row)[7].toDouble(), gbps(p.bytes, p.fastestUs)));
                    QVERIFY2(near((*row)[8].toDouble(), gbps(p.bytes, p.fastestUs) * factor) ||
                                 (factor == 0 && (*row)[8].toDouble() == 0),
                             qPrintable((*row).join(',')));
                }
            }
        }
        QCOMPARE(int(sweep.size()) - 1, expected); // the failed sweep's points are not exported

        const QJsonArray cells =
            runCli("commprof", {"cells", sweepRun_, "--json"}).json()["cells"].toArray();
        QMap<QString, QJsonObject> byId;
        for (const QJsonValue c : cells) {
            byId[c.toObject()["id"].toString()] = c.toObject();
        }
        QVERIFY(!readText(out + "/cells.csv").contains("nan", Qt::CaseInsensitive));
        QVERIFY(!readText(out + "/sweep.csv").contains("nan", Qt::CaseInsensitive));
        const QList<QStringList> table = csvRows(out + "/cells.csv");
        const QStringList header = table.front();
        const auto col = [&](const QString& name) { return int(header.indexOf(name)); };
        QVERIFY(col("kind") >= 0 && col("prediction_off_by") >= 0);
        for (const QStringList& row : table.mid(1)) {
            const QJsonObject c = byId.value(row[0]);
            QCOMPARE(row[col("kind")], c["kind"].toString());
            const QJsonObject pred = c["prediction"].toObject();
            if (c["kind"].toString() == "sweep" || pred.isEmpty()) {
                QVERIFY2(row[col("predicted_allreduce_ms")].isEmpty(), qPrintable(row[0]));
                QVERIFY(row[col("prediction_off_by")].isEmpty());
                continue;
            }
            QVERIFY(near(row[col("predicted_allreduce_ms")].toDouble(),
                         pred["predicted_ms_per_step"].toDouble(), 1e-5));
            QVERIFY(near(row[col("measured_allreduce_ms")].toDouble(),
                         pred["measured_ms_per_step"].toDouble(), 1e-5));
            QVERIFY(
                near(row[col("prediction_off_by")].toDouble(), pred["off_by"].toDouble(), 1e-5));
        }

        const QString tex = readText(out + "/macros.tex");
        QVERIFY(!tex.isEmpty());
        for (const QJsonValue s : byId["sweep_gloo_cpu_ws2_r0"]["sweep"].toArray()) {
            const QJsonObject fit = s.toObject()["fit"].toObject();
            if (s.toObject()["kind"].toString() != "all_reduce") {
                continue;
            }
            const QString alpha = "\\newcommand{\\commprofGlooCpuWsTwoAllReduceAlphaUs}";
            QCOMPARE(tex.contains(alpha), !fit["refused"].toBool());
            if (!fit["refused"].toBool()) {
                QVERIFY2(tex.contains(alpha + "{" +
                                      QString::number(fit["alpha_us"].toDouble(), 'f', 1) + "}"),
                         qPrintable(tex));
                QVERIFY(tex.contains("\\newcommand{\\commprofGlooCpuWsTwoAllReduceBandwidthGBs}{" +
                                     QString::number(fit["asymptotic_GBps"].toDouble(), 'f', 2) +
                                     "}"));
                QVERIFY(tex.contains("\\newcommand{\\commprofGlooCpuWsTwoAllReduceFitRsquared}{" +
                                     QString::number(fit["r_squared"].toDouble(), 'f', 3) + "}"));
            }
        }
        // The headline is the largest complete DDP cell: tiny at two ranks.
        const QJsonObject headline = byId["tiny_gloo_cpu_ws2_r0"]["prediction"].toObject();
        QVERIFY(!headline.isEmpty());
        QVERIFY2(tex.contains("\\newcommand{\\commprofHeadlinePredictionOffBy}{" +
                              QString::number(headline["off_by"].toDouble() * 100, 'f', 1) +
                              "\\%}"),
                 qPrintable(tex));
        QVERIFY(tex.contains("\\newcommand{\\commprofNotCompleteSweepCells}{1}"));
        QVERIFY(tex.contains("\\newcommand{\\commprofCompleteCells}{2}"));
        // Command names are letters only.
        const QRegularExpression name(R"(\\newcommand\{\\([^}]*)\})");
        for (auto it = name.globalMatch(tex); it.hasNext();) {
            const QString n = it.next().captured(1);
            QVERIFY2(QRegularExpression("^[A-Za-z]+$").match(n).hasMatch(), qPrintable(n));
        }
    }

    // A sweep whose all_reduce has two sizes cannot be fitted: ingest refuses it, and the
    // report never exports it, saying why in a comment.
    void aRefusedSweepFitIsNeverExported() {
        const QString run = work_.filePath("refused_run");
        QVERIFY(copyDir(sweepRun_, run));
        QFile::remove(store::defaultDbPath(run));
        const QString cell = run + "/cells/sweep_gloo_cpu_ws2_r0";
        for (const QString& f : QDir(cell).entryList({"sweep_rank*.json"})) {
            QJsonObject doc = readJsonFile(cell + "/" + f);
            QJsonArray kinds = doc["kinds"].toArray();
            for (int i = 0; i < kinds.size(); ++i) {
                QJsonObject k = kinds[i].toObject();
                if (k["kind"].toString() == "all_reduce") {
                    k["sizes"] = QJsonArray{k["sizes"].toArray()[0], k["sizes"].toArray()[1]};
                    kinds[i] = k;
                }
            }
            doc["kinds"] = kinds;
            QVERIFY(writeJsonFile(cell + "/" + f, doc));
        }
        const QString out = work_.filePath("refused_report");
        const CliResult r = runCli("commprof", {"report", run, "--out", out});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        const QString tex = readText(out + "/macros.tex");
        QVERIFY2(!tex.contains("GlooCpuWsTwoAllReduce"), qPrintable(tex));
        QVERIFY2(tex.contains("% gloo_cpu ws2 all_reduce (cell sweep_gloo_cpu_ws2_r0): sweep fit "
                              "refused: "),
                 qPrintable(tex));
        // The other sweep's fit is still there, where it was not refused.
        const QJsonArray cells =
            runCli("commprof", {"cells", run, "--json"}).json()["cells"].toArray();
        for (const QJsonValue c : cells) {
            if (c.toObject()["id"].toString() != "sweep_gloo_cpu_ws1_r0") {
                continue;
            }
            for (const QJsonValue s : c.toObject()["sweep"].toArray()) {
                if (s.toObject()["kind"].toString() == "all_reduce") {
                    QCOMPARE(tex.contains("GlooCpuWsOneAllReduceAlphaUs"),
                             !s.toObject()["fit"].toObject()["refused"].toBool());
                }
            }
        }
    }

    // Results without a sweep cell: no sweep page, and the figure (as exported) says so.
    void noSweepCellsSaysSo() {
        report::ReportData ddpOnly = data_; // the smoke run without its sweep cells
        ddpOnly.cells.erase(std::remove_if(ddpOnly.cells.begin(), ddpOnly.cells.end(),
                                           [](const store::CellRow& c) { return c.isSweep(); }),
                            ddpOnly.cells.end());
        ddpOnly.sweepsByCell.clear();
        widgets::ResultsView view;
        view.setData(ddpOnly);
        QVERIFY(!view.showsFigure("sweep_bandwidth"));
        QVERIFY(view.showsFigure("overhead_vs_world_size"));
        QCustomPlot plot;
        widgets::setFigureSize(plot, {600, 400});
        widgets::figureNamed("sweep_bandwidth")->draw(plot, ddpOnly, {});
        bool said = false;
        for (int i = 0; i < plot.itemCount(); ++i) {
            const auto* t = qobject_cast<QCPItemText*>(plot.item(i));
            said = said || (t && t->text().startsWith("No sweep cells"));
        }
        QVERIFY(said);
        QCOMPARE(plot.graphCount(), 0);
    }

    void selectionLinksAcrossPlotsAndTable() {
        widgets::ResultsView view;
        QAbstractItemModelTester tester(view.model(),
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        view.resize(1400, 800);
        view.setData(data_);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        QSignalSpy selected(&view, &widgets::ResultsView::cellSelected);

        view.selectCell("mlp2m_gloo_cpu_ws1_r0");
        QCOMPARE(view.selectedCell(), QString("mlp2m_gloo_cpu_ws1_r0"));
        for (const char* fig : {"overhead_vs_world_size", "time_breakdown"}) {
            QVERIFY2(hasSelectionMark(view.plot(fig)), fig);
        }
        // One rank sends nothing: its buckets are not in the bucket figure, nor marked there.
        QVERIFY(!hasSelectionMark(view.plot("bucket_time_vs_bytes")));
        view.selectCell("mlp2m_gloo_cpu_ws2_r0");
        QVERIFY(hasSelectionMark(view.plot("bucket_time_vs_bytes")));
        view.selectCell("mlp2m_gloo_cpu_ws1_r0");

        // A click on the ws2 point of the overhead plot selects that cell everywhere.
        QCustomPlot* overhead = view.plot("overhead_vs_world_size");
        const store::CellRow* ws2 = nullptr;
        for (const auto& c : data_.cells) {
            if (c.id == "mlp2m_gloo_cpu_ws2_r0") {
                ws2 = &c;
            }
        }
        QVERIFY(ws2 && ws2->commOverheadFraction);
        const QPoint at(int(overhead->xAxis->coordToPixel(2)),
                        int(overhead->yAxis->coordToPixel(*ws2->commOverheadFraction * 100.0)));
        QTest::mouseClick(overhead, Qt::LeftButton, {}, at);
        QCOMPARE(view.selectedCell(), QString("mlp2m_gloo_cpu_ws2_r0"));
        QCOMPARE(selected.last().at(0).toString(), QString("mlp2m_gloo_cpu_ws2_r0"));

        // A click on the first bar of the breakdown selects the first cell on its axis.
        QCustomPlot* breakdown = view.plot("time_breakdown");
        QTest::mouseClick(
            breakdown, Qt::LeftButton, {},
            QPoint(int(breakdown->xAxis->coordToPixel(1)), int(breakdown->yAxis->coordToPixel(1))));
        QCOMPARE(view.selectedCell(), widgets::axisCells(data_).front()->id);
    }

    void incompleteCellIsFlaggedNotData() {
        widgets::ResultsView view;
        view.setData(data_);
        const int row = view.model()->rowOf("mlp2m_gloo_cpu_ws8_r0");
        QVERIFY(row >= 0);
        const auto* m = view.model();
        QCOMPARE(m->data(m->index(row, 0), models::ResultsCellModel::FlaggedRole).toBool(), true);
        QVERIFY(m->data(m->index(row, models::ResultsCellModel::Status))
                    .toString()
                    .contains("incomplete"));
        QVERIFY(m->data(m->index(row, 0), Qt::ToolTipRole)
                    .toString()
                    .contains("3 rank files, world_size 8"));
        QCOMPARE(m->data(m->index(row, models::ResultsCellModel::StepMs)).toString(), QString("-"));
        // In the plot: a flagged marker at world size 8, not a point of a series.
        QCustomPlot* overhead = view.plot("overhead_vs_world_size");
        bool flagged = false;
        for (int i = 0; i < overhead->itemCount(); ++i) {
            const auto* t = qobject_cast<QCPItemText*>(overhead->item(i));
            if (t && t->objectName() == "flagged") {
                flagged = t->property("cellId").toString() == "mlp2m_gloo_cpu_ws8_r0" &&
                          t->position->key() == 8;
            }
        }
        for (int i = 0; i < overhead->graphCount(); ++i) {
            const QCPGraph* g = overhead->graph(i);
            for (auto it = g->data()->begin(); it != g->data()->end(); ++it) {
                QVERIFY(it->key != 8);
            }
        }
        QVERIFY(flagged);
        // Left out of the fitted line's samples.
        QVERIFY(!data_.bucketsByCell.contains("mlp2m_gloo_cpu_ws8_r0"));
        std::size_t complete = 0;
        for (const auto& c : data_.cells) {
            complete +=
                c.complete() && c.worldSize > 1 ? data_.bucketsByCell.value(c.id).size() : 0;
        }
        QCOMPARE(data_.bucketPools["gloo_cpu"].samples.size(), complete);
    }

    void tableSaysWhichRatiosAreNotJudged() {
        models::ResultsCellModel model;
        model.setCells(data_.cells);
        const auto agreement = [&](const QString& id, int role) {
            return model.index(model.rowOf(id), models::ResultsCellModel::Agreement).data(role);
        };
        // World size 1 moves nothing: its ratio is shown with the reason it was not judged.
        QVERIFY2(
            agreement("mlp2m_gloo_cpu_ws1_r0", Qt::DisplayRole).toString().endsWith("(not judged)"),
            qPrintable(agreement("mlp2m_gloo_cpu_ws1_r0", Qt::DisplayRole).toString()));
        QVERIFY(agreement("mlp2m_gloo_cpu_ws1_r0", Qt::ToolTipRole)
                    .toString()
                    .contains("world size 1"));
        // A judged cell's ratio stands alone, to the store's three decimals.
        const store::CellRow* ws2 = widgets::findCell(data_, "mlp2m_gloo_cpu_ws2_r0");
        const QString shown = agreement("mlp2m_gloo_cpu_ws2_r0", Qt::DisplayRole).toString();
        QCOMPARE(shown, ws2->agreementFlagged
                            ? "⚑ " + QString::number(*ws2->hookTraceAgreement, 'f', 3)
                            : QString::number(*ws2->hookTraceAgreement, 'f', 3));
    }

    void inspectorShowsTheCellsTwoInstruments() {
        widgets::CellInspectorPanel panel;
        panel.showCell(data_, "mlp2m_gloo_cpu_ws2_r0");
        const models::CellFiguresModel* f = panel.figures();
        const int ratioRow = f->rowOf("backend / hook, same steps");
        QVERIFY(ratioRow >= 0);
        const double ratio = f->data(f->index(ratioRow, 1)).toString().toDouble();
        const store::CellRow* cell = widgets::findCell(data_, "mlp2m_gloo_cpu_ws2_r0");
        QVERIFY(std::abs(ratio - *cell->hookTraceAgreement) < 5e-4);
        // The ratio is the quotient of the two figures shown above it (as displayed, to their
        // two decimals), so the three cannot contradict each other.
        const auto msOf = [&](const char* figure) {
            const int row = f->rowOf(figure);
            return row < 0 ? -1.0
                           : f->data(f->index(row, 1)).toString().section(' ', 0, 0).toDouble();
        };
        const double hook = msOf("hook, per compared step");
        const double backend = msOf("backend, per compared step");
        QVERIFY(hook > 0 && backend > 0);
        QVERIFY2(std::abs(backend / hook - ratio) < 0.01 * ratio + 0.01 / hook,
                 qPrintable(QString("%1 / %2 vs %3").arg(backend).arg(hook).arg(ratio)));
        // The verdict follows the number beside it (by hand: within 10 % of 1 or not).
        const QString verdict = f->data(f->index(ratioRow, 2)).toString();
        QCOMPARE(verdict.startsWith("agree within"), std::abs(ratio - 1.0) <= 0.10);
        // Every rank has its own row.
        for (int r = 0; r < cell->worldSize; ++r) {
            QVERIFY2(f->rowOf(QString("rank %1").arg(r)) >= 0, qPrintable(QString::number(r)));
        }
        QCOMPARE(panel.plot()->graph(0)->dataCount(),
                 int(data_.bucketsByCell.value("mlp2m_gloo_cpu_ws2_r0").size()));
        // What was trained and how it was bucketed: all of the MLP's fp32 parameters, by hand
        // from the parameter count the store holds, in one first bucket and in the rebuilt ones.
        const QString total = QString::number(cell->params * 4 / 1048576.0, 'f', 1) + " MiB";
        QTRY_VERIFY_WITH_TIMEOUT(!panel.findChild<QLabel*>("model")->text().isEmpty(),
                                 10000); // read off the GUI thread
        const QString model = panel.findChild<QLabel*>("model")->text();
        QVERIFY2(model.contains("first 1 bucket of " + total), qPrintable(model));
        QVERIFY2(model.contains("rebuilt 1 bucket of " + total) ||
                     model.contains("(" + total + " in all)"),
                 qPrintable(model));
        panel.showCell(data_, "mlp2m_gloo_cpu_ws8_r0");
        QCOMPARE(f->data(f->index(0, 1)).toString(), QString("incomplete"));
        QVERIFY(f->data(f->index(0, 2)).toString().contains("3 rank files, world_size 8"));
        QCOMPARE(f->rowOf("backend / hook, same steps"),
                 -1); // an incomplete cell's figures are not shown
        QCOMPARE(panel.plot()->graphCount(), 0);
    }

    // The DDP cell's all-reduce against its sweep, and a sweep cell's fits, as cells --json
    // prints them (an independent reader of the same store); a sweep cell's empty bucket plot
    // says why.
    void inspectorShowsThePredictionAndTheSweep() {
        const CliResult r = runCli("commprof", {"cells", work_.filePath("run"), "--json"});
        QJsonObject ws2, sweep2;
        for (const QJsonValue v : r.json()["cells"].toArray()) {
            if (v.toObject()["id"].toString() == "mlp2m_gloo_cpu_ws2_r0") {
                ws2 = v.toObject();
            } else if (v.toObject()["id"].toString() == "sweep_gloo_cpu_ws2_r0") {
                sweep2 = v.toObject();
            }
        }
        QVERIFY2(ws2["prediction"].isObject(), r.out.constData());
        widgets::CellInspectorPanel panel;
        panel.showCell(data_, "mlp2m_gloo_cpu_ws2_r0");
        const models::CellFiguresModel* f = panel.figures();
        const auto value = [&](const char* figure) {
            const int row = f->rowOf(figure);
            return row < 0 ? QString() : f->data(f->index(row, 1)).toString();
        };
        const QJsonObject p = ws2["prediction"].toObject();
        QCOMPARE(value("all-reduce predicted"),
                 QString::number(p["predicted_ms_per_step"].toDouble(), 'f', 2) + " ms");
        QCOMPARE(value("all-reduce measured"),
                 QString::number(p["measured_ms_per_step"].toDouble(), 'f', 2) + " ms");
        QCOMPARE(value("prediction off by"),
                 QString("%1 %").arg(p["off_by"].toDouble() * 100.0, 0, 'f', 1));
        panel.showCell(data_, "sweep_gloo_cpu_ws2_r0");
        for (const QJsonValue v : sweep2["sweep"].toArray()) {
            const QJsonObject s = v.toObject();
            const QString kind = s["kind"].toString();
            if (s.contains("unsupported")) {
                QCOMPARE(value(qPrintable(kind)), QString("not measured"));
                continue;
            }
            const QJsonObject fit = s["fit"].toObject();
            QCOMPARE(value(qPrintable(kind + " fit")),
                     fit["refused"].toBool()
                         ? QString("refused")
                         : QString("%1 us + bytes / %2 GB/s")
                               .arg(fit["alpha_us"].toDouble(), 0, 'f', 1)
                               .arg(fit["asymptotic_GBps"].toDouble(), 0, 'f', 2));
        }
        QCOMPARE(panel.plot()->graphCount(), 0);
        QVERIFY(panel.plot()->itemCount() == 1);
        QVERIFY(qobject_cast<QCPItemText*>(panel.plot()->item(0))->text().contains("sweep"));
    }

    void verdictWordsFollowTheRatio() {
        QCOMPARE(models::agreementVerdict(1.05, 0.10), QString("agree within ±10 %"));
        QCOMPARE(models::agreementVerdict(0.9, 0.10), QString("agree within ±10 %"));
        QCOMPARE(models::agreementVerdict(1.23, 0.10),
                 QString("backend 23.0 % above hook (beyond ±10 %)"));
        QCOMPARE(models::agreementVerdict(0.5, 0.10),
                 QString("backend 50.0 % below hook (beyond ±10 %)"));
    }

    void tableSortsNumbersAsNumbersAndFilters() {
        widgets::ResultsView view;
        view.setData(data_);
        QSortFilterProxyModel* sorted = view.sortedModel();
        view.table()->sortByColumn(models::ResultsCellModel::WorldSize, Qt::DescendingOrder);
        // The planted world size 8, the sweeps at 3, 2 and 1, the DDP cells at 2 and 1.
        QList<int> order;
        for (int row = 0; row < sorted->rowCount(); ++row) {
            order << sorted->data(sorted->index(row, models::ResultsCellModel::WorldSize)).toInt();
        }
        QCOMPARE(order, QList<int>({8, 3, 2, 2, 1, 1}));
        view.filter()->setText("incomplete");
        QCOMPARE(sorted->rowCount(), 1);
        // Selecting a cell the filter hides shows it rather than selecting nothing.
        view.selectCell("mlp2m_gloo_cpu_ws1_r0");
        QCOMPARE(view.selectedCell(), QString("mlp2m_gloo_cpu_ws1_r0"));
        QCOMPARE(sorted->rowCount(), 6);
    }
};

QTEST_MAIN(TstGuiResults)
#include "tst_gui_results.moc"
