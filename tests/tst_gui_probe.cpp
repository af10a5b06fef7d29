// SPDX-License-Identifier: GPL-3.0-or-later
// The Probe panel, rendered offscreen, over a real probe of this machine.

#include "image_checks.h"
#include "models/probe_model.h"
#include "probe/probe.h"
#include "probe_view.h"
#include "rank_files.h"

#include <QAbstractItemModelTester>
#include <QImage>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>

using namespace commprof;

class TstGuiProbe : public QObject {
    Q_OBJECT
private slots:
    void panelShowsVerdictAndFindings() {
        QTemporaryDir dir;
        probe::ProbeOptions o;
        o.rankProgram = rankBinary();
        o.resultsDir = dir.path();
        o.formation = false;
        // A fake libnccl pair makes sure a warning row is there to show.
        QDir().mkpath(dir.filePath("a"));
        QDir().mkpath(dir.filePath("b"));
        QFile(dir.filePath("a/libnccl.so.2.18.3")).open(QIODevice::WriteOnly);
        QFile(dir.filePath("b/libnccl.so.2.19.3")).open(QIODevice::WriteOnly);
        o.env.insert("LD_LIBRARY_PATH", dir.filePath("a") + ":" + dir.filePath("b"));
        const probe::ProbeReport report = probe::runProbe(o);

        models::ProbeModel model;
        QAbstractItemModelTester tester(&model,
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        widgets::ProbeView view;
        view.setModel(&model);
        model.setReport(report);
        QCOMPARE(view.verdictText(), report.verdict());
        QVERIFY(model.rowCount() >= report.issues.size() + report.warnings.size() + 4);
        bool sawWarning = false;
        for (int r = 0; r < model.rowCount(); ++r) {
            if (model.data(model.index(r, 0), models::ProbeModel::SeverityRole).toString() ==
                "warning") {
                sawWarning = true;
                QVERIFY(model.data(model.index(r, 2)).toString().contains("NCCL"));
            }
        }
        QVERIFY(sawWarning);

        view.resize(900, 400);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        const QImage shot = view.grab().toImage();
        QVERIFY2(distinctColours(shot) > 10, "the rendered panel is blank");
    }
};

QTEST_MAIN(TstGuiProbe)
#include "tst_gui_probe.moc"
