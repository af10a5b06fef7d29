// SPDX-License-Identifier: GPL-3.0-or-later
// After ingest, a tuning study's report and recommendation come from the store alone: a small
// study run for real (a 1M-parameter MLP at world size 2 on gloo_cpu, caps 0.25 and 25 MiB, an
// all_reduce sweep) is ingested, `report` and `recommend` (text and --json) are captured, every
// file the ranks wrote is made unreadable, and both are run again: the outputs must not change.
// The workbench takes the same path (store::openResults, then report::loadReportData), so its
// tuning is compared with `recommend --json` too. And the one completeness judge: a cell ingest
// calls incomplete is one recommend leaves out, with the same reasons.
//
// Unreadable, not gone: a renamed or deleted rank file changes the cell folder's listing, which
// the store's fingerprint sees, and the store never hides newer files (open_results.h), so the
// cell would be read again, rightly. Here each file keeps its name, size and times to the
// nanosecond and loses its content (and, where the test is not root, its read permission): what
// a reader would find if it read the file again.

#include "analysis/recommendation.h"
#include "report/recommendation_text.h"
#include "report/report_data.h"
#include "results/cell_files.h"
#include "store/open_results.h"
#include "study_helpers.h"

#include <QDir>
#include <QDirIterator>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QTemporaryDir>
#include <QTest>

#include <fcntl.h>
#include <sys/stat.h>

using namespace commprof;

namespace {

// Everything the report wrote, by file name; the figures (PDF, PNG) as whether they exist, since
// a PDF carries the time it was made.
QMap<QString, QByteArray> reportFiles(const QString& dir) {
    QMap<QString, QByteArray> out;
    for (const QString& name : QDir(dir).entryList(QDir::Files, QDir::Name)) {
        QFile f(QDir(dir).filePath(name));
        const bool figure = name.endsWith(".pdf") || name.endsWith(".png");
        out[name] = figure ? QByteArray("figure")
                           : (f.open(QIODevice::ReadOnly) ? f.readAll() : "unreadable");
    }
    return out;
}

// Overwrites the file in place with as many '#' bytes, puts its access and modification times
// back to the nanosecond, and takes every permission from it. False with a QWARN on failure.
bool wreck(const QString& path) {
    struct stat st {};
    const QByteArray name = QFile::encodeName(path);
    if (::stat(name.constData(), &st) != 0) {
        return false;
    }
    QFile f(path);
    if (!f.open(QIODevice::ReadWrite) || f.write(QByteArray(st.st_size, '#')) != st.st_size) {
        return false;
    }
    f.close();
    const struct timespec times[2] = {st.st_atim, st.st_mtim};
    return ::utimensat(AT_FDCWD, name.constData(), times, 0) == 0 &&
           ::chmod(name.constData(), 0) == 0;
}

struct Outputs {
    CliResult text, json;
    QMap<QString, QByteArray> report;
};

} // namespace

class TstReportFromStore : public QObject {
    Q_OBJECT
    QTemporaryDir work_;
    QString results_;

    Outputs capture(const QString& reportDir) {
        Outputs o;
        const CliResult report = runCli("commprof", {"report", results_, "--out", reportDir});
        [&] { QVERIFY2(report.exitCode == 0, report.err.constData()); }();
        o.report = reportFiles(reportDir);
        o.text = runCli("commprof", {"recommend", results_});
        o.json = runCli("commprof", {"recommend", results_, "--json"});
        return o;
    }

