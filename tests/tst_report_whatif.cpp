// SPDX-License-Identifier: GPL-3.0-or-later
// `commprof report` on a DDP job's trace folder (the legacy gloo pair with its params.json):
// the What if figure at a paper's single column (3.3 in, 8 pt), every word inside the page as
// poppler's pdftotext -bbox reads it, and macros.tex with the recorded step as Python's json
// module reads it from the traces (the median ProfilerStep# span), compiled by pdflatex.

#include "cli_runner.h"
#include "pdf_words.h"

#include <QDir>
#include <QFile>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTest>

namespace {

const QString kFixtures = COMMPROF_SHARED_FIXTURES "/traces/";

const char* kMedianStep = R"py(
import gzip, json, statistics, sys
steps = []
for path in sys.argv[1:]:
    with gzip.open(path) as f:
        data = json.load(f)
    events = data if isinstance(data, list) else data["traceEvents"]
    steps += [float(e["dur"]) / 1e3 for e in events
              if e.get("ph") == "X" and str(e.get("name", "")).startswith("ProfilerStep#")]
print("%.2f" % statistics.median(steps))
)py";

QString macro(const QString& tex, const QString& name) {
    const auto m =
        QRegularExpression("\\\\newcommand\\{\\\\commprof" + name + "\\}\\{([^}]*)\\}").match(tex);
    return m.hasMatch() ? m.captured(1) : QString();
}

} // namespace

class TstReportWhatIf : public QObject {
    Q_OBJECT
    QTemporaryDir work_;

private slots:
    void traceFolderReport() {
        const QString job = work_.filePath("job");
        QVERIFY(QDir().mkpath(job));
        QStringList traces;
        for (const char* name :
             {"legacy_gloo_ddp_rank0.json.gz", "legacy_gloo_ddp_rank1.json.gz"}) {
            QVERIFY(QFile::copy(kFixtures + name, job + "/" + name));
            traces << job + "/" + name;
        }
        QVERIFY(
            QFile::copy(COMMPROF_TEST_DATA "/legacy_gloo_ddp_params.json", job + "/params.json"));
        const QString out = work_.filePath("report");
        const CliResult r =
            runCli("commprof", {"report", job, "--out", out, "--width-in", "3.3", "--font-pt", "8"},
                   300000);
        QVERIFY2(r.exitCode == 0, r.err.constData());
        for (const char* f : {"whatif.pdf", "whatif.png", "macros.tex", "whatif.json"}) {
            QVERIFY2(QFile::exists(out + "/" + f), f);
        }

        // Every word on the page, none over another, the bars named.
        const PdfPage page = wordsOf(out + "/whatif.pdf");
        QVERIFY(page.words.size() > 10);
        QVERIFY2(std::abs(page.size.width() - 3.3 * 72) < 1, qPrintable(page.text()));
        const QStringList off = offThePage(page);
        QVERIFY2(off.isEmpty(), qPrintable(off.join("; ")));
        const QStringList over = overlappingWords(page);
        QVERIFY2(over.isEmpty(), qPrintable(over.join("; ")));
        for (const char* word : {"recorded", "replayed", "compute", "optimizer"}) {
            QVERIFY2(page.text().contains(word), qPrintable(page.text()));
        }

        // The macros: the recorded step as Python reads it, the rest present.
        QFile f(out + "/macros.tex");
        QVERIFY(f.open(QIODevice::ReadOnly));
        const QString tex = QString::fromUtf8(f.readAll());
        const CliResult py =
            runProgram("/usr/bin/python3", QStringList{"-c", kMedianStep} + traces, 120000);
        QCOMPARE(macro(tex, "WhatIfRecordedStepMs"), QString::fromUtf8(py.out).trimmed());
        for (const char* name : {"WhatIfReplayedStepMs", "WhatIfRecommendedCapMb",
                                 "WhatIfRecommendedStepMs", "WhatIfRecommendedUncertaintyMs"}) {
            bool ok = false;
            macro(tex, name).toDouble(&ok);
            QVERIFY2(ok, name);
        }
        QVERIFY(!macro(tex, "WhatIfRecommendedHook").isEmpty());

        // The sheet compiles with LaTeX's kernel alone, each macro used.
        const QString doc = work_.filePath("doc.tex");
        QFile d(doc);
        QVERIFY(d.open(QIODevice::WriteOnly));
        d.write("\\documentclass{article}\\input{" + (out + "/macros.tex").toUtf8() +
                "}\\begin{document}\\commprofWhatIfRecordedStepMs{} "
                "\\commprofWhatIfRecommendedCapMb{} \\commprofWhatIfRecommendedHook{} "
                "\\commprofWhatIfRecommendedUncertaintyMs{}\\end{document}\n");
        d.close();
        const CliResult latex = runProgram(
            "pdflatex",
            {"-interaction=nonstopmode", "-halt-on-error", "-output-directory", work_.path(), doc},
            120000);
        QVERIFY2(latex.exitCode == 0, latex.out.right(2000).constData());
    }

    void notAJobIsRefused() {
        const QString dir = work_.filePath("rocm");
        QVERIFY(QDir().mkpath(dir));
        QVERIFY(QFile::copy(kFixtures + "kineto_rocm_minitoy.json.gz",
                            dir + "/kineto_rocm_minitoy.json.gz"));
        const CliResult r =
            runCli("commprof", {"report", dir, "--out", work_.filePath("none")}, 120000);
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains("kineto_rocm_minitoy"), r.err.constData());
        QVERIFY(!QFile::exists(work_.filePath("none/macros.tex")));
        // --params only for a trace folder.
        const CliResult p = runCli("commprof", {"report", work_.filePath("nothing"), "--out",
                                                work_.filePath("none"), "--params", "x.json"});
        QCOMPARE(p.exitCode, 2);
    }
};

QTEST_MAIN(TstReportWhatIf)
#include "tst_report_whatif.moc"
