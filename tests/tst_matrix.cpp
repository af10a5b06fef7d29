// The matrix: parsing, expansion, safe ids, and errors that point at file:line:col.

#include "cli_runner.h"
#include "feasibility/plan.h"
#include "matrix/matrix.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QTemporaryDir>
#include <QTest>

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
        QCOMPARE(cells.size(), std::size_t(2));
        QCOMPARE(cells[0].id, QString("mlp2m_gloo_cpu_ws1_r0"));
        QCOMPARE(cells[1].id, QString("mlp2m_gloo_cpu_ws2_r0"));
        QCOMPARE(cells[1].layer.interconnect, QString("host_loopback"));
        QVERIFY(cells[0].config.trace.enabled);
        QCOMPARE(cells[0].config.trace.firstStep, 10);
    }

    void fullStudyCoversModelsLayersWorldSizes() {
        const auto cells = matrix::expand(
            matrix::loadMatrix(COMMPROF_SOURCE_DIR "/configs/experiments/full.yaml"), {1});
        // 3 models x (gloo_cpu 5 + gloo_cuda 5 + nccl 1)
        QCOMPARE(cells.size(), std::size_t(33));
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
};

QTEST_GUILESS_MAIN(TstMatrix)
#include "tst_matrix.moc"
