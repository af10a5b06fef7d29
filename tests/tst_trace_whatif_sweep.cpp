// SPDX-License-Identifier: GPL-3.0-or-later
// trace whatif --sweep RUN on a real run: a 2M-parameter MLP at bucket cap 25 MiB (two buckets:
// two sizes, which cannot pin a latency down) and an all_reduce sweep, both on gloo_cpu at world
// sizes 2 and 3, made by commprof-rank. The what-if of each DDP cell takes the line of the
// sweep cell of its own world size; its latency over its per-byte cost is the sweep's own line,
// fitted again here by hand from the points `sweep summarize` prints. A sweep of another world
// size, layer or link, an incomplete one and a folder with none are refused naming the file
// and the field.

#include "ddp_fixtures.h"
#include "study_helpers.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QTemporaryDir>
#include <QTest>

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>

namespace {

const QString kCell2 = "mlp2m_gloo_cpu_ws2_r0", kCell3 = "mlp2m_gloo_cpu_ws3_r0";
const QString kSweep2 = "sweep_gloo_cpu_ws2_r0", kSweep3 = "sweep_gloo_cpu_ws3_r0";

// The sweep's line by hand: least squares of time against bytes over the sizes the fit kept,
// each weighted by 1 / time (docs/measurement.md); and the median of |time - line| / time.
struct HandLine {
    double alphaUs = 0, betaUsPerByte = 0, spread = 0;
};

HandLine handLine(const QJsonObject& series) {
    const QJsonObject fit = series["fit"].toObject();
    const double from = fit["from_bytes"].toDouble(), to = fit["to_bytes"].toDouble();
    const double cut = fit.contains("left_out_from_bytes")
                           ? fit["left_out_from_bytes"].toDouble()
                           : std::numeric_limits<double>::infinity();
    std::vector<std::pair<double, double>> xy;
    for (const QJsonValue& v : series["points"].toArray()) {
        const double x = v["bytes"].toDouble(), y = v["slowest_us"].toDouble();
        if (x >= from && x <= to && x < cut && y > 0) {
            xy.push_back({x, y});
        }
    }
    double sw = 0, sx = 0, sy = 0, sxx = 0, sxy = 0;
    for (const auto& [x, y] : xy) {
        const double w = 1 / y;
        sw += w;
        sx += w * x;
        sy += w * y;
        sxx += w * x * x;
        sxy += w * x * y;
    }
    HandLine h;
    h.betaUsPerByte = (sw * sxy - sx * sy) / (sw * sxx - sx * sx);
    h.alphaUs = (sy - h.betaUsPerByte * sx) / sw;
    std::vector<double> off;
    for (const auto& [x, y] : xy) {
        off.push_back(std::fabs(y - h.alphaUs - h.betaUsPerByte * x) / y);
    }
    std::sort(off.begin(), off.end());
    const std::size_t n = off.size();
    h.spread = n % 2 ? off[n / 2] : (off[n / 2 - 1] + off[n / 2]) / 2;
    return h;
}

} // namespace

class TstTraceWhatIfSweep : public QObject {
    Q_OBJECT
    QTemporaryDir work_;
    QString results_;

    QString cell(const QString& id) const { return results_ + "/cells/" + id; }

