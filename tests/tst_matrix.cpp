// SPDX-License-Identifier: GPL-3.0-or-later
// The matrix: parsing, expansion, safe ids, and errors that point at file:line:col.

#include "cli_runner.h"
#include "feasibility/plan.h"
#include "matrix/matrix.h"

#include <QJsonDocument>
#include <QRegularExpression>
#include <algorithm>

#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QTemporaryDir>
#include <QTest>

#include <sys/stat.h>

using namespace commprof;

namespace {

matrix::Matrix parse(const QString& yaml) {
    return matrix::parseMatrix(yaml.toUtf8(), "inline.yaml");
}

matrix::MatrixError parseError(const QByteArray& yaml) {
    try {
        matrix::parseMatrix(yaml, "inline.yaml");
    } catch (const matrix::MatrixError& e) {
        return e;
    }
    return matrix::MatrixError("none", 0, 0, "none", "parsed without an error");
}

// 1-based line and column of the first `token` in `text`, counted here by hand.
std::pair<int, int> positionOf(const QByteArray& text, const QByteArray& token) {
    const qsizetype at = text.indexOf(token);
    const qsizetype lineStart = text.lastIndexOf('\n', at) + 1;
    return {int(text.left(at).count('\n')) + 1, int(at - lineStart) + 1};
}

QStringList idsOf(const std::vector<matrix::Cell>& cells) {
    QStringList ids;
    for (const matrix::Cell& c : cells) {
        ids << c.id;
    }
    return ids;
}

bool writeText(const QString& path, const QByteArray& bytes) {
    QFile f(path);
    return f.open(QIODevice::WriteOnly) && f.write(bytes) == bytes.size();
}

// 100 models x 100 world sizes x `repeats` over gloo_cpu: 10,000 cells a repeat, from a
// matrix of a few kilobytes.
QByteArray manyCellMatrix(int repeats) {
    QByteArray text = "name: many\nrepeats: " + QByteArray::number(repeats) +
                      "\nlayers: [{name: gloo_cpu}]\nworld_sizes: [";
    for (int ws = 1; ws <= 100; ++ws) {
        text += (ws > 1 ? ", " : "") + QByteArray::number(ws);
    }
    text += "]\nmodels:\n";
    for (int i = 0; i < 100; ++i) {
        text += "  - {name: m" + QByteArray::number(i) + ", params: 1e5}\n";
    }
    return text;
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
        QVERIFY(writeText(path, yaml.toUtf8()));
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
        // A valid matrix made large by a comment: cheap to parse once the limit is raised.
        QVERIFY(writeText(path, kBase.toUtf8() + "# " + QByteArray(3 * 1024 * 1024, 'x') + "\n"));
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
        QVERIFY(writeText(path, QString("name: many\nrepeats: 1000\nmodels:\n%1layers: [{name: "
                                        "gloo_cpu}, {name: gloo_cuda}, {name: nccl}]\nworld_sizes: "
                                        "[%2]\n")
                                    .arg(models, sizes)
                                    .toUtf8()));
        const CliResult r = runCli("commprof", {"plan", path}, 120000);
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(QString(r.err).contains(path + ":1:1: cells: ") &&
                     QString(r.err).contains("= 300000000 before exclusions") &&
                     QString(r.err).contains("above the limit of 1000000") &&
                     QString(r.err).contains("COMMPROF_MAX_CELLS"),
                 r.err.constData());
        // The limit is the user's to move: 2 x 2 cells against a limit of 3, then of 4.
        const QString small = dir.filePath("small.yaml");
        QVERIFY(writeText(small, "name: small\nmodels: [{name: a, params: 1e5}, {name: b, params: "
                                 "1e5}]\nlayers: [{name: gloo_cpu}]\nworld_sizes: [1, 2]\n"));
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

    // plan --json writes its cells as it places them; the text is the document Qt makes of
    // the whole plan held at once, byte for byte (sweeps, DDP lists and exclusions included).
    void planJsonStreamsTheWholePlansDocument() {
        QTemporaryDir dir;
        const QString path = dir.filePath("m.yaml");
        QVERIFY(writeText(path, "name: s\ndefaults: {bucket_cap_mb: [1, 25], hook: allreduce}\n"
                                "models:\n  - {name: a, params: 1e6, hook: [allreduce, local]}\n"
                                "  - {name: b, params: 2e6}\n  - {name: sw, kind: sweep}\n"
                                "layers: [{name: gloo_cpu}, {name: gloo_cuda}]\n"
                                "world_sizes: [1, 2]\nexclude: [{model: b, world_size: 2}]\n"));
        const CliResult r = runCli("commprof", {"plan", path, "--json", "--host-budget-gib", "64",
                                                "--device-budget-gib", "16", "--gpus", "2"});
        QCOMPARE(r.exitCode, 0);
        feasibility::PlanOptions options;
        options.overrides.hostGib = 64;
        options.overrides.deviceGib = 16;
        options.overrides.gpus = 2;
        const feasibility::Plan held = feasibility::makePlan(path, options);
        // a: 2 layers x 2 world sizes x 2 caps x 2 hooks, b: 8 less its 4 at world size 2,
        // the sweep: 2 x 2.
        QCOMPARE(held.cells.size(), std::size_t(16 + 4 + 4));
        const QJsonObject whole = feasibility::toJson(held);
        QCOMPARE(QJsonDocument::fromJson(r.out).object(), whole);
        QCOMPARE(r.out, QJsonDocument(whole).toJson(QJsonDocument::Indented));
        // An empty plan (every cell excluded) is the same document too.
        QVERIFY(writeText(path, kBase.toUtf8() + "exclude: [{model: m}]\n"));
        const CliResult none =
            runCli("commprof", {"plan", path, "--json", "--host-budget-gib", "64",
                                "--device-budget-gib", "16", "--gpus", "0"});
        QCOMPARE(none.exitCode, 0);
        options.overrides.gpus = 0;
        QCOMPARE(none.out, QJsonDocument(feasibility::toJson(feasibility::makePlan(path, options)))
                               .toJson(QJsonDocument::Indented));
    }

    // A plan is held one cell at a time: 200,000 cells under a 1 GiB address space (holding
    // them took 2.5 GB; a million, 8 GiB and bad_alloc). Counted as they stream through a
    // pipe; the campaign plans the documented million.
    void manyCellsPlanInBoundedMemory() {
        QTemporaryDir dir;
        const QString path = dir.filePath("many.yaml");
        QVERIFY(writeText(path, manyCellMatrix(20)));
        const CliResult r = runProgram(
            "bash",
            {"-c",
             "ulimit -v 1048576; \"$0\" plan --json \"$1\" --host-budget-gib 64 --gpus 0 | awk "
             "'/^            \"id\": / {n++; if (n == 1) first = $2; last = $2} END {print n, "
             "first, last}'; exit ${PIPESTATUS[0]}",
             COMMPROF_BIN_DIR "/commprof", path},
            300000);
        QVERIFY2(r.exitCode == 0, r.err.constData());
        QCOMPARE(QString(r.out).trimmed(),
                 QString("200000 \"m0_gloo_cpu_ws1_r0\", \"m99_gloo_cpu_ws100_r19\","));
    }

    // Each rule excludes the cells whose every named key takes its value, the setting read
    // from the cell's config where it is no axis, never from a sweep (which has none): checked
    // against a plain walk over the rules, with rules of several key sets.
    void excludeRulesMatchAsAPlainWalkDoes() {
        const QString head =
            "name: x\ndefaults: {bucket_cap_mb: [1, 25]}\nmodels:\n"
            "  - {name: a, params: 1e6, hook: [allreduce, powersgd]}\n"
            "  - {name: b, params: 1e6}\n  - {name: s, kind: sweep}\n"
            "layers: [{name: gloo_cpu}, {name: gloo_cuda}]\nworld_sizes: [1, 2, 3]\n";
        const std::vector<std::vector<std::pair<QString, QString>>> rules{
            {{"model", "a"}, {"world_size", "1"}},
            {{"layer", "gloo_cuda"}, {"world_size", "2"}},
            {{"bucket_cap_mb", "25"}, {"hook", "powersgd"}},
            {{"hook", "allreduce"}, {"world_size", "3"}},
            {{"model", "s"}, {"bucket_cap_mb", "1"}},
            {{"model", "b"}, {"layer", "gloo_cpu"}, {"world_size", "1"}},
            {{"model", "b"}, {"layer", "gloo_cpu"}, {"world_size", "2"}},
        };
        QString exclude = "exclude:\n";
        for (const auto& rule : rules) {
            QStringList parts;
            for (const auto& [k, v] : rule) {
                parts << k + ": " + v;
            }
            exclude += "  - {" + parts.join(", ") + "}\n";
        }
        const auto setting = [](const matrix::Cell& c, const QString& key) -> QString {
            if (key == "model") {
                return c.model.name;
            }
            if (key == "layer") {
                return c.layer.name;
            }
            if (key == "world_size") {
                return QString::number(c.worldSize);
            }
            if (c.isSweep()) {
                return {};
            }
            return key == "hook" ? c.config.hook : QString::number(c.config.bucketCapMb);
        };
        QStringList expected;
        for (const matrix::Cell& c : matrix::expand(parse(head), {0})) {
            const bool out = std::any_of(rules.begin(), rules.end(), [&](const auto& rule) {
                return std::all_of(rule.begin(), rule.end(), [&](const auto& kv) {
                    return setting(c, kv.first) == kv.second;
                });
            });
            if (!out) {
                expected << c.id;
            }
        }
        // By hand: of a's 24 cells, 3 at world size 2 on gloo_cpu (not cap 25 with powersgd)
        // and 2 at 3 (powersgd, cap 1); of b's 12, the 2 at 1 on gloo_cuda; of the sweep's 6,
        // all but gloo_cuda at 2.
        QCOMPARE(expected.size(), 5 + 2 + 5);
        QCOMPARE(idsOf(matrix::expand(parse(head + exclude), {0})), expected);
        // The cell-count limit counts the same cells without visiting them: 12 pass a limit of
        // 12 and are refused at 11.
        QCOMPARE(matrix::expand(parse(head + exclude), {0, 12}).size(), std::size_t(12));
        QVERIFY_THROWS_EXCEPTION(matrix::MatrixError,
                                 matrix::expand(parse(head + exclude), {0, 11}));
    }

    // Issue 41: three 1,000-value lists are 10^9 combinations. Rules that leave 10 of them, or
    // none, are decided without visiting the combinations: plan answers at once, where it ran
    // for minutes testing every combination against the rules. The 10 cells by hand.
    void billionCombinationsCutToTenPlanAtOnce() {
        QStringList values;
        for (int v = 1; v <= 1000; ++v) {
            values << QString::number(v);
        }
        const QString list = "[" + values.join(", ") + "]";
        const QString head = "name: huge\ndefaults: {batch_size: " + list +
                             ", bucket_cap_mb: " + list + ", first_bucket_mb: " + list +
                             "}\nmodels: [{name: m, params: 1e6}]\nlayers: [{name: gloo_cpu}]\n"
                             "world_sizes: [1]\nexclude:\n";
        QString tenLeft;
        for (int v = 2; v <= 1000; ++v) {
            tenLeft += QString("  - {bucket_cap_mb: %1}\n  - {first_bucket_mb: %1}\n").arg(v);
            tenLeft += v > 10 ? QString("  - {batch_size: %1}\n").arg(v) : QString();
        }
        QTemporaryDir dir;
        const QString ten = dir.filePath("ten.yaml");
        const QString none = dir.filePath("none.yaml");
        QVERIFY(writeText(ten, (head + tenLeft).toUtf8()));
        QVERIFY(writeText(none, (head + "  - {hook: allreduce}\n").toUtf8()));
        QStringList expected;
        for (int b = 1; b <= 10; ++b) {
            expected << QString("m_gloo_cpu_ws1_b%1_cap1_first1_r0").arg(b);
        }
        for (const auto& [path, ids] : {std::pair{ten, expected}, std::pair{none, QStringList{}}}) {
            QElapsedTimer clock;
            clock.start();
            const CliResult r = runCli("commprof", {"plan", path, "--json", "--gpus", "0"}, 300000);
            QVERIFY2(r.exitCode == 0, r.err.constData());
            QStringList got;
            for (const QJsonValue c : r.json()["cells"].toArray()) {
                got << c["id"].toString();
            }
            QCOMPARE(got, ids);
            qInfo("%s: %lld ms", qPrintable(QFileInfo(path).fileName()), clock.elapsed());
        }
    }

    // Issue 41: values apart beyond twelve digits stay apart, each cell with its own value;
    // the same number written twice is named as written (bad_matrices 28).
    void valuesApartBeyondTwelveDigitsAreTwoCells() {
        const auto cells = matrix::expand(
            parse("name: t\ndefaults: {bucket_cap_mb: [0.1000000000001, 0.1000000000002]}\n"
                  "models: [{name: m, params: 1e6}]\nlayers: [{name: gloo_cpu}]\n"
                  "world_sizes: [1]\n"),
            {0});
        QCOMPARE(idsOf(cells), QStringList({"m_gloo_cpu_ws1_cap0p1000000000001_r0",
                                            "m_gloo_cpu_ws1_cap0p1000000000002_r0"}));
        QCOMPARE(cells[0].config.bucketCapMb, 0.1000000000001);
        QCOMPARE(cells[1].config.bucketCapMb, 0.1000000000002);
    }

    // Only hashes of the ids are kept while expanding: two cells with one id are still refused,
    // by the walk back to the earlier one (a matrix the parser would refuse, built here).
    void twoCellsWithOneIdAreRefused() {
        matrix::Matrix m = parse(kBase);
        m.models.push_back(m.models.front());
        try {
            matrix::expand(m, {0});
            QFAIL("no error");
        } catch (const matrix::MatrixError& e) {
            QVERIFY2(QString(e.what()).contains("two cells would share the id 'm_gloo_cpu_ws1_r0'"),
                     e.what());
        }
        m.models.back().name = "n";
        QCOMPARE(matrix::expand(m, {0}).size(), std::size_t(4));
    }

    // A second document was dropped without a word; now it is an error where it begins.
    void aSecondYamlDocumentIsRefusedWhereItBegins_data() {
        QTest::addColumn<QByteArray>("yaml");
        QTest::addColumn<QByteArray>("at");
        QTest::newRow("another matrix")
            << (kBase.toUtf8() + "---\nname: u\n") << QByteArray("name: u");
        QTest::newRow("an empty one")
            << (kBase.toUtf8() + "---\n# nothing\n") << QByteArray("# nothing");
        QTest::newRow("after an explicit start")
            << ("--- # the matrix\n" + kBase.toUtf8() + "--- [7, 8]\n") << QByteArray("[7, 8]");
    }
    void aSecondYamlDocumentIsRefusedWhereItBegins() {
        QFETCH(QByteArray, yaml);
        QFETCH(QByteArray, at);
        const matrix::MatrixError e = parseError(yaml);
        QCOMPARE(e.key, QString("document"));
        QVERIFY2(QString(e.what()).contains("a second YAML document"), e.what());
        const auto [line, column] = positionOf(yaml, at);
        if (at.startsWith('#')) {
            // An empty document has no node of its own: at or after its '---'.
            QVERIFY2(e.line >= line - 1, e.what());
        } else {
            QCOMPARE(std::make_pair(e.line, e.column), std::make_pair(line, column));
        }
    }

    // A NUL (a "\0" escape) or bytes that are not UTF-8 never become a name: an error at the
    // value, or at the key, naming what it is.
    void nulAndInvalidUtf8AreRefusedAtTheValue_data() {
        QTest::addColumn<QByteArray>("yaml");
        QTest::addColumn<QByteArray>("at");
        QTest::addColumn<QString>("key");
        QTest::addColumn<QString>("text");
        const QByteArray base = kBase.toUtf8();
        QTest::newRow("NUL escape in a model name")
            << QByteArray(base).replace("name: m,", "name: \"ti\\0ny\",")
            << QByteArray("\"ti\\0ny\"") << "name"
            << "NUL character (byte 3";
        QTest::newRow("NUL escape in the matrix name")
            << QByteArray(base).replace("name: t\n", "name: \"a\\x00b\"\n")
            << QByteArray("\"a\\x00b\"") << "name"
            << "NUL character (byte 2";
        QTest::newRow("raw 0xff in a model name")
            << QByteArray(base).replace("name: m,", "name: ti\xffny,") << QByteArray("ti\xffny")
            << "name"
            << "not UTF-8";
        QTest::newRow("overlong '/' in the matrix name")
            << QByteArray(base).replace("name: t\n", "name: a\xc0\xaf"
                                                     "b\n")
            << QByteArray("a\xc0\xaf") << "name"
            << "not UTF-8";
        QTest::newRow("a surrogate in a layer name")
            << QByteArray(base).replace("{name: gloo_cpu}", "{name: gloo\xed\xa0\x80}")
            << QByteArray("gloo\xed") << "name"
            << "not UTF-8";
        QTest::newRow("a key that is not UTF-8")
            << (base + "r\xe9peats: 2\n") << QByteArray("r\xe9peats") << "key"
            << "not UTF-8";
    }
    void nulAndInvalidUtf8AreRefusedAtTheValue() {
        QFETCH(QByteArray, yaml);
        QFETCH(QByteArray, at);
        QFETCH(QString, key);
        QFETCH(QString, text);
        const matrix::MatrixError e = parseError(yaml);
        QCOMPARE(e.key, key);
        QVERIFY2(QString(e.what()).contains(text), e.what());
        const auto [line, column] = positionOf(yaml, at);
        QCOMPARE(e.line, line);
        QCOMPARE(e.column, column);
    }

    // What the campaign found clean stays so: an alias stands for its anchor's value, a UTF-8
    // BOM and CRLF line ends read as plain text (errors keep their line and column), and a
    // merge key, which yaml-cpp leaves as a plain key, is an error at its line, never unread.
    void aliasesBomAndCrlfReadAsPlainText() {
        const QByteArray plain =
            "name: t\ndefaults: {iterations: 12, warmup: 2}\nmodels: [{name: m, params: 1e6}]\n"
            "layers: [{name: gloo_cpu, overrides: {iterations: 12, warmup: 2}}, {name: "
            "gloo_cuda}]\n"
            "world_sizes: [1, 2]\n";
        const QByteArray aliased =
            "name: t\ndefaults: &run {iterations: 12, warmup: 2}\nmodels: [{name: m, params: "
            "1e6}]\n"
            "layers: [{name: gloo_cpu, overrides: *run}, {name: gloo_cuda}]\n"
            "world_sizes: &ws [1, 2]\n";
        const QByteArray crlf = QByteArray(aliased).replace("\n", "\r\n");
        const QByteArray bom = "\xef\xbb\xbf" + crlf;
        const auto cells = matrix::expand(matrix::parseMatrix(plain, "p.yaml"), {0});
        for (const QByteArray& variant : {aliased, crlf, bom}) {
            const auto other = matrix::expand(matrix::parseMatrix(variant, "v.yaml"), {0});
            QCOMPARE(idsOf(other), idsOf(cells));
            QCOMPARE(other.front().layer.overrides->iterations, 12);
            QCOMPARE(other.back().config.warmup, 2);
        }
        const QByteArray bad =
            QByteArray(plain).replace("world_sizes: [1, 2]", "world_sizes: [1, -2]");
        const auto [line, column] = positionOf(bad, "-2");
        for (const QByteArray& variant :
             {bad, QByteArray(bad).replace("\n", "\r\n"), "\xef\xbb\xbf" + bad}) {
            const matrix::MatrixError e = parseError(variant);
            QCOMPARE(e.key, QString("world_sizes"));
            QCOMPARE(std::make_pair(e.line, e.column), std::make_pair(line, column));
        }
        const QByteArray merge =
            "name: t\ndefaults:\n  <<: {iterations: 12, warmup: 2}\n"
            "models: [{name: m, params: 1e6}]\nlayers: [{name: gloo_cpu}]\nworld_sizes: [1]\n";
        const matrix::MatrixError e = parseError(merge);
        QCOMPARE(e.key, QString("<<"));
        QVERIFY2(QString(e.what()).contains("merge keys are not supported"), e.what());
        QCOMPARE(e.line, 3);
        QCOMPARE(e.column, 3);
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
