// SPDX-License-Identifier: GPL-3.0-or-later
// macros.tex for hostile names: control characters, accents, symbols and CJK, LaTeX's specials,
// a layer called "Headline" and labels that differ only in digits. pdflatex (LaTeX's kernel,
// texlive-latex-base) compiles a document that \input's it, and the value TeX holds for each
// macro is the one spelled by hand here.

#include "report/report_data.h"
#include "report/text_fields.h"

#include <QDir>
#include <QFile>
#include <QProcess>
#include <QRegularExpression>
#include <QSet>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

using namespace commprof;

namespace {

// Hostile texts and their LaTeX, spelled by hand from the kernel's commands.
struct Spelling {
    const char* name;
    QString text;
    QString tex;
};

const QList<Spelling>& spellings() {
    static const QList<Spelling> list{
        {"control",
         QString::fromUtf8("a\x01"
                           "b\x0c"
                           "c\x1b"
                           "d\x7f"
                           "e"),
         "a[U+0001]b c[U+001B]d[U+007F]e"},
        {"non-ascii", QString::fromUtf8("réseau ✓ 日本"), "r\\'{e}seau [U+2713] [U+65E5][U+672C]"},
        {"specials", "# $ % & ~ _ ^ \\ { }",
         "\\# \\$ \\% \\& \\textasciitilde{} \\_ \\textasciicircum{} \\textbackslash{} \\{ \\}"},
        {"input", "\\input{/etc/passwd}", "\\textbackslash{}input\\{/etc/passwd\\}"},
        {"line breaks", "a\nb\r\tc\n\n d  e", "a b c d e"},
        {"decomposed", QString::fromUtf8("e\xcc\x81t\xc3\xa9"), "\\'{e}t\\'{e}"},
        {"letters", QString::fromUtf8("Ångström Straße Łódź"),
         "\\r{A}ngstr\\\"{o}m Stra\\ss{}e \\L{}\\'{o}d\\'{z}"},
        {"lone surrogate", QString(QChar(0xD800)) + "x", "[U+FFFD]x"},
        {"Headline", "Headline", "Headline"},
    };
    return list;
}

// Layer labels whose spelled names clash with each other or with the report's own names.
const QStringList& hostileLayers() {
    static const QStringList list{
        "gloo_cpu",
        "Headline",
        QString::fromUtf8("\x01\x0c\x1b\x7f"),
        QString::fromUtf8("réseau ✓ 日本"),
        "gloo1",
        "gloo2",
        "gloo_1",
        "gloo11",
        "gloo_one",
        "#$%&~_^\\{}",
        QString::fromUtf8("日本"),
        "gloo_cpu_ws2_all_reduce", // + AlphaUs is gloo_cpu's sweep fit at world size 2
    };
    return list;
}

report::ReportData hostileReport(const QString& model) {
    report::ReportData data;
    int i = 0;
    for (const QString& layer : hostileLayers()) {
        store::CellRow c;
        c.id = QString("cell%1").arg(i);
        c.layer = layer;
        c.model = model;
        c.status = "complete";
        c.worldSize = 2 + i; // "Headline"'s cell is no headline: the last is the largest
        c.params = 1000;
        c.commOverheadFraction = 0.01 * (i + 1);
        c.stepMs = 10.0 + i;
        data.cells.push_back(c);
        analysis::AlphaBetaFit fit;
        fit.alpha = 1e-6 * (i + 1);
        fit.beta = 1e-9;
        fit.r2 = 0.95;
        data.bucketPools[layer].fit = fit;
        ++i;
    }
    store::CellRow sweep;
    sweep.id = "sweep";
    sweep.layer = "gloo_cpu";
    sweep.kind = "sweep";
    sweep.status = "complete";
    sweep.worldSize = 2;
    data.cells.push_back(sweep);
    store::StoredSweep s;
    s.series.kind = "all_reduce";
    s.series.layer = "gloo_cpu";
    s.series.worldSize = 2;
    s.series.points.push_back({});
    s.fit.refused = false;
    s.fit.method = "weighted least squares";
    s.fit.alphaUs = 42.0;
    s.fit.r2 = 0.99;
    data.sweepsByCell["sweep"].push_back(s);
    return data;
}

// name -> value of every \newcommand line.
QList<QPair<QString, QString>> definitions(const QString& tex) {
    static const QRegularExpression line("^\\\\newcommand\\{\\\\commprof([^}]*)\\}\\{(.*)\\}$",
                                         QRegularExpression::MultilineOption);
    QList<QPair<QString, QString>> out;
    for (auto it = line.globalMatch(tex); it.hasNext();) {
        const auto m = it.next();
        out.append({m.captured(1), m.captured(2)});
    }
    return out;
}

// A macro's replacement text from what \meaning wrote: "\long macro:->" before it, and a
// space after every control word ("\r {a}" for "\r{a}"). A null string for anything else.
QString unmeaning(const QString& meaning) {
    static const QString prefix = "\\long macro:->";
    static const QRegularExpression word("(\\\\[A-Za-z]+) ");
    if (!meaning.startsWith(prefix)) {
        return {};
    }
    return meaning.mid(prefix.size()).replace(word, "\\1");
}

} // namespace

class TstReportTex : public QObject {
    Q_OBJECT

private slots:
    void valuesAreSpelledForLatex_data() {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("tex");
        for (const Spelling& s : spellings()) {
            QTest::newRow(s.name) << s.text << s.tex;
        }
    }
    void valuesAreSpelledForLatex() {
        QFETCH(QString, text);
        QFETCH(QString, tex);
        QCOMPARE(report::texText(text), tex);
    }

