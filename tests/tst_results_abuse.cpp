// SPDX-License-Identifier: GPL-3.0-or-later
// Results folders that were tampered with or damaged (issue 20), read by the real `commprof`:
// rank files that are links, devices, FIFOs, arrays or hold impossible iteration numbers, a
// trace that cannot be read, a planted database link, concurrent first ingests, and a model
// name that a spreadsheet would run as a formula.

#include "cli_runner.h"
#include "rank_files.h"
#include "store/schema.h"
#include "store/sqlite_db.h"

#include <QDir>
#include <QJsonArray>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

#include <sys/stat.h>

namespace {

const QString kFormula = R"(=HYPERLINK("http://example.com","x"))";

// Two models (one named like a spreadsheet formula) x world sizes 1 and 2, traced.
QString matrixText() {
    return QString("name: abuse\n"
                   "defaults: {iterations: 12, warmup: 2, batch_size: 8, timeout_s: 300,\n"
                   "           trace: {enabled: true, first_step: 4, steps: 4}}\n"
                   "models: [{name: tiny, params: 2e5}, {name: '%1', params: 2e5}]\n"
                   "layers: [{name: gloo_cpu}]\n"
                   "world_sizes: [1, 2]\n")
        .arg(kFormula);
}

const QString kTiny1 = "tiny_gloo_cpu_ws1_r0";
const QString kTiny2 = "tiny_gloo_cpu_ws2_r0";
const QString kFormula1 = "hyperlink_http_example_com_x_gloo_cpu_ws1_r0";
const QString kFormula2 = "hyperlink_http_example_com_x_gloo_cpu_ws2_r0";

QMap<QString, QJsonObject> cellsById(const CliResult& r) {
    QMap<QString, QJsonObject> out;
    for (const QJsonValue v : r.json()["cells"].toArray()) {
        out[v.toObject()["id"].toString()] = v.toObject();
    }
    return out;
}

QString reasonsOf(const QJsonObject& cell) {
    return cell["reasons"].toVariant().toStringList().join("; ");
}

// The fields of one CSV line (RFC 4180 quoting).
QStringList csvFields(const QString& line) {
    QStringList out;
    QString field;
    bool quoted = false;
    for (int i = 0; i < line.size(); ++i) {
        const QChar c = line[i];
        if (quoted && c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
            field += '"';
            ++i;
        } else if (c == '"') {
            quoted = !quoted;
        } else if (c == ',' && !quoted) {
            out << field;
            field.clear();
        } else {
            field += c;
        }
    }
    return out << field;
}

bool writeBytes(const QString& path, const QByteArray& bytes) {
    QFile::remove(path);
    QFile f(path);
    return f.open(QIODevice::WriteOnly) && f.write(bytes) == bytes.size();
}

} // namespace

class TstResultsAbuse : public QObject {
    Q_OBJECT
    QTemporaryDir work_;
    QString run_; // a real run of matrixText(), never modified

    QString copyOfRun(const QString& name) {
        const QString dir = work_.filePath(name);
        return copyDir(run_, dir) ? dir : QString();
    }
    QString cellFile(const QString& dir, const QString& cell, const QString& file) {
        return QString("%1/cells/%2/%3").arg(dir, cell, file);
    }

private slots:
    void initTestCase() {
        run_ = work_.filePath("run");
        const QString matrix = work_.filePath("abuse.yaml");
        QVERIFY(writeBytes(matrix, matrixText().toUtf8()));
        const CliResult r = runCli("commprof", {"run", matrix, "--out", run_});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        for (const QString& cell : {kTiny1, kTiny2, kFormula1, kFormula2}) {
            QVERIFY2(QFile::exists(cellFile(run_, cell, "manifest.json")), qPrintable(cell));
        }
    }

