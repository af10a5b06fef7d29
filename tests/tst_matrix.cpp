// SPDX-License-Identifier: GPL-3.0-or-later
// The matrix: parsing, expansion, safe ids, and errors that point at file:line:col.

#include "cli_runner.h"
#include "feasibility/plan.h"
#include "matrix/matrix.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QTemporaryDir>
#include <QTest>

#include <sys/stat.h>

using namespace commprof;

namespace {

matrix::Matrix parse(const QString& yaml) {
    return matrix::parseMatrix(yaml.toUtf8(), "inline.yaml");
}

const QString kBase =
    "name: t\nmodels: [{name: m, params: 1e6}]\nlayers: [{name: gloo_cpu}]\nworld_sizes: [1, 2]\n";

} // namespace

class TstMatrix : public QObject {
    Q_OBJECT
private slots:
    void shippedMatricesParse_data() {
        QTest::addColumn<QString>("file");
        for (const QString& f :
             QDir(COMMPROF_SOURCE_DIR "/configs/experiments").entryList({"*.yaml"})) {
            QTest::newRow(qPrintable(f))
                << QString(COMMPROF_SOURCE_DIR "/configs/experiments/" + f);
        }
    }
    void shippedMatricesParse() {
        QFETCH(QString, file);
        const matrix::Matrix m = matrix::loadMatrix(file);
        QVERIFY(!matrix::expand(m, {1}).empty());
    }

    void smokeIsTheDocumentedDefault() {
        const matrix::Matrix m =
            matrix::loadMatrix(COMMPROF_SOURCE_DIR "/configs/experiments/smoke.yaml");
        const auto cells = matrix::expand(m, {0});
        QCOMPARE(cells.size(), std::size_t(5));
        QCOMPARE(cells[0].id, QString("mlp2m_gloo_cpu_ws1_r0"));
        QCOMPARE(cells[1].id, QString("mlp2m_gloo_cpu_ws2_r0"));
        QCOMPARE(cells[1].layer.interconnect, QString("host_loopback"));
        QVERIFY(cells[0].config.trace.enabled);
        QCOMPARE(cells[0].config.trace.firstStep, 10);
        // A sweep at world sizes 1, 2 and 3, past the 2M model's largest bucket (6.9 MB).
        for (int i = 2; i < 5; ++i) {
            QVERIFY(cells[std::size_t(i)].isSweep());
            QCOMPARE(cells[std::size_t(i)].worldSize, i - 1);
            QVERIFY(cells[std::size_t(i)].sweepMaxBytes >= 8e6);
        }
    }

    void sweepEntriesExpandToSweepCells() {
        const matrix::Matrix m = parse(
            "name: t\nmodels:\n  - {name: m, params: 1e6}\n  - {name: s, kind: sweep, "
            "collectives: [broadcast, all_reduce], max_bytes: 65536, iterations: 5, warmup: 1}\n"
            "layers: [{name: gloo_cpu}]\nworld_sizes: [2]\n");
        const auto cells = matrix::expand(m, {0});
        QCOMPARE(cells.size(), std::size_t(2));
        const matrix::Cell& s = cells[1];
        QCOMPARE(s.id, QString("s_gloo_cpu_ws2_r0"));
        QVERIFY(s.isSweep() && !cells[0].isSweep());
        QCOMPARE(s.model.sweep.collectives, QStringList({"broadcast", "all_reduce"}));
        QCOMPARE(s.sweepMaxBytes, 65536.0);
        QCOMPARE(s.model.sweep.iterations, 5);
        QCOMPARE(s.model.sweep.warmup, 1);
        // Defaults: every kind, 256 MiB.
        const auto d = matrix::expand(
            parse("name: t\nmodels: [{name: s, kind: sweep}]\nlayers: [{name: gloo_cpu}]\n"
                  "world_sizes: [1]\n"),
            {0});
        QCOMPARE(d[0].model.sweep.collectives, matrix::kSweepCollectives);
        QCOMPARE(d[0].sweepMaxBytes, 256.0 * 1024 * 1024);
    }

