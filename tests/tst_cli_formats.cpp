// SPDX-License-Identifier: GPL-3.0-or-later
// `--format table|json|csv` of `commprof cells` and `commprof trace summarize`: each format
// carries the same figures, checked against sources the command does not compute: the
// reference totals of the shared fixtures' README for the trace, and the rank files of a real
// run (the median step time over every rank's recorded iterations, by hand) for cells.

#include "cli_runner.h"
#include "run_helpers.h"

#include <QJsonArray>
#include <QTest>

#include <algorithm>
#include <map>

namespace {

const QString kTrace = COMMPROF_TEST_DATA "/traces/kineto_nccl_ddp_ws2_rank0.json.gz";

// The fixtures README's totals over the 3 marked steps of kineto_nccl_ddp_ws2_rank0 (us).
const std::map<QString, double> kReference{{"compute_us", 115655.843},
                                           {"comm_us", 51006.881},
                                           {"bookkeeping_us", 2653.570},
                                           {"overlap_us", 8241.265}};

struct Csv {
    QStringList header;
    QList<QStringList> rows;
    double value(int row, const QString& column) const {
        return rows[row][header.indexOf(column)].toDouble();
    }
};

Csv parseCsv(const QByteArray& text) {
    Csv out;
    const QStringList lines = QString::fromUtf8(text).split('\n', Qt::SkipEmptyParts);
    if (lines.isEmpty()) {
        return out;
    }
    out.header = lines.first().split(',');
    for (int i = 1; i < lines.size(); ++i) {
        out.rows << lines[i].split(',');
    }
    return out;
}

const char* kOneCell = R"(name: formats
defaults: {iterations: 6, warmup: 2, batch_size: 4, timeout_s: 120}
models: [{name: mlp_small, family: mlp, params: 2.0e5}]
layers: [{name: gloo_cpu, backend: gloo, device: cpu}]
world_sizes: [2]
)";

} // namespace

class TstCliFormats : public QObject {
    Q_OBJECT
    QTemporaryDir work_;
    QString results_;

private slots:
    void traceSummarizeJson() {
        const CliResult r = runCli("commprof", {"trace", "summarize", kTrace, "--format", "json"});
        QCOMPARE(r.exitCode, 0);
        const QJsonObject doc = r.json();
        QCOMPARE(doc["regime"].toString(), QString("device"));
        QCOMPARE(doc["steps"].toArray().size(), 3);
        for (const auto& [key, value] : kReference) {
            QVERIFY2(qAbs(doc["totals"][key].toDouble() - value) < 1e-3, qPrintable(key));
        }
        // --json is the same document.
        QCOMPARE(runCli("commprof", {"trace", "summarize", kTrace, "--json"}).out, r.out);
    }

    void traceSummarizeCsv() {
        const CliResult r = runCli("commprof", {"trace", "summarize", kTrace, "--format", "csv"});
        QCOMPARE(r.exitCode, 0);
        const Csv csv = parseCsv(r.out);
        QCOMPARE(csv.rows.size(), 3);
        for (const auto& row : csv.rows) {
            QCOMPARE(row.size(), csv.header.size());
        }
        for (const auto& [key, value] : kReference) {
            double sum = 0;
            for (int i = 0; i < csv.rows.size(); ++i) {
                sum += csv.value(i, key);
            }
            QVERIFY2(qAbs(sum - value) < 0.01, qPrintable(key)); // 3 rows at 3 decimals
        }
        QCOMPARE(csv.rows[0][csv.header.indexOf("step")], QString("4"));
    }