    // Item 3 (rank files): a rank file linked to /dev/zero used to abort ingest and
    // calibrate with bad_alloc; a FIFO would hang them. Only regular files of bounded size are
    // read: the cell is flagged with the reason, the rest are stored.
    void rankFilesThatAreNotRegularFilesAreFlagged() {
        const QString dir = copyOfRun("devices");
        QVERIFY(QFile::remove(cellFile(dir, kTiny2, "rank1.json")));
        QVERIFY(QFile::link("/dev/zero", cellFile(dir, kTiny2, "rank1.json")));
        QVERIFY(QFile::remove(cellFile(dir, kFormula2, "rank1.json")));
        QVERIFY(::mkfifo(QFile::encodeName(cellFile(dir, kFormula2, "rank1.json")).constData(),
                         0600) == 0);
        const CliResult cal = runCli("commprof", {"calibrate", dir, "--json"}, 120000);
        QVERIFY2(cal.exitCode == 0 || cal.exitCode == 1, cal.err.constData());
        QCOMPARE(cal.json()["cells"].toArray().size(), 2); // the two ws1 cells
        const CliResult r = runCli("commprof", {"cells", dir, "--json"}, 120000);
        QCOMPARE(r.exitCode, 0);
        const auto cells = cellsById(r);
        QCOMPARE(cells.size(), 4);
        QCOMPARE(cells[kTiny2]["status"].toString(), QString("incomplete"));
        QVERIFY2(reasonsOf(cells[kTiny2]).contains("rank1.json: a symbolic link"),
                 qPrintable(reasonsOf(cells[kTiny2])));
        QCOMPARE(cells[kFormula2]["status"].toString(), QString("incomplete"));
        QVERIFY2(reasonsOf(cells[kFormula2]).contains("rank1.json: not a regular file"),
                 qPrintable(reasonsOf(cells[kFormula2])));
        QCOMPARE(cells[kTiny1]["status"].toString(), QString("complete"));
        QCOMPARE(cells[kFormula1]["status"].toString(), QString("complete"));
    }

    // Item 3 (rank files): above the size limit a rank file is refused with the limit and how
    // to raise it.
    void oversizedRankFileNamesItsLimit() {
        const QString dir = copyOfRun("oversized");
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert("COMMPROF_MAX_RANK_FILE_BYTES", "1000");
        const CliResult r = runCli("commprof", {"cells", dir, "--json"}, 120000, env);
        QCOMPARE(r.exitCode, 0);
        const QJsonObject cell = cellsById(r)[kTiny1];
        QCOMPARE(cell["status"].toString(), QString("incomplete"));
        QVERIFY2(reasonsOf(cell).contains("above the limit of 1000 bytes; raise it with "
                                          "COMMPROF_MAX_RANK_FILE_BYTES=N"),
                 qPrintable(reasonsOf(cell)));
    }

    // Item 9: a trace that cannot be read used to leave the cell complete, its communication
    // silently the hook's. The cell is incomplete, and says why.
    void unreadableTraceMakesTheCellIncomplete() {
        const QString dir = copyOfRun("trace");
        QVERIFY(writeBytes(cellFile(dir, kTiny2, "trace_rank0.json.gz"),
                           "this was a trace until the disk lost it\n"));
        QVERIFY(QFile::remove(cellFile(dir, kFormula2, "trace_rank0.json.gz")));
        const CliResult r = runCli("commprof", {"cells", dir, "--json"}, 120000);
        QCOMPARE(r.exitCode, 0);
        const auto cells = cellsById(r);
        QCOMPARE(cells[kTiny2]["status"].toString(), QString("incomplete"));
        QVERIFY2(reasonsOf(cells[kTiny2]).contains("trace unreadable: "),
                 qPrintable(reasonsOf(cells[kTiny2])));
        QVERIFY(cells[kTiny2]["trace_comm_ms"].isNull());
        QCOMPARE(cells[kFormula2]["status"].toString(), QString("incomplete"));
        QVERIFY2(reasonsOf(cells[kFormula2]).contains("trace_rank0.json.gz is missing"),
                 qPrintable(reasonsOf(cells[kFormula2])));
        QCOMPARE(cells[kTiny1]["status"].toString(), QString("complete"));
    }