    // A copy of a sweep cell in its own results folder, `edit` applied to its files there.
    QString copiedSweep(const QString& name, const std::function<void(const QString&)>& edit) {
        const QString dir = work_.filePath(name + "/cells/" + kSweep2);
        QDir().mkpath(dir);
        for (const QString& f : QDir(cell(kSweep2)).entryList(QDir::Files)) {
            QFile::copy(cell(kSweep2) + "/" + f, dir + "/" + f);
        }
        edit(dir);
        return work_.filePath(name);
    }

private slots:
    void initTestCase() {
        QVERIFY(work_.isValid());
        const QString defaults = R"(  iterations: 8
  warmup: 2
  batch_size: 8
  bucket_cap_mb: 25
  first_bucket_mb: 1
  trace: {enabled: true, first_step: 4, steps: 3}
  timeout_s: 240
)";
        results_ = work_.filePath("results");
        const CliResult run =
            runStudy(work_,
                     sweptStudy("whatif_sweep", defaults,
                                "{name: mlp2m, family: mlp, params: 2.0e6}", 16777216, "[2, 3]"),
                     results_, 480000);
        QVERIFY2(run.exitCode == 0, run.err.constData());
    }

    // Each DDP cell's cost is the line of the sweep cell of its world size (the folder holds
    // both), scaled to the trace's collectives: its latency over its per-byte cost is the
    // line's, its latency the only one left open, its error at least the line's own spread.
    void sweepOfTheJobsWorldSizePricesIt_data() {
        QTest::addColumn<QString>("ddp");
        QTest::addColumn<QString>("sweep");
        QTest::newRow("ws2") << kCell2 << kSweep2;
        QTest::newRow("ws3") << kCell3 << kSweep3;
    }
    void sweepOfTheJobsWorldSizePricesIt() {
        QFETCH(QString, ddp);
        QFETCH(QString, sweep);
        const CliResult s = runCli("commprof", {"sweep", "summarize", cell(sweep), "--json"});
        QVERIFY2(s.exitCode == 0, s.err.constData());
        QJsonObject series;
        for (const QJsonValue& v : s.json()["series"].toArray()) {
            if (v["kind"].toString() == "all_reduce") {
                series = v.toObject();
            }
        }
        QVERIFY2(!series.isEmpty() && !series["fit"].toObject()["refused"].toBool(),
                 s.out.constData());
        const HandLine line = handLine(series);
        QVERIFY(line.alphaUs > 0 && line.betaUsPerByte > 0);

        const CliResult r =
            runCli("commprof", {"trace", "whatif", cell(ddp), "--sweep", results_, "--json"});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        const QJsonObject inputs = r.json()["inputs"].toObject();
        const QJsonObject cost = r.json()["cost"].toObject();
        QCOMPARE(inputs["collective_cost"].toString(), QString("sweep"));
        QCOMPARE(QDir(inputs["sweep_cell"].toString()).dirName(), sweep);
        QVERIFY2(cost["method"].toString().contains(sweep), qPrintable(cost["method"].toString()));
        const double ratio = cost["alpha_us"].toDouble() / cost["beta_us_per_byte"].toDouble();
        QVERIFY2(
            std::fabs(ratio / (line.alphaUs / line.betaUsPerByte) - 1) < 1e-6,
            qPrintable(QString("%1 against %2").arg(ratio).arg(line.alphaUs / line.betaUsPerByte)));
        QCOMPARE(cost["latency_low_us"].toDouble(), cost["alpha_us"].toDouble());
        QCOMPARE(cost["latency_high_us"].toDouble(), cost["alpha_us"].toDouble());
        QVERIFY(cost["relative_error"].toDouble() >= line.spread * (1 - 1e-9));
        const double step = r.json()["recorded"].toObject()["replayed_step_ms"].toDouble();
        QVERIFY(std::isfinite(step) && step > 0);

        // Without --sweep the same trace prices its collectives itself, with no such line.
        const CliResult plain = runCli("commprof", {"trace", "whatif", cell(ddp), "--json"});
        QVERIFY2(plain.exitCode == 0, plain.err.constData());
        QCOMPARE(plain.json()["inputs"].toObject()["collective_cost"].toString(), QString("trace"));
        QVERIFY(!plain.json()["inputs"].toObject().contains("sweep_cell"));
        QVERIFY(!plain.json()["cost"].toObject()["method"].toString().contains("sweep"));
    }

    // A sweep that cannot price the job: exit 2, the file and the field named, nothing printed.
    void refusedSweeps_data() {
        QTest::addColumn<QString>("job");
        QTest::addColumn<QString>("run");
        QTest::addColumn<QStringList>("said");
        QTest::newRow("another world size")
            << cell(kCell2) << cell(kSweep3)
            << QStringList{cell(kSweep3) + "/cell.json", "world_size: 3, the job's is 2"};
        QTest::newRow("another layer")
            << ddp_fixtures::kNccl << results_
            << QStringList{cell(kSweep2) + "/cell.json", "layer: gloo_cpu",
                           "the job ran nccl on a GPU"};
        QTest::newRow("another link")
            << cell(kCell2)
            << copiedSweep("linked",
                           [](const QString& dir) {
                               QFile f(dir + "/cell.json");
                               f.open(QIODevice::ReadOnly);
                               QJsonObject o = QJsonDocument::fromJson(f.readAll()).object();
                               f.close();
                               QJsonObject config = o["config"].toObject();
                               config["link"] = "2gbit";
                               o["config"] = config;
                               f.open(QIODevice::WriteOnly | QIODevice::Truncate);
                               f.write(QJsonDocument(o).toJson());
                           })
            << QStringList{"linked/cells/" + kSweep2 + "/cell.json",
                           "config.link: 2gbit, the job's is loopback"};
        QTest::newRow("incomplete") << cell(kCell2) << copiedSweep("cut", [](const QString& dir) {
            QFile::remove(dir + "/sweep_rank1.json");
        }) << QStringList{"cut/cells/" + kSweep2 + "/cell.json", "the cell is incomplete"};
        QTest::newRow("no sweep cell")
            << cell(kCell2)
            << copiedSweep("none",
                           [](const QString& dir) {
                               QFile f(dir + "/cell.json");
                               f.open(QIODevice::ReadOnly);
                               QJsonObject o = QJsonDocument::fromJson(f.readAll()).object();
                               f.close();
                               o["kind"] = "ddp";
                               f.open(QIODevice::WriteOnly | QIODevice::Truncate);
                               f.write(QJsonDocument(o).toJson());
                               for (const QString& r : QDir(dir).entryList({"sweep_rank*.json"})) {
                                   QFile::remove(dir + "/" + r);
                               }
                           })
            << QStringList{"--sweep", "none", "no kind: sweep cell"};
        QTest::newRow("not a results folder")
            << cell(kCell2) << work_.filePath("empty")
            << QStringList{"--sweep:", "empty is not a results folder"};
    }
    void refusedSweeps() {
        QFETCH(QString, job);
        QFETCH(QString, run);
        QFETCH(QStringList, said);
        QDir().mkpath(work_.filePath("empty"));
        const CliResult r = runCli("commprof", {"trace", "whatif", job, "--sweep", run, "--json"});
        QCOMPARE(r.exitCode, 2);
        QVERIFY(r.out.isEmpty());
        for (const QString& s : said) {
            QVERIFY2(r.err.contains(s.toUtf8()), r.err.constData());
        }
    }
};

QTEST_GUILESS_MAIN(TstTraceWhatIfSweep)
#include "tst_trace_whatif_sweep.moc"
