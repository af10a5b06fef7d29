// SPDX-License-Identifier: GPL-3.0-or-later
// `commprof calibrate hooks`: two real gloo ranks of Python's PyTorch measure this machine,
// the result is stored where every what-if here finds it, and the what-if names it. Figures are
// measured, never judged here, except what the hardware allows: shares within 0..1, positive
// costs, and float16 sums in software dearer than float32's (gloo has no float16 vector sum).

#include "cli_runner.h"
#include "ddp_fixtures.h"
#include "python_ranks.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QTest>

using namespace ddp_fixtures;

class TstCalibrateHooks : public QObject {
    Q_OBJECT

    QTemporaryDir work_;

    QProcessEnvironment env() const {
        QProcessEnvironment e = QProcessEnvironment::systemEnvironment();
        e.insert("XDG_DATA_HOME", work_.filePath("data"));
        return e;
    }

private slots:
    void storedAndReadByTheWhatIf() {
        if (!python_ranks::hasTorch()) {
            QSKIP("python3 has no torch");
        }
        const CliResult r = runCli("commprof", {"calibrate", "hooks"}, 300000, env());
        QVERIFY2(r.exitCode == 0, r.err.constData());
        const QString stored = work_.filePath("data/commprof/hook-calibration.json");
        QVERIFY2(r.out.contains(stored.toUtf8()), r.out.constData());
        QFile f(stored);
        QVERIFY(f.open(QIODevice::ReadOnly));
        const QJsonObject c = QJsonDocument::fromJson(f.readAll()).object();
        QVERIFY(c["fp32_ns_per_byte"].toDouble() > 0);
        const double contention = c["contention"].toDouble(-1);
        QVERIFY2(contention >= 0 && contention <= 1, qPrintable(QString::number(contention)));
        const QJsonObject fp16 = c["hooks"].toObject()["fp16_compress"].toObject();
        QVERIFY(fp16["pre_ns_per_byte"].toDouble() > 0);
        QVERIFY2(fp16["collective_factor"].toDouble() > 1,
                 qPrintable(QString::number(fp16["collective_factor"].toDouble())));

        const CliResult w = runCli("commprof",
                                   {"trace", "whatif", kLegacy0, kLegacy1, "--params",
                                    kLegacyParams, "--hook", "allreduce,fp16_compress", "--json"},
                                   60000, env());
        QCOMPARE(w.exitCode, 0);
        QCOMPARE(w.json()["inputs"].toObject()["hook_work"].toObject()["fp16_compress"].toString(),
                 stored);
        for (const QJsonValue s : w.json()["scenarios"].toArray()) {
            QVERIFY(!s["hook_work_unknown"].toBool());
        }
    }

    // A place that cannot be written is said, naming it; a Python without torch is said.
    void failuresAreSaid() {
        QFile blocker(work_.filePath("blocker"));
        QVERIFY(blocker.open(QIODevice::WriteOnly));
        blocker.close();
        QProcessEnvironment e = env();
        e.insert("COMMPROF_PYTHON", "/bin/false");
        e.insert("XDG_DATA_HOME", work_.filePath("none"));
        CliResult r = runCli("commprof", {"calibrate", "hooks"}, 60000, e);
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.contains("calibrate hooks"), r.err.constData());
        QVERIFY(!QFile::exists(work_.filePath("none/commprof/hook-calibration.json")));
        // Refused before anything is measured: 10 s is far less than a calibration takes.
        r = runCli("commprof", {"calibrate", "hooks", "--out", blocker.fileName() + "/cal.json"},
                   10000, env());
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains("blocker"), r.err.constData());
    }
};

QTEST_GUILESS_MAIN(TstCalibrateHooks)
#include "tst_calibrate_hooks.moc"