    // Item 10: a duplicated iteration, or an iteration number of 2^40, used to fail ingest,
    // cells and report for every cell (UNIQUE constraint failed). That cell is flagged, naming
    // the field; the rest are stored and reported.
    void badRankFileFlagsItsCellAndTheRestAreStored() {
        const QString dir = copyOfRun("iterations");
        QJsonObject dup = readJsonFile(cellFile(dir, kTiny2, "rank1.json"));
        QJsonArray its = dup["iterations"].toArray();
        its.append(its[4]);
        dup["iterations"] = its;
        QVERIFY(writeJsonFile(cellFile(dir, kTiny2, "rank1.json"), dup));
        QJsonObject huge = readJsonFile(cellFile(dir, kFormula2, "rank0.json"));
        its = huge["iterations"].toArray();
        QJsonObject third = its[3].toObject();
        third["iter"] = double(1LL << 40);
        its[3] = third;
        huge["iterations"] = its;
        QVERIFY(writeJsonFile(cellFile(dir, kFormula2, "rank0.json"), huge));

        const CliResult ingest = runCli("commprof", {"ingest", dir}, 120000);
        QVERIFY2(ingest.exitCode == 0, ingest.err.constData());
        const CliResult r = runCli("commprof", {"cells", dir, "--json"}, 120000);
        QCOMPARE(r.exitCode, 0);
        const auto cells = cellsById(r);
        QCOMPARE(cells[kTiny2]["status"].toString(), QString("incomplete"));
        QVERIFY2(reasonsOf(cells[kTiny2])
                     .contains("rank1.json: iterations[12].iter: iteration 4 "
                               "is listed twice"),
                 qPrintable(reasonsOf(cells[kTiny2])));
        QCOMPARE(cells[kFormula2]["status"].toString(), QString("incomplete"));
        QVERIFY2(reasonsOf(cells[kFormula2])
                     .contains("rank0.json: iterations[3].iter: expected an integer from 0 to "
                               "1000000000, found 1099511627776"),
                 qPrintable(reasonsOf(cells[kFormula2])));
        for (const QString& ok : {kTiny1, kFormula1}) {
            QCOMPARE(cells[ok]["status"].toString(), QString("complete"));
            QVERIFY(cells[ok]["step_ms"].toDouble() > 0);
        }
        const CliResult rep =
            runCli("commprof", {"report", dir, "--out", work_.filePath("iterations_report")});
        QVERIFY2(rep.exitCode == 0, rep.err.constData());
    }

    // Item 11: two ingests into a new database used to race on the schema ("table
    // schema_version already exists"). Four at once, five times over: every one succeeds and
    // each migration is recorded once.
    void concurrentFirstIngestsAgreeOnTheSchema() {
        const QString dir = copyOfRun("concurrent");
        for (int round = 0; round < 5; ++round) {
            const QString db = work_.filePath(QString("concurrent_%1.sqlite").arg(round));
            std::vector<std::unique_ptr<QProcess>> ingests;
            for (int i = 0; i < 4; ++i) {
                ingests.push_back(std::make_unique<QProcess>());
                ingests.back()->start(COMMPROF_BIN_DIR "/commprof", {"ingest", dir, "--db", db});
            }
            for (auto& p : ingests) {
                QVERIFY(p->waitForFinished(120000));
                QVERIFY2(p->exitCode() == 0, p->readAllStandardError().constData());
            }
            commprof::store::Database d(db);
            commprof::store::Statement versions =
                d.prepare("SELECT group_concat(version) FROM schema_version");
            QVERIFY(versions.step());
            // Each migration applied once, in order, whichever ingest came first.
            QStringList once;
            for (int v = 1; v <= commprof::store::kSchemaVersion; ++v) {
                once << QString::number(v);
            }
            QCOMPARE(versions.column(0).toString(), once.join(','));
            commprof::store::Statement cells = d.prepare("SELECT COUNT(*) FROM cells");
            QVERIFY(cells.step());
            QCOMPARE(cells.column(0).toInt(), 4);
        }
    }