    void badSweepEntriesNameTheKey_data() {
        QTest::addColumn<QString>("entry");
        QTest::addColumn<QString>("key");
        QTest::addColumn<int>("column");
        QTest::addColumn<QString>("text");
        QTest::newRow("unknown collective")
            << "{name: s, kind: sweep, collectives: [all_reduce, alltoall]}"
            << "collectives" << 54 << "'alltoall' is not one of";
        QTest::newRow("params on a sweep") << "{name: s, kind: sweep, params: 1e6}"
                                           << "params" << 28 << "unknown key in a sweep";
        QTest::newRow("max_bytes below a float") << "{name: s, kind: sweep, max_bytes: 4}"
                                                 << "max_bytes" << 39 << "expected 8 ..";
        QTest::newRow("sweep keys on a model") << "{name: m, params: 1e6, max_bytes: 64}"
                                               << "max_bytes" << 28 << "unknown key in a model";
        QTest::newRow("unknown kind") << "{name: m, kind: train}"
                                      << "kind" << 21 << "is not one of";
        QTest::newRow("a collective twice")
            << "{name: s, kind: sweep, collectives: [broadcast, broadcast]}"
            << "collectives" << 53 << "listed twice";
    }
    void badSweepEntriesNameTheKey() {
        QFETCH(QString, entry);
        QFETCH(QString, key);
        QFETCH(int, column);
        QFETCH(QString, text);
        try {
            parse("name: t\nmodels:\n  - " + entry +
                  "\nlayers: [{name: gloo_cpu}]\nworld_sizes: [1]\n");
            QFAIL("accepted");
        } catch (const matrix::MatrixError& e) {
            QCOMPARE(e.key, key);
            QCOMPARE(e.line, 3);
            QCOMPARE(e.column, column);
            QVERIFY2(QString(e.what()).contains(text), e.what());
        }
    }

    void fullStudyCoversModelsLayersWorldSizes() {
        const auto cells = matrix::expand(
            matrix::loadMatrix(COMMPROF_SOURCE_DIR "/configs/experiments/full.yaml"), {1});
        // (3 models + the sweep) x (gloo_cpu 5 + gloo_cuda 5 + nccl 1)
        QCOMPARE(cells.size(), std::size_t(44));
        QCOMPARE(std::count_if(cells.begin(), cells.end(),
                               [](const matrix::Cell& c) { return c.isSweep(); }),
                 11);
        QCOMPARE(cells[6].id, QString("mlp10m_gloo_cuda_ws2_r0"));
    }

    void excludesRepeatsAndOverrides() {
        const matrix::Matrix m =
            parse("name: t\ndefaults: {iterations: 20, warmup: 2}\nrepeats: 2\n"
                  "models: [{name: a, params: 1e6}, {name: b, params: 2e6, family: transformer}]\n"
                  "layers:\n  - {name: gloo_cpu, overrides: {iterations: 7, warmup: 1}}\n  - "
                  "{name: gloo_cuda}\n"
                  "world_sizes: [1, 2, 4]\nexclude:\n  - {model: b, layer: gloo_cuda}\n  - "
                  "{world_size: 4}\n");
        const auto cells = matrix::expand(m, {1});
        // a: 2 layers x 2 ws x 2 repeats = 8; b: gloo_cpu x 2 ws x 2 repeats = 4
        QCOMPARE(cells.size(), std::size_t(12));
        for (const auto& c : cells) {
            QVERIFY(c.worldSize != 4);
            QVERIFY(!(c.model.name == "b" && c.layer.name == "gloo_cuda"));
            QCOMPARE(c.config.iterations, c.layer.name == "gloo_cpu" ? 7 : 20);
        }
        QCOMPARE(cells.back().id, QString("b_gloo_cpu_ws2_r1"));
    }

    void idsNeverLeaveTheResultsDirectory_data() {
        QTest::addColumn<QString>("name");
        QTest::newRow("dotdot") << "../../etc/passwd";
        QTest::newRow("slash") << "a/b";
        QTest::newRow("absolute") << "/tmp/x";
        QTest::newRow("dots only") << "..";
        QTest::newRow("spaces and unicode") << "mlp 10M \u00e9 \u2603";
    }
    void idsNeverLeaveTheResultsDirectory() {
        QFETCH(QString, name);
        const matrix::Matrix m =
            parse(QString("name: t\nmodels: [{name: '%1', params: 1e6}]\nlayers: [{name: "
                          "gloo_cpu}]\nworld_sizes: [1]\n")
                      .arg(name));
        const auto cells = matrix::expand(m, {0});
        const QString id = cells.at(0).id;
        QVERIFY2(!id.contains('/') && !id.contains("..") && !id.contains(' '), qPrintable(id));
        QVERIFY(QRegularExpression("^[a-z0-9_]+$").match(id).hasMatch());
        QTemporaryDir out;
        const QString path = QDir(out.path()).filePath("cells/" + id);
        QVERIFY(QDir::cleanPath(path).startsWith(QDir::cleanPath(out.path()) + "/cells/"));
    }

