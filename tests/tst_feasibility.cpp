// SPDX-License-Identifier: GPL-3.0-or-later
// Per-pool feasibility: which pools a cell draws on, the reference study's numbers, and the
// plan JSON of docs/cli.md.

#include "cli_runner.h"
#include "feasibility/machine_profile.h"
#include "feasibility/plan.h"
#include "host_cells.h"
#include "matrix/matrix.h"

#include <QJsonArray>
#include <QTemporaryDir>
#include <QTemporaryFile>
#include <QTest>
#include <QThread>

using namespace commprof;

namespace {

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

QJsonObject cellById(const QJsonObject& plan, const QString& id) {
    for (const QJsonValue v : plan["cells"].toArray()) {
        if (v.toObject()["id"].toString() == id) {
            return v.toObject();
        }
    }
    return {};
}

QJsonObject referencePlan() {
    const CliResult r = runCli(
        "commprof", {"plan", COMMPROF_SOURCE_DIR "/configs/experiments/full.yaml", "--profile",
                     COMMPROF_SOURCE_DIR "/configs/machines/reference_wsl_rtx5070.yaml", "--json"});
    return r.exitCode == 0 ? r.json() : QJsonObject{};
}

} // namespace

// Three models, one with exclusions: what replan() may take from an earlier plan.
const QString kReplanBase = "name: r\n"
                            "models:\n"
                            "  - {name: a, params: 1e6}\n"
                            "  - {name: b, params: 2e6}\n"
                            "  - {name: big, params: 3e8}\n"
                            "layers: [{name: gloo_cpu}]\n"
                            "world_sizes: [1, 2]\n"
                            "repeats: 2\n"
                            "exclude: [{model: a, world_size: 2}]\n";

class TstFeasibility : public QObject {
    Q_OBJECT
private slots:
    // A budget someone set is taken from the first that set it: the command line, the
    // profile, then the matrix's budget section less its reserve. The probe is not asked.
    void aSetBudgetComesFromWhoSetItFirst() {
        struct Case {
            const char* name;
            bool cli, profile, profileDevice; // who sets a budget (the profile: its device's too)
            double hostGib;
            QString hostSource;
            double deviceGib;
            QString deviceSource;
        };
        // The matrix's 8 and 12 GiB less its 1.5 GiB reserve where no one else set them.
        const QString matrixHost = "matrix budget.host_gib minus 1.5 GiB reserve";
        const QString matrixDevice = "matrix budget.device_gib minus 1.5 GiB reserve";
        const Case cases[] = {
            {"command line", true, true, true, 16, "--host-budget-gib", 40, "--device-budget-gib"},
            {"profile", false, true, true, 4, "profile lab", 20, "profile lab"},
            {"profile, host only", false, true, false, 4, "profile lab", 10.5, matrixDevice},
            {"matrix", false, false, false, 6.5, matrixHost, 10.5, matrixDevice}};
        matrix::Matrix m;
        m.budget.hostGib = 8;
        m.budget.deviceGib = 12;
        m.budget.reserveGib = 1.5;
        for (const Case& c : cases) {
            feasibility::MachineProfile lab;
            lab.name = "lab";
            lab.hostGib = 4;
            lab.deviceGib = c.profileDevice ? std::optional<double>(20) : std::nullopt;
            feasibility::BudgetOverrides flags;
            flags.hostGib = c.cli ? std::optional<double>(16) : std::nullopt;
            flags.deviceGib = c.cli ? std::optional<double>(40) : std::nullopt;
            const feasibility::MachineBudget b = feasibility::resolveBudget(
                m, c.profile ? &lab : nullptr, flags, feasibility::MachineFacts{});
            QVERIFY2(qFuzzyCompare(b.hostBytes / kGiB, c.hostGib), c.name);
            QCOMPARE(b.hostSource, c.hostSource);
            QVERIFY2(qFuzzyCompare(b.deviceBytes / kGiB, c.deviceGib), c.name);
            QCOMPARE(b.deviceSource, c.deviceSource);
        }
    }

    void cpuCellsDrawOnTheHostOnly() {
        const QJsonObject plan = referencePlan();
        QVERIFY(!plan.isEmpty());
        int cpuCells = 0;
        for (const QJsonValue v : plan["cells"].toArray()) {
            const QJsonObject c = v.toObject();
            if (c["layer"].toString() != "gloo_cpu") {
                continue;
            }
            ++cpuCells;
            QVERIFY(!c["pools"].toObject().contains("device"));
            QCOMPARE(c["binding"].toString(), QString("host"));
            for (const QJsonValue t : c["terms"].toArray()) {
                QCOMPARE(t.toObject()["pool"].toString(), QString("host"));
            }
        }
        QCOMPARE(cpuCells, 20); // 3 models and the sweep x 5 world sizes
    }