    // Every name is \commprof and letters, no two lines define one name, and no layer's
    // figure stands in for another's or for the headline's.
    void namesAreLettersAndDistinct() {
        const QString tex = report::macrosTex(hostileReport("m"));
        const auto defs = definitions(tex);
        QSet<QString> names;
        static const QRegularExpression letters("^[A-Za-z]+$");
        for (const auto& [name, value] : defs) {
            QVERIFY2(letters.match(name).hasMatch(), qPrintable(name));
            QVERIFY2(!names.contains(name), qPrintable("defined twice: " + name + "\n" + tex));
            names.insert(name);
        }
        QCOMPARE(defs.size(), tex.count("\\newcommand"));
        // Comments included, the file is printable ASCII: it reads the same in any encoding.
        for (const QChar ch : tex) {
            QVERIFY2(ch == '\n' || (ch.unicode() >= 0x20 && ch.unicode() < 0x7F),
                     qPrintable(QString("U+%1 in macros.tex").arg(ch.unicode(), 4, 16)));
        }
        // Each layer's own overhead, 1% apart, once each, besides the headline's.
        QStringList overheads;
        for (const auto& [name, value] : defs) {
            if (name.endsWith("CommOverhead") && name != "HeadlineCommOverhead") {
                overheads << value;
            }
        }
        QStringList expected;
        for (int i = 0; i < hostileLayers().size(); ++i) {
            expected << QString::number(i + 1) + ".0\\%";
        }
        overheads.sort();
        expected.sort();
        QCOMPARE(overheads, expected);
        // The headline is the largest cell (the last layer's, 12%), not "Headline"'s (2%).
        QVERIFY2(tex.contains("\\newcommand{\\commprofHeadlineCommOverhead}{12.0\\%}"),
                 qPrintable(tex));
        // Names the docs quote keep their spelling; digits are spelled, never dropped.
        QVERIFY(names.contains("GlooCpuCommOverhead"));
        QVERIFY(names.contains("GlooCpuWsTwoAllReduceAlphaUs"));
        QVERIFY(tex.contains("\\newcommand{\\commprofGlooCpuWsTwoAllReduceAlphaUs}{42.0}"));
        QVERIFY(names.contains("GlooOneCommOverhead"));
        QVERIFY(names.contains("GlooTwoCommOverhead"));
        QVERIFY(names.contains("GlooOneOneCommOverhead"));
    }

    void pdflatexCompilesHostileNames_data() {
        QTest::addColumn<QString>("model");
        QTest::addColumn<QString>("tex");
        for (const Spelling& s : spellings()) {
            QTest::newRow(s.name) << s.text << s.tex;
        }
    }
    void pdflatexCompilesHostileNames() {
        QFETCH(QString, model);
        QFETCH(QString, tex);
        const QString pdflatex = QStandardPaths::findExecutable("pdflatex");
        if (pdflatex.isEmpty()) {
            QSKIP("pdflatex is not installed (texlive-latex-base, listed in "
                  "packaging/packages.sh): macros.tex was not compiled");
        }
        QTemporaryDir dir;
        const QString macros = report::macrosTex(hostileReport(model));
        QFile m(dir.filePath("macros.tex"));
        QVERIFY(m.open(QIODevice::WriteOnly));
        m.write(macros.toUtf8());
        m.close();
        const auto defs = definitions(macros);
        QVERIFY(defs.size() > hostileLayers().size());
        // Each macro's meaning to a file, then each typeset, so an undefined control sequence
        // or a character without a glyph stops the run.
        QString doc = "\\documentclass{article}\n\\input{macros.tex}\n\\newwrite\\vals\n"
                      "\\immediate\\openout\\vals=vals.txt\n";
        for (const auto& [name, value] : defs) {
            doc += QString("\\immediate\\write\\vals{%1=\\meaning\\commprof%1}\n").arg(name);
        }
        doc += "\\immediate\\closeout\\vals\n\\begin{document}\n";
        for (const auto& [name, value] : defs) {
            doc += QString("%1: \\commprof%1\\par\n").arg(name);
        }
        doc += "\\end{document}\n";
        QFile d(dir.filePath("doc.tex"));
        QVERIFY(d.open(QIODevice::WriteOnly));
        d.write(doc.toUtf8());
        d.close();
        QProcess p;
        p.setWorkingDirectory(dir.path());
        p.start(pdflatex,
                {"-interaction=nonstopmode", "-halt-on-error", "-no-shell-escape", "doc.tex"});
        QVERIFY(p.waitForFinished(120000));
        QFile log(dir.filePath("doc.log"));
        log.open(QIODevice::ReadOnly);
        QVERIFY2(p.exitCode() == 0, log.readAll().right(3000).constData());
        QVERIFY(QFile::exists(dir.filePath("doc.pdf")));

        QFile vals(dir.filePath("vals.txt"));
        QVERIFY(vals.open(QIODevice::ReadOnly));
        QMap<QString, QString> meaning;
        for (const QByteArray& line : vals.readAll().split('\n')) {
            const qsizetype eq = line.indexOf('=');
            if (eq > 0) {
                meaning[QString::fromLatin1(line.left(eq))] = QString::fromLatin1(line.mid(eq + 1));
            }
        }
        QCOMPARE(meaning.size(), defs.size()); // every name distinct to TeX too
        for (const auto& [name, value] : defs) {
            QCOMPARE(unmeaning(meaning.value(name)), value);
        }
        QCOMPARE(unmeaning(meaning.value("HeadlineModel")), tex);
    }
};

QTEST_GUILESS_MAIN(TstReportTex)
#include "tst_report_tex.moc"