    void badMatricesGiveFileLineColumn_data() {
        QTest::addColumn<QString>("file");
        QTest::addColumn<int>("line");
        QTest::addColumn<int>("column");
        QTest::addColumn<QString>("key");
        QTest::addColumn<QString>("text");
        QFile f(COMMPROF_TEST_DATA "/bad_matrices/EXPECTED");
        QVERIFY(f.open(QIODevice::ReadOnly));
        int rows = 0;
        for (const QByteArray& raw : f.readAll().split('\n')) {
            const QString line = QString::fromUtf8(raw).trimmed();
            if (line.isEmpty() || line.startsWith('#')) {
                continue;
            }
            const QStringList parts = line.split(QRegularExpression("\\s+"));
            QTest::newRow(qPrintable(parts[0])) << parts[0] << parts[1].toInt() << parts[2].toInt()
                                                << parts[3] << QStringList(parts.mid(4)).join(' ');
            ++rows;
        }
        QVERIFY(rows >= 12);
    }
    void badMatricesGiveFileLineColumn() {
        QFETCH(QString, file);
        QFETCH(int, line);
        QFETCH(int, column);
        QFETCH(QString, key);
        QFETCH(QString, text);
        const QString path = COMMPROF_TEST_DATA "/bad_matrices/" + file;
        const CliResult r = runCli("commprof", {"plan", path, "--gpus", "1", "--json"});
        QCOMPARE(r.exitCode, 2);
        QVERIFY(r.out.isEmpty());
        const QString expect = QString("%1:%2:%3: %4: ").arg(path).arg(line).arg(column).arg(key);
        QVERIFY2(QString(r.err).contains(expect),
                 qPrintable(QString(r.err) + "\nexpected: " + expect));
        QVERIFY2(QString(r.err).contains(text), qPrintable(r.err));
    }

    void runRejectsABadMatrixBeforeWritingAnything() {
        QTemporaryDir out;
        const CliResult r = runCli(
            "commprof", {"run", COMMPROF_TEST_DATA "/bad_matrices/02_negative_world_size.yaml",
                         "--out", out.filePath("r")});
        QCOMPARE(r.exitCode, 2);
        QVERIFY(!QFile::exists(out.filePath("r")));
    }

    void baseParses() { QCOMPARE(matrix::expand(parse(kBase), {0}).size(), std::size_t(2)); }

    // Keys that are lists or mappings: an error at the key in the designer's parser (the same
    // core function), in plan (bad_matrices 16-18) and in run, never an abort.
    void keysThatAreNotNamesAreErrorsEverywhere_data() {
        QTest::addColumn<QString>("yaml");
        QTest::addColumn<int>("line");
        QTest::addColumn<int>("column");
        QTest::newRow("complex key") << QString("name: t\n? [a, b]\n: 1\n") << 2 << 3;
        QTest::newRow("flow list key") << QString("{[x]: 1}\n") << 1 << 2;
        QTest::newRow("inside a model")
            << QString("name: t\nmodels: [{name: m, params: 1e6, [p]: 1}]\nlayers: [{name: "
                       "gloo_cpu}]\nworld_sizes: [1]\n")
            << 2 << 33;
    }
    void keysThatAreNotNamesAreErrorsEverywhere() {
        QFETCH(QString, yaml);
        QFETCH(int, line);
        QFETCH(int, column);
        try {
            parse(yaml);
            QFAIL("no error");
        } catch (const matrix::MatrixError& e) {
            QCOMPARE(e.line, line);
            QCOMPARE(e.column, column);
            QCOMPARE(e.key, QString("key"));
        }
        QTemporaryDir dir;
        const QString path = dir.filePath("keys.yaml");
        QFile f(path);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(yaml.toUtf8());
        f.close();
        const CliResult r = runCli("commprof", {"run", path, "--out", dir.filePath("r")});
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(
            QString(r.err).contains(QString("%1:%2:%3: key: ").arg(path).arg(line).arg(column)),
            r.err.constData());
        QVERIFY(!QFile::exists(dir.filePath("r")));
    }

    // A matrix far above any real one is refused before it is parsed, saying the limit and how
    // to raise it; raised, the same file parses.
    void oversizedMatrixIsRefusedWithItsLimit() {
        QTemporaryDir dir;
        const QString path = dir.filePath("big.yaml");
        QFile f(path);
        QVERIFY(f.open(QIODevice::WriteOnly));
        // A valid matrix made large by a comment: cheap to parse once the limit is raised.
        f.write(kBase.toUtf8() + "# " + QByteArray(3 * 1024 * 1024, 'x') + "\n");
        f.close();
        const CliResult r = runCli("commprof", {"plan", path}, 120000);
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(QString(r.err).contains(path + ":0:0: file: ") &&
                     QString(r.err).contains("above the limit of 2097152 bytes") &&
                     QString(r.err).contains("COMMPROF_MAX_MATRIX_BYTES"),
                 r.err.constData());
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert("COMMPROF_MAX_MATRIX_BYTES", "8388608");
        QCOMPARE(runCli("commprof", {"plan", path}, 120000, env).exitCode, 0);
    }