    // Item 13: a rank file holding [1,2,3] used to read "unparseable: no error occurred".
    void rankFileThatIsNotAnObjectSaysSo() {
        const QString dir = copyOfRun("array");
        QVERIFY(writeBytes(cellFile(dir, kTiny2, "rank1.json"), "[1,2,3]\n"));
        const CliResult r = runCli("commprof", {"cells", dir, "--json"}, 120000);
        QCOMPARE(r.exitCode, 0);
        const QString reasons = reasonsOf(cellsById(r)[kTiny2]);
        QVERIFY2(reasons.contains("rank1.json: expected a JSON object, found an array"),
                 qPrintable(reasons));
        QVERIFY(!reasons.contains("no error occurred"));
    }

    // Item 14: a dangling results.sqlite link used to make ingest create the database at its
    // target. Every command that opens the database refuses it; nothing appears there.
    void danglingDatabaseLinkIsRefused() {
        const QString dir = copyOfRun("dangling");
        const QString target = work_.filePath("elsewhere/planted.sqlite");
        QVERIFY(QDir().mkpath(work_.filePath("elsewhere")));
        QVERIFY(QFile::link(target, dir + "/results.sqlite"));
        const QString explicitLink = work_.filePath("explicit.sqlite");
        QVERIFY(QFile::link(target, explicitLink));
        for (const QStringList& args :
             {QStringList{"ingest", dir}, QStringList{"cells", dir, "--json"},
              QStringList{"report", dir, "--out", work_.filePath("dangling_report")},
              QStringList{"ingest", dir, "--db", explicitLink}}) {
            const CliResult r = runCli("commprof", args, 120000);
            QVERIFY(!QFileInfo::exists(target));
            QCOMPARE(r.exitCode, 2);
            QVERIFY2(QString(r.err).contains(".sqlite: a symbolic link"), r.err.constData());
        }
    }

    // Item 16: a model named =HYPERLINK(...) went into cells.csv as a live formula. Every
    // field a spreadsheet would evaluate is neutralised with a leading apostrophe.
    void formulaInAModelNameIsNeutralisedInCsv() {
        const QString out = work_.filePath("csv_report");
        const CliResult rep = runCli(
            "commprof", {"report", run_, "--out", out, "--db", work_.filePath("csv.sqlite")});
        QVERIFY2(rep.exitCode == 0, rep.err.constData());
        const CliResult csv =
            runCli("commprof", {"cells", run_, "--csv", "--db", work_.filePath("csv.sqlite")});
        QCOMPARE(csv.exitCode, 0);
        for (const QString& file : {out + "/cells.csv", out + "/buckets.csv", QString()}) {
            QString text = QString::fromUtf8(csv.out);
            if (!file.isEmpty()) {
                QFile f(file);
                QVERIFY(f.open(QIODevice::ReadOnly));
                text = QString::fromUtf8(f.readAll());
            }
            int formulaRows = 0;
            for (const QString& line : text.split('\n', Qt::SkipEmptyParts)) {
                for (const QString& field : csvFields(line)) {
                    QVERIFY2(field.isEmpty() || !QString("=+@").contains(field.front()),
                             qPrintable(file + ": " + line));
                    formulaRows += field == "'" + kFormula;
                }
            }
            QCOMPARE(formulaRows, file.endsWith("buckets.csv") ? 0 : 2);
        }
    }
};

QTEST_GUILESS_MAIN(TstResultsAbuse)
#include "tst_results_abuse.moc"