    void aCudaCellDrawsOnBothPools() {
        const QJsonObject c = cellById(referencePlan(), "mlp10m_gloo_cuda_ws2_r0");
        QVERIFY(c["pools"].toObject()["host"].toObject()["demand_bytes"].toDouble() > 0);
        QVERIFY(c["pools"].toObject()["device"].toObject()["demand_bytes"].toDouble() > 0);
        QStringList terms;
        for (const QJsonValue t : c["terms"].toArray()) {
            terms << t.toObject()["name"].toString();
        }
        QVERIFY(terms.contains("CUDA runtime (host side)"));
        QVERIFY(terms.contains("gloo host staging buffers"));
        QVERIFY(terms.contains("CUDA context"));
        QVERIFY(terms.contains("optimizer state (sgd)"));
    }

    void referenceStudyGlooCudaAtEightRanksIsHostBound() {
        const QJsonObject plan = referencePlan();
        const QJsonObject c8 = cellById(plan, "mlp50m_gloo_cuda_ws8_r0");
        QCOMPARE(c8["feasible"].toBool(), false);
        QCOMPARE(c8["binding"].toString(), QString("host"));
        const double host =
            c8["pools"].toObject()["host"].toObject()["demand_bytes"].toDouble() / kGiB;
        QVERIFY2(std::abs(host - 9.7) < 0.1, qPrintable(QString::number(host)));
        QCOMPARE(c8["pools"].toObject()["host"].toObject()["budget_bytes"].toDouble() / kGiB, 9.34);
        QCOMPARE(cellById(plan, "mlp50m_gloo_cuda_ws4_r0")["feasible"].toBool(), true);
        QCOMPARE(cellById(plan, "mlp10m_gloo_cuda_ws8_r0")["feasible"].toBool(), true);
    }

    void infeasibleCellsAreKeptWithTheirNumbers() {
        const QJsonObject plan = referencePlan();
        QCOMPARE(plan["cells"].toArray().size(), 44);
        const QJsonObject c = cellById(plan, "mlp400m_gloo_cuda_ws16_r0");
        QCOMPARE(c["feasible"].toBool(), false);
        QCOMPARE(c["binding"].toString(), QString("device"));
        QVERIFY(c["reason"].toString().contains("device demand"));
    }

    void adamNeedsMoreThanSgd() {
        matrix::Cell cell = glooCpuCell(1e7, 2);
        const feasibility::MachineBudget budget = hostBudget64GiB();
        const feasibility::Coefficients k;
        const double sgd = feasibility::estimate(cell, k, budget).host.total();
        cell.config.optimizer = "adam";
        const double adam = feasibility::estimate(cell, k, budget).host.total();
        QCOMPARE(adam - sgd, 2 * 1e7 * 4.0);
    }

    void noGpuMakesCudaCellsInfeasibleNotErrors() {
        const CliResult r = runCli(
            "commprof", {"plan", COMMPROF_SOURCE_DIR "/configs/experiments/smoke_gloo_cuda.yaml",
                         "--gpus", "0", "--host-budget-gib", "16", "--json"});
        QCOMPARE(r.exitCode, 0);
        for (const QJsonValue v : r.json()["cells"].toArray()) {
            QCOMPARE(v.toObject()["feasible"].toBool(), false);
            QCOMPARE(v.toObject()["binding"].toString(), QString("device"));
        }
    }

    // A sweep asks 256 MiB at world size 4 on a 2 GiB host budget: 4 x 163 MiB of process
    // baseline leave 1396 MiB for 4 ranks x 3 buffers, at most 116 MiB each, so it stops at
    // 64 MiB, the largest power of two that fits; at 0.5 GiB even 8 B do not fit after the
    // baseline, and the cell is infeasible with the numbers of what was asked.
    void sweepIsCappedToTheBudget() {
        QTemporaryDir dir;
        const QString path = dir.filePath("sweep.yaml");
        QFile f(path);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("name: s\nmodels: [{name: sweep, kind: sweep}]\nlayers: [{name: gloo_cpu}]\n"
                "world_sizes: [4]\n");
        f.close();
        const auto plan = [&](const char* gib) {
            const CliResult r = runCli(
                "commprof", {"plan", path, "--host-budget-gib", gib, "--gpus", "0", "--json"});
            return r.json()["cells"].toArray()[0].toObject();
        };
        const QJsonObject capped = plan("2");
        QVERIFY(capped["feasible"].toBool());
        QCOMPARE(capped["sweep"].toObject()["max_bytes"].toDouble(), 64.0 * 1024 * 1024);
        QCOMPARE(capped["sweep"].toObject()["requested_max_bytes"].toDouble(), 256.0 * 1024 * 1024);
        const QJsonObject roomy = plan("64");
        QCOMPARE(roomy["sweep"].toObject()["max_bytes"].toDouble(), 256.0 * 1024 * 1024);
        QVERIFY(!roomy["sweep"].toObject().contains("requested_max_bytes"));
        const QJsonObject none = plan("0.5");
        QVERIFY(!none["feasible"].toBool());
        QCOMPARE(none["sweep"].toObject()["max_bytes"].toDouble(), 256.0 * 1024 * 1024);
    }