    // A copy of the results folder (without its store) to spoil.
    QString copyOfResults(const QString& name) {
        const QString copy = work_.filePath(name);
        QDirIterator it(results_, QDir::Files, QDirIterator::Subdirectories);
        while (it.hasNext()) {
            const QString from = it.next();
            const QString rel = QDir(results_).relativeFilePath(from);
            if (rel.startsWith("results.sqlite")) {
                continue;
            }
            QDir().mkpath(QFileInfo(copy + "/" + rel).absolutePath());
            [&] { QVERIFY2(QFile::copy(from, copy + "/" + rel), qPrintable(rel)); }();
        }
        return copy;
    }

private slots:
    void initTestCase() {
        QVERIFY(work_.isValid());
        const QString defaults = R"(  iterations: 10
  warmup: 2
  batch_size: 8
  bucket_cap_mb: [0.25, 25]
  hook: allreduce
  trace: {enabled: true, first_step: 5, steps: 3}
  timeout_s: 240
)";
        results_ = work_.filePath("results");
        const CliResult run =
            runStudy(work_,
                     sweptStudy("from_store", defaults, "{name: mlp1m, family: mlp, params: 1.0e6}",
                                8388608),
                     results_, 300000);
        QVERIFY2(run.exitCode == 0, run.err.constData());
        const CliResult ingest = runCli("commprof", {"ingest", results_});
        QVERIFY2(ingest.exitCode == 0, ingest.err.constData());
    }

    // One judge: a cell ingest calls incomplete (its trace cannot be read, which the rank files'
    // own rule does not see) is left out by recommend with the same status and reasons.
    void recommendDropsWhatIngestCallsIncomplete() {
        const QString copy = copyOfResults("spoiled");
        const QString id = "mlp1m_gloo_cpu_ws2_cap25_r0";
        QFile trace(copy + "/cells/" + id + "/trace_rank0.json.gz");
        QVERIFY(trace.exists());
        QVERIFY(trace.open(QIODevice::WriteOnly | QIODevice::Truncate));
        trace.write("not a trace");
        trace.close();

        const CliResult cells = runCli("commprof", {"cells", copy, "--json"});
        QVERIFY2(cells.exitCode == 0, cells.err.constData());
        QJsonObject stored;
        for (const QJsonValue v : cells.json()["cells"].toArray()) {
            if (v["id"].toString() == id) {
                stored = v.toObject();
            }
        }
        QCOMPARE(stored["status"].toString(), QString("incomplete"));
        QVERIFY2(stored["reasons"].toArray().first().toString().startsWith("trace unreadable: "),
                 qPrintable(QJsonDocument(stored).toJson()));
        // The rank files alone would call it complete: only the one judge drops it.
        QCOMPARE(results::judge(results::readCellDir(copy + "/cells/" + id)).status,
                 QString("complete"));

        const CliResult r = runCli("commprof", {"recommend", copy, "--json"});
        QVERIFY2(r.exitCode == 0 || r.exitCode == 1, r.err.constData());
        const QJsonArray dropped = r.json()["dropped"].toArray();
        QCOMPARE(dropped.size(), 1);
        QCOMPARE(dropped[0]["cell"].toString(), id);
        QCOMPARE(dropped[0]["status"].toString(), stored["status"].toString());
        QCOMPARE(dropped[0]["reasons"].toArray(), stored["reasons"].toArray());
        const QJsonArray groups = r.json()["groups"].toArray();
        QCOMPARE(groups.size(), 1);
        QCOMPARE(groups[0]["cells"].toArray(),
                 QJsonArray{QString("mlp1m_gloo_cpu_ws2_cap0p25_r0")});
    }

    void sameWithEveryRankFileUnreadable() {
        const Outputs before = capture(work_.filePath("before"));
        // The study is one the report and recommend have something to say of: a group of two
        // measured caps with its sweep, and a recommend.csv and the tuning figure. Exit 1 is
        // recommend's answer where the live sweep's fit is refused (a loaded machine's noise),
        // and then the group names why; the outputs before and after must agree either way.
        const QByteArray said = before.json.out + before.json.err;
        QVERIFY2(before.json.exitCode == 0 || before.json.exitCode == 1, said.constData());
        const QJsonArray groups = before.json.json()["groups"].toArray();
        QCOMPARE(groups.size(), 1);
        QCOMPARE(groups[0]["measured"].toInt(), 2);
        // Exit 1 for the refused fit alone: any other reason (no sweep, no cell to calibrate) is
        // a fault of the study or the store, which this test must not pass over.
        QVERIFY2(before.json.exitCode == 0
                     ? !groups[0]["sweep_cell"].toString().isEmpty()
                     : groups[0]["reason"].toString().contains("'s all_reduce fit was refused: "),
                 said.constData());
        if (before.json.exitCode == 1) {
            qWarning("recommend predicted nothing (%s): the outputs are compared without a "
                     "prediction",
                     qPrintable(groups[0]["reason"].toString()));
        }
        QVERIFY(before.report.contains("recommend.csv"));
        QVERIFY(before.report.contains("tuning.pdf"));
        QVERIFY(before.report.contains("cells.csv"));

        // Every file a rank wrote (rank, sweep and trace files); cell.json and manifest.json are
        // the runner's records, whose content the store's fingerprint holds.
        int wrecked = 0;
        QStringList cellDirs;
        for (const QString& id :
             QDir(results_ + "/cells").entryList(QDir::Dirs | QDir::NoDotAndDotDot)) {
            const QString dir = results_ + "/cells/" + id;
            cellDirs << dir;
            QDirIterator it(dir, QDir::Files, QDirIterator::Subdirectories);
            while (it.hasNext()) {
                const QString path = it.next();
                if (it.fileName() == "cell.json" || it.fileName() == "manifest.json") {
                    continue;
                }
                QVERIFY2(wreck(path), qPrintable(path));
                ++wrecked;
            }
        }
        QCOMPARE(cellDirs.size(), 3);
        QVERIFY(wrecked >= 6); // two rank files per cell at least
        // A reader of the cells' files now finds nothing it can use.
        for (const QString& dir : cellDirs) {
            const results::CellFiles files = results::readCellDir(dir);
            QVERIFY2(files.records.isEmpty() && files.sweeps.isEmpty(), qPrintable(dir));
            QVERIFY2(results::judge(files).status != "complete", qPrintable(dir));
        }

        const Outputs after = capture(work_.filePath("after"));
        QCOMPARE(after.text.exitCode, before.text.exitCode);
        QCOMPARE(after.json.exitCode, before.json.exitCode);
        QCOMPARE(after.text.out, before.text.out);
        QCOMPARE(after.json.out, before.json.out);
        QCOMPARE(after.report.keys(), before.report.keys());
        for (auto it = before.report.begin(); it != before.report.end(); ++it) {
            QVERIFY2(after.report.value(it.key()) == it.value(), qPrintable(it.key()));
        }

        // The workbench's way in: the store opened (nothing to ingest), then the report's data.
        const store::OpenedResults opened =
            store::openResults(results_, store::defaultDbPath(results_));
        QCOMPARE(opened.ingested.read, 0);
        const report::ReportData data =
            report::loadReportData(*opened.db, QDir(results_).canonicalPath());
        QVERIFY(data.tuning.has_value());
        QCOMPARE(QJsonDocument(report::toJson(*data.tuning)).toJson(QJsonDocument::Compact),
                 QJsonDocument(before.json.json()).toJson(QJsonDocument::Compact));
    }
};

QTEST_GUILESS_MAIN(TstReportFromStore)
#include "tst_report_from_store.moc"