    void traceSummarizeTable() {
        const CliResult r = runCli("commprof", {"trace", "summarize", kTrace, "--format", "table"});
        QCOMPARE(r.exitCode, 0);
        QCOMPARE(runCli("commprof", {"trace", "summarize", kTrace}).out, r.out); // the default
        // "  step  step_us compute_us comm_us bookkeep_us memory_us overlap_us exposed_us"
        const QStringList lines = QString::fromUtf8(r.out).split('\n');
        const auto total = std::find_if(lines.begin(), lines.end(), [](const QString& l) {
            return l.trimmed().startsWith("total ");
        });
        QVERIFY(total != lines.end());
        const QStringList cols = total->simplified().split(' ');
        QCOMPARE(cols.size(), 8);
        QVERIFY(qAbs(cols[2].toDouble() - kReference.at("compute_us")) < 0.05);
        QVERIFY(qAbs(cols[3].toDouble() - kReference.at("comm_us")) < 0.05);
        QVERIFY(qAbs(cols[4].toDouble() - kReference.at("bookkeeping_us")) < 0.05);
        QVERIFY(qAbs(cols[6].toDouble() - kReference.at("overlap_us")) < 0.05);
    }

    void traceSummarizeRefusesAnUnknownFormat() {
        const CliResult r = runCli("commprof", {"trace", "summarize", kTrace, "--format", "xml"});
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains("--format: expected table, json or csv, got 'xml'"), r.err);
        QVERIFY(r.out.isEmpty());
    }

    void cellsInEachFormat() {
        QVERIFY(work_.isValid());
        const QString matrix = writeMatrix(work_, kOneCell);
        results_ = work_.filePath("results");
        const CliResult run = runCli("commprof", {"run", matrix, "--out", results_});
        QVERIFY2(run.exitCode == 0, run.err.constData());
        const QString id = "mlp_small_gloo_cpu_ws2_r0";

        // By hand from the rank files: every rank's recorded iterations, their median.
        std::vector<double> steps;
        for (int rank = 0; rank < 2; ++rank) {
            QFile f(QString("%1/cells/%2/rank%3.json").arg(results_, id).arg(rank));
            QVERIFY(f.open(QIODevice::ReadOnly));
            const QJsonObject r = QJsonDocument::fromJson(f.readAll()).object();
            const int from = r["record_from_iteration"].toInt();
            for (const QJsonValue v : r["iterations"].toArray()) {
                if (v["iter"].toInt() >= from) {
                    steps.push_back(v["step_ms"].toDouble());
                }
            }
        }
        QCOMPARE(int(steps.size()), 2 * 4);
        std::sort(steps.begin(), steps.end());
        const double median = 0.5 * (steps[3] + steps[4]);

        const CliResult json = runCli("commprof", {"cells", results_, "--format", "json"});
        QCOMPARE(json.exitCode, 0);
        const QJsonArray cells = json.json()["cells"].toArray();
        QCOMPARE(cells.size(), 1);
        QCOMPARE(cells[0]["id"].toString(), id);
        QCOMPARE(cells[0]["status"].toString(), QString("complete"));
        QCOMPARE(cells[0]["world_size"].toInt(), 2);
        QVERIFY(qAbs(cells[0]["step_ms"].toDouble() - median) < 1e-6 * median);

        const Csv csv = parseCsv(runCli("commprof", {"cells", results_, "--format", "csv"}).out);
        QCOMPARE(csv.rows.size(), 1);
        QCOMPARE(csv.rows[0][csv.header.indexOf("id")], id);
        QCOMPARE(csv.rows[0][csv.header.indexOf("world_size")], QString("2"));
        QVERIFY(qAbs(csv.value(0, "step_ms") - median) < 1e-4 * median); // 6 significant digits

        const CliResult table = runCli("commprof", {"cells", results_, "--format", "table"});
        QCOMPARE(runCli("commprof", {"cells", results_}).out, table.out); // the default
        const QStringList cols = QString::fromUtf8(table.out).simplified().split(' ');
        // "ID complete ws2 step X ms comm Y ms"
        QCOMPARE(cols.value(0), id);
        QCOMPARE(cols.value(1), QString("complete"));
        QCOMPARE(cols.value(2), QString("ws2"));
        QVERIFY(qAbs(cols.value(4).toDouble() - median) < 0.005 + 1e-9);

        QCOMPARE(runCli("commprof", {"cells", results_, "--format", "yaml"}).exitCode, 2);
    }
};

QTEST_GUILESS_MAIN(TstCliFormats)
#include "tst_cli_formats.moc"