    // Issue 40: a cell with more ranks than the machine has cores is planned, and said to be
    // oversubscribed (its line, and a warning on stderr); a cell that fits is not.
    void planWarnsOfOversubscription() {
        const int cores = QThread::idealThreadCount();
        QTemporaryDir dir;
        const QString path = dir.filePath("over.yaml");
        QFile f(path);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(QString("name: over\nmodels: [{name: tiny, family: mlp, params: 2e5}]\n"
                        "layers: [{name: gloo_cpu}]\nworld_sizes: [1, %1]\n")
                    .arg(cores + 1)
                    .toUtf8());
        f.close();
        const CliResult r = runCli("commprof", {"plan", path, "--host-budget-gib", "1000"});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        const QString over =
            QString("oversubscribed: %1 ranks on %2 cores").arg(cores + 1).arg(cores);
        QString lineOver, lineOne;
        for (const QString& line : QString::fromUtf8(r.out).split('\n')) {
            if (line.startsWith(QString("tiny_gloo_cpu_ws%1_").arg(cores + 1))) {
                lineOver = line;
            } else if (line.startsWith("tiny_gloo_cpu_ws1_")) {
                lineOne = line;
            }
        }
        QVERIFY2(lineOver.contains(over), qPrintable(r.out));
        QVERIFY2(!lineOne.isEmpty() && !lineOne.contains("oversubscribed"), qPrintable(r.out));
        QVERIFY2(r.err.contains("warning: 1 cell(s) run more ranks than this machine's"),
                 r.err.constData());
    }

    void profileWithUnknownCoefficientIsAnError() {
        QTemporaryFile f;
        QVERIFY(f.open());
        f.write("name: bad\ncoefficients:\n  proces_baseline_mib: 1\n");
        f.close();
        const CliResult r =
            runCli("commprof", {"plan", COMMPROF_SOURCE_DIR "/configs/experiments/smoke.yaml",
                                "--profile", f.fileName(), "--json"});
        QCOMPARE(r.exitCode, 2);
        QVERIFY(QString(r.err).contains(f.fileName() + ":3:3"));
    }

    // replan() reuses what an edit left alone; its cells must be makePlan's for the edited text
    // in every field, the lines that errors name included.
    void replanEqualsAFreshPlan_data() {
        QTest::addColumn<QString>("base");
        QTest::addColumn<QString>("edited");
        QTest::addColumn<bool>("same");
        // The defaults' list varies the cap over b's cells only (a fixes its own), so the cap is
        // in every DDP cell's id while b is a DDP model, and in none once b is a sweep.
        const QString kinds = "name: r\n"
                              "defaults: {bucket_cap_mb: [1, 4]}\n"
                              "models:\n"
                              "  - {name: a, params: 1e6, bucket_cap_mb: 25}\n"
                              "  - {name: b, params: 2e6}\n"
                              "layers: [{name: gloo_cpu}]\n"
                              "world_sizes: [1, 2]\n";
        QTest::newRow("a model's kind")
            << kinds << QString(kinds).replace("{name: b, params: 2e6}", "{name: b, kind: sweep}")
            << false;
        QTest::newRow("a comment") << kReplanBase << kReplanBase + "# a note\n" << true;
        QTest::newRow("one model's size")
            << kReplanBase << QString(kReplanBase).replace("params: 2e6", "params: 3e6") << false;
        QTest::newRow("a line above every model")
            << kReplanBase << QString(kReplanBase).replace("name: r\n", "name: r\n# moved\n")
            << false;
        QTest::newRow("a model renamed")
            << kReplanBase << QString(kReplanBase).replace("{name: b,", "{name: c,") << false;
        QTest::newRow("a model's own setting")
            << kReplanBase
            << QString(kReplanBase).replace("{name: b,", "{name: b, bucket_cap_mb: [1, 4],")
            << false;
        QTest::newRow("a world size")
            << kReplanBase << QString(kReplanBase).replace("[1, 2]", "[1, 2, 3]") << false;
    }
    void replanEqualsAFreshPlan() {
        QFETCH(QString, base);
        QFETCH(QString, edited);
        QFETCH(bool, same);
        feasibility::PlanOptions o;
        o.overrides.hostGib = 2.0;
        o.overrides.gpus = 0;
        o.facts = feasibility::MachineFacts{};
        const auto parse = [](const QString& text) {
            return matrix::parseMatrix(text.toUtf8(), "r.yaml");
        };
        const auto previous = feasibility::replan(parse(base), o, nullptr);
        const auto reused = feasibility::replan(parse(edited), o, previous);
        const feasibility::Plan fresh = feasibility::makePlan(parse(edited), o);
        QCOMPARE(reused == previous, same);
        QCOMPARE(feasibility::toJson(*reused), feasibility::toJson(fresh));
        QCOMPARE(reused->cells.size(), fresh.cells.size());
        for (std::size_t i = 0; i < fresh.cells.size(); ++i) {
            QCOMPARE(reused->cells[i].cell.model.line, fresh.cells[i].cell.model.line);
            QVERIFY(reused->cells[i].cell == fresh.cells[i].cell);
        }
    }
};

QTEST_GUILESS_MAIN(TstFeasibility)
#include "tst_feasibility.moc"