    // 100 models x 3 layers x 1000 world sizes x 1000 repeats: 300 million cells.
    void tooManyCellsAreRefusedWithTheLimit() {
        QTemporaryDir dir;
        QString sizes;
        for (int ws = 1; ws <= 1000; ++ws) {
            sizes += QString(ws > 1 ? ", %1" : "%1").arg(ws);
        }
        QString models;
        for (int i = 0; i < 100; ++i) {
            models += QString("  - {name: m%1, params: 1e5}\n").arg(i);
        }
        const QString path = dir.filePath("cells.yaml");
        QFile f(path);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(QString("name: many\nrepeats: 1000\nmodels:\n%1layers: [{name: gloo_cpu}, {name: "
                        "gloo_cuda}, {name: nccl}]\nworld_sizes: [%2]\n")
                    .arg(models, sizes)
                    .toUtf8());
        f.close();
        const CliResult r = runCli("commprof", {"plan", path}, 120000);
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(QString(r.err).contains(path + ":1:1: cells: ") &&
                     QString(r.err).contains("= 300000000 before exclusions") &&
                     QString(r.err).contains("above the limit of 1000000") &&
                     QString(r.err).contains("COMMPROF_MAX_CELLS"),
                 r.err.constData());
        // The limit is the user's to move: 2 x 2 cells against a limit of 3, then of 4.
        const QString small = dir.filePath("small.yaml");
        QFile s(small);
        QVERIFY(s.open(QIODevice::WriteOnly));
        s.write("name: small\nmodels: [{name: a, params: 1e5}, {name: b, params: 1e5}]\n"
                "layers: [{name: gloo_cpu}]\nworld_sizes: [1, 2]\n");
        s.close();
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert("COMMPROF_MAX_CELLS", "3");
        const CliResult low = runCli("commprof", {"plan", small}, 60000, env);
        QCOMPARE(low.exitCode, 2);
        QVERIFY2(QString(low.err).contains("above the limit of 3"), low.err.constData());
        env.insert("COMMPROF_MAX_CELLS", "4");
        QCOMPARE(runCli("commprof", {"plan", small}, 60000, env).exitCode, 0);
    }

    // The default limit leaves room for the large matrices the workbench is used with.
    void hundredThousandCellsPlan() {
        QString sizes;
        for (int ws = 1; ws <= 100; ++ws) {
            sizes += QString(ws > 1 ? ", %1" : "%1").arg(ws);
        }
        QString models;
        for (int i = 0; i < 100; ++i) {
            models += QString("  - {name: m%1, params: 1e5}\n").arg(i);
        }
        const matrix::Matrix m =
            parse(QString("name: k100\nrepeats: 10\nmodels:\n%1layers: [{name: gloo_cpu}]\n"
                          "world_sizes: [%2]\n")
                      .arg(models, sizes));
        QCOMPARE(matrix::expand(m, {0}).size(), std::size_t(100000));
    }

    // A device or a FIFO named as a matrix is refused at once, never read until memory runs out
    // or a writer comes.
    void onlyRegularFilesAreRead() {
        QTemporaryDir dir;
        const QString fifo = dir.filePath("matrix.yaml");
        QVERIFY(::mkfifo(fifo.toLocal8Bit().constData(), 0600) == 0);
        for (const QString& path : {QString("/dev/zero"), fifo}) {
            const CliResult r = runCli("commprof", {"plan", path}, 60000);
            QCOMPARE(r.exitCode, 2);
            QVERIFY2(QString(r.err).contains(path + ":0:0: file: not a regular file"),
                     r.err.constData());
        }
    }

    // The matrix name becomes a results folder in the workbench (results/<name>): like a cell
    // id it is one safe path component, whatever the YAML says.
    void matrixNameNeverLeavesTheResultsFolder_data() {
        QTest::addColumn<QString>("name");
        QTest::newRow("dotdot") << "../../x";
        QTest::newRow("absolute") << "/tmp/commprof-elsewhere";
        QTest::newRow("dots only") << "..";
    }
    void matrixNameNeverLeavesTheResultsFolder() {
        QFETCH(QString, name);
        const matrix::Matrix m =
            parse(QString("name: '%1'\nmodels: [{name: m, params: 1e6}]\nlayers: [{name: "
                          "gloo_cpu}]\nworld_sizes: [1]\n")
                      .arg(name));
        QVERIFY2(QRegularExpression("^[a-z0-9_]+$").match(m.name).hasMatch(), qPrintable(m.name));
        const QString results = QDir::cleanPath(QDir("results").absolutePath());
        QVERIFY(QDir::cleanPath(QDir(results).absoluteFilePath(m.name)).startsWith(results + "/"));
    }
};

QTEST_GUILESS_MAIN(TstMatrix)
#include "tst_matrix.moc"
