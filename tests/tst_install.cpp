// SPDX-License-Identifier: GPL-3.0-or-later
// `cmake --install` into a temporary prefix, then the installed programs run from a folder
// outside the source and build trees with nothing of the build on PATH: the version, a plan of
// an installed example, a one-cell run, and commprof-rank found beside commprof or on PATH.

#include "cli_runner.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

namespace {

// Only what a user's shell would have: no COMMPROF_RANK, nothing of the build.
CliResult runIn(const QString& cwd, const QString& program, const QStringList& args,
                const QString& path, const QStringList& extraEnv = {}) {
    QProcessEnvironment env;
    for (const QString& e : extraEnv) {
        env.insert(e.section('=', 0, 0), e.section('=', 1));
    }
    env.insert("PATH", path);
    env.insert("HOME", cwd);
    env.insert("LANG", "C.UTF-8");
    return runProgram(program, args, 600000, env, cwd);
}

// Small enough to run in a few seconds: what the rank lookup cases need.
const char* kTinyMatrix = R"(name: tiny
defaults: {iterations: 3, warmup: 1, batch_size: 4, timeout_s: 120}
models: [{name: mlp_tiny, family: mlp, params: 1.0e5}]
layers: [{name: gloo_cpu, backend: gloo, device: cpu}]
world_sizes: [1]
)";

} // namespace

class TstInstall : public QObject {
    Q_OBJECT
    QTemporaryDir prefix_;
    QTemporaryDir elsewhere_; // the working folder: neither the source nor the build tree
    QString bin_;
    QString systemPath_ = "/usr/local/bin:/usr/bin:/bin";

private slots:
    void initTestCase() {
        QVERIFY(prefix_.isValid() && elsewhere_.isValid());
        QVERIFY(!prefix_.path().startsWith(COMMPROF_SOURCE_DIR));
        QVERIFY(!prefix_.path().startsWith(COMMPROF_BINARY_DIR));
        QProcess install;
        install.start(CMAKE_COMMAND,
                      {"--install", COMMPROF_BINARY_DIR, "--prefix", prefix_.path()});
        QVERIFY(install.waitForFinished(300000));
        QVERIFY2(install.exitCode() == 0, install.readAllStandardError().constData());
        bin_ = prefix_.filePath("bin");
    }

    void installsEveryPart() {
        for (const char* f : {
                 "bin/commprof",
                 "bin/commprof-rank",
                 "bin/commprof-workbench",
                 "libexec/commprof/commprof-rank-fork",
                 "libexec/commprof/commprof-report",
                 "share/commprof/configs/experiments/smoke.yaml",
                 "share/commprof/configs/machines/reference_wsl_rtx5070.yaml",
                 "share/doc/commprof/cli.md",
                 "share/doc/commprof/README.md",
                 "share/man/man1/commprof.1",
                 "share/man/man1/commprof-rank.1",
                 "share/man/man1/commprof-workbench.1",
                 "share/bash-completion/completions/commprof",
                 "share/zsh/vendor-completions/_commprof",
                 "share/applications/org.commprof.workbench.desktop",
                 "share/icons/hicolor/scalable/apps/org.commprof.workbench.svg",
                 "share/metainfo/org.commprof.workbench.metainfo.xml",
             }) {
            QVERIFY2(QFileInfo(prefix_.filePath(f)).size() > 0, f);
        }
        // The installed programs link nothing from the build tree.
        QProcess ldd;
        ldd.start("ldd", {prefix_.filePath("bin/commprof"), prefix_.filePath("bin/commprof-rank")});
        ldd.waitForFinished(60000);
        QVERIFY(!ldd.readAllStandardOutput().contains(COMMPROF_BINARY_DIR));
        // Only report draws: commprof itself loads no GUI library (its start-up time).
        QProcess cli;
        cli.start("ldd", {prefix_.filePath("bin/commprof")});
        cli.waitForFinished(60000);
        const QByteArray libs = cli.readAllStandardOutput();
        QVERIFY2(libs.contains("libQt6Core"), libs.constData());
        for (const char* gui : {"libQt6Gui", "libQt6Widgets", "libqcustomplot"}) {
            QVERIFY2(!libs.contains(gui), gui);
        }
    }

