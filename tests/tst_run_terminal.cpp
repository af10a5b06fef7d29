// SPDX-License-Identifier: GPL-3.0-or-later
// The live view of `commprof run` seen through a real pseudo-terminal (script(1)): a line per
// running cell and an overall bar that only moves forward and ends at 100 % with every cell
// counted; piped, the same run prints plain lines without a control character, and
// --json-progress keeps stdout pure JSON lines.

#include "cli_runner.h"
#include "run_helpers.h"

#include <QRegularExpression>
#include <QTest>

namespace {

// Two cells, so the bar has a cell done before the other runs.
const char* kTwoCells = R"(name: view
defaults: {iterations: 12, warmup: 2, batch_size: 4, timeout_s: 120}
models: [{name: mlp_small, family: mlp, params: 2.0e5}]
layers: [{name: gloo_cpu, backend: gloo, device: cpu}]
world_sizes: [1, 2]
)";

QString shellQuote(const QString& s) {
    return "'" + QString(s).replace("'", "'\\''") + "'";
}

// `commprof ARGS` on a terminal: script(1) gives it a pseudo-terminal and copies what it
// draws to its own stdout.
CliResult onTerminal(const QStringList& args) {
    QStringList words{shellQuote(COMMPROF_BIN_DIR "/commprof")};
    for (const QString& a : args) {
        words << shellQuote(a);
    }
    auto env = QProcessEnvironment::systemEnvironment();
    env.insert("TERM", "xterm");
    return runProgram("script", {"-q", "-e", "-c", words.join(' '), "/dev/null"}, 300000, env);
}

} // namespace

class TstRunTerminal : public QObject {
    Q_OBJECT
    QTemporaryDir work_;
    QString matrix_;

private slots:
    void initTestCase() {
        QVERIFY(work_.isValid());
        matrix_ = writeMatrix(work_, kTwoCells);
    }

    void barOnATerminalEndsAtHundredPercent() {
        const CliResult r = onTerminal({"run", matrix_, "--out", work_.filePath("tty")});
        QVERIFY2(r.exitCode == 0, r.out.constData());
        const QString text = QString::fromUtf8(r.out);
        QVERIFY2(text.contains("\033["), "no redraw: the view did not see a terminal");
        // A line per running cell, with its ranks and iterations out of the matrix's 12.
        QVERIFY2(text.contains(QRegularExpression("mlp_small_gloo_cpu_ws2_r0  2 ranks  iter "
                                                  "([0-9]|1[0-2])/12")),
                 r.out.constData());
        const QRegularExpression bar("\\[[#.]{20}\\] +(\\d+) %  (\\d)/2 cells: (\\d) done, "
                                     "(\\d) failed, (\\d) skipped");
        QList<int> percents;
        QRegularExpressionMatch last;
        for (auto it = bar.globalMatch(text); it.hasNext();) {
            last = it.next();
            percents << last.captured(1).toInt();
        }
        QVERIFY2(percents.size() >= 3, r.out.constData());
        for (int i = 1; i < percents.size(); ++i) {
            QVERIFY2(percents[i] >= percents[i - 1], "the bar went backwards");
        }
        QCOMPARE(percents.last(), 100);
        QCOMPARE(last.captured(2), QString("2")); // 2 of the matrix's 2 cells ended
        QCOMPARE(last.captured(3), QString("2")); // both complete
        QVERIFY(text.contains("2 complete, 0 failed"));
    }

    void pipedOutputIsPlainLines() {
        const CliResult r = runCli("commprof", {"run", matrix_, "--out", work_.filePath("pipe")});
        QCOMPARE(r.exitCode, 0);
        QVERIFY2(!r.err.contains('\033') && !r.err.contains('\r'), r.err.constData());
        QVERIFY(!r.err.contains(" % "));
        const QStringList lines = QString::fromUtf8(r.err).split('\n', Qt::SkipEmptyParts);
        // running and complete for each cell, then the summary.
        QCOMPARE(lines.size(), 5);
        QVERIFY(lines[0].startsWith("mlp_small_gloo_cpu_ws1_r0") && lines[0].contains("running"));
        QVERIFY(lines[3].startsWith("mlp_small_gloo_cpu_ws2_r0") && lines[3].contains("complete"));
        QVERIFY(lines[4].startsWith("2 complete, 0 failed"));
    }

    // Ingest (and report, through it) redraws one counter line on a terminal; a log gets a
    // line per cell.
    void ingestCountsOnOneLine() {
        const QString dir = work_.filePath("pipe"); // the piped run's results
        const CliResult tty = onTerminal({"ingest", dir, "--db", work_.filePath("a.sqlite")});
        QCOMPARE(tty.exitCode, 0);
        QVERIFY2(tty.out.contains("\r\033[Kingested [####################] 2/2 "),
                 tty.out.constData());
        const CliResult piped =
            runCli("commprof", {"ingest", dir, "--db", work_.filePath("b.sqlite")});
        QCOMPARE(piped.exitCode, 0);
        QVERIFY(!piped.err.contains('\033'));
        QVERIFY(piped.err.contains("ingested 1/2 ") && piped.err.contains("ingested 2/2 "));
    }

    void jsonProgressStaysJsonLines() {
        const CliResult r = runCli(
            "commprof", {"run", matrix_, "--out", work_.filePath("json"), "--json-progress"});
        QCOMPARE(r.exitCode, 0);
        int iterations = 0;
        for (const QByteArray& line : r.out.split('\n')) {
            if (line.isEmpty()) {
                continue;
            }
            QJsonParseError e;
            const QJsonObject o = QJsonDocument::fromJson(line, &e).object();
            QVERIFY2(e.error == QJsonParseError::NoError && !o.isEmpty(), line.constData());
            iterations += o["event"].toString() == "iteration";
        }
        QCOMPARE(iterations, 12 * 1 + 12 * 2); // every rank's every iteration
    }
};

QTEST_GUILESS_MAIN(TstRunTerminal)
#include "tst_run_terminal.moc"