    void versionAndHelpFromThePrefix() {
        const QString path = bin_ + ":" + systemPath_;
        const CliResult v = runIn(elsewhere_.path(), bin_ + "/commprof", {"--version"}, path);
        QCOMPARE(v.exitCode, 0);
        QCOMPARE(v.out.trimmed(), QByteArray("commprof " COMMPROF_PROJECT_VERSION));
        for (const char* program : {"commprof-rank", "commprof-workbench"}) {
            const CliResult h = runIn(elsewhere_.path(), bin_ + "/" + program, {"--help"}, path);
            QCOMPARE(h.exitCode, 0);
            QVERIFY(h.out.contains(QByteArray("usage: ") + program));
        }
    }

    void planAndRunAnInstalledExample() {
        const QString path = bin_ + ":" + systemPath_;
        const QString smoke = prefix_.filePath("share/commprof/configs/experiments/smoke.yaml");
        const CliResult plan =
            runIn(elsewhere_.path(), bin_ + "/commprof", {"plan", smoke, "--json"}, path);
        QCOMPARE(plan.exitCode, 0);
        // The example as written: one model at world sizes 1 and 2, a sweep at 1, 2 and 3.
        const QJsonArray cells = QJsonDocument::fromJson(plan.out).object()["cells"].toArray();
        QCOMPARE(cells.size(), 5);
        QCOMPARE(cells[0].toObject()["id"].toString(), QString("mlp2m_gloo_cpu_ws1_r0"));

        const QString out = QDir(elsewhere_.path()).filePath("results");
        const CliResult run =
            runIn(elsewhere_.path(), bin_ + "/commprof",
                  {"run", smoke, "--out", "results", "--only", "mlp2m_gloo_cpu_ws1_r0"}, path);
        QVERIFY2(run.exitCode == 0, run.err.constData());
        const QString cell = out + "/cells/mlp2m_gloo_cpu_ws1_r0";
        QFile manifest(cell + "/manifest.json");
        QVERIFY(manifest.open(QIODevice::ReadOnly));
        // Forked from the run's fork server (the default), through the client installed in libexec.
        const QJsonObject launcher =
            QJsonDocument::fromJson(manifest.readAll()).object()["launcher"].toObject();
        QCOMPARE(launcher["ranks_started_by"].toString(), QString("fork"));
        QFile rank0(cell + "/rank0.json");
        QVERIFY(rank0.open(QIODevice::ReadOnly));
        const QJsonObject r = QJsonDocument::fromJson(rank0.readAll()).object();
        QCOMPARE(r["iterations"].toArray().size(), 30); // smoke.yaml's iterations

        // report runs the drawing program from libexec, with the command line as typed.
        const CliResult report = runIn(elsewhere_.path(), bin_ + "/commprof",
                                       {"report", "results", "--out", "report"}, path);
        QVERIFY2(report.exitCode == 0, report.err.constData());
        QVERIFY(QFileInfo(elsewhere_.filePath("report/cells.csv")).size() > 0);
        QVERIFY(QFileInfo(elsewhere_.filePath("report/time_breakdown.pdf")).size() > 0);
    }

    // The rank worker is found beside commprof, else on PATH, and never in the build tree:
    // with neither, the run refuses to start and names what is missing.
    void rankFoundBesideOrOnPath() {
        QTemporaryDir work;
        QFile m(work.filePath("tiny.yaml"));
        QVERIFY(m.open(QIODevice::WriteOnly));
        m.write(kTinyMatrix);
        m.close();
        // commprof alone in a folder of its own, the rank elsewhere.
        QVERIFY(QDir(work.path()).mkpath("alone") && QDir(work.path()).mkpath("ranks"));
        const QString alone = work.filePath("alone/commprof");
        QVERIFY(QFile::copy(bin_ + "/commprof", alone));
        QVERIFY(QFile::copy(bin_ + "/commprof-rank", work.filePath("ranks/commprof-rank")));
        QFile::setPermissions(work.filePath("ranks/commprof-rank"),
                              QFile::permissions(bin_ + "/commprof-rank"));

        const CliResult none =
            runIn(work.path(), alone, {"run", "tiny.yaml", "--out", "a"}, systemPath_);
        QCOMPARE(none.exitCode, 2);
        QVERIFY2(none.err.contains("commprof-rank"), none.err.constData());

        const CliResult onPath = runIn(work.path(), alone, {"run", "tiny.yaml", "--out", "b"},
                                       work.filePath("ranks") + ":" + systemPath_);
        QVERIFY2(onPath.exitCode == 0, onPath.err.constData());
        QVERIFY(QFile::exists(work.filePath("b/cells/mlp_tiny_gloo_cpu_ws1_r0/manifest.json")));
    }
};

QTEST_GUILESS_MAIN(TstInstall)
#include "tst_install.moc"
