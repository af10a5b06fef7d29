// SPDX-License-Identifier: GPL-3.0-or-later
// --help, man pages and shell completions: every binary answers --help, each generated page
// renders with man(1) without a groff warning, and the completions offer exactly the commands
// that docs/cli.md (written by hand) describes and that the real commprof dispatches.

#include "cli_runner.h"

#include <QFile>
#include <QRegularExpression>
#include <QSet>
#include <QStandardPaths>
#include <QTest>

namespace {

const QString kDocs = COMMPROF_BINARY_DIR "/generated-docs";

// The commands docs/cli.md has a section for: "## `commprof trace summarize ...`" -> "trace".
QSet<QString> documentedCommands() {
    QFile f(COMMPROF_SOURCE_DIR "/docs/cli.md");
    f.open(QIODevice::ReadOnly);
    QSet<QString> out;
    const QRegularExpression heading("^## `commprof ([a-z]+)", QRegularExpression::MultilineOption);
    for (auto it = heading.globalMatch(QString::fromUtf8(f.readAll())); it.hasNext();) {
        out << it.next().captured(1);
    }
    return out;
}

// What bash offers for the words typed so far (the last one is being completed).
QStringList bashComplete(const QString& program, const QStringList& words) {
    QStringList quoted;
    for (const QString& w : words) {
        quoted << "'" + w + "'";
    }
    const QString script = QString("source '%1/%2.bash'; COMP_WORDS=(%3); COMP_CWORD=%4; _%5; "
                                   "printf '%s\\n' \"${COMPREPLY[@]}\"")
                               .arg(kDocs, program, quoted.join(' '))
                               .arg(words.size() - 1)
                               .arg(QString(program).replace('-', '_'));
    return QString::fromUtf8(runProgram("bash", {"--norc", "-c", script}, 30000).out)
        .split('\n', Qt::SkipEmptyParts);
}

QSet<QString> toSet(const QStringList& l) {
    return QSet<QString>(l.begin(), l.end());
}

// man(1) as a user runs it, plain ASCII so flags read as typed.
CliResult man(const QString& page) {
    auto env = QProcessEnvironment::systemEnvironment();
    env.insert("MANWIDTH", "100");
    env.insert("MANPAGER", "cat");
    env.insert("PAGER", "cat");
    return runProgram("man", {"--warnings", "-E", "ascii", "-l", page}, 60000, env);
}

} // namespace

class TstCliDocs : public QObject {
    Q_OBJECT
private slots:
    void everyBinaryAnswersHelp_data() {
        QTest::addColumn<QString>("program");
        QTest::addColumn<QStringList>("mentions");
        QTest::newRow("commprof") << "commprof"
                                  << QStringList{"plan", "trace summarize", "cells",
                                                 "model describe"};
        // --fork-server: served before the table parses a rank's flags, listed there all the same.
        QTest::newRow("commprof-rank")
            << "commprof-rank"
            << QStringList{"--iterations", "--bucket-cap-mb", "--delay-rank", "--fork-server"};
        QTest::newRow("commprof-workbench")
            << "commprof-workbench" << QStringList{"--results", "--matrix", "--screenshot"};
    }
    void everyBinaryAnswersHelp() {
        QFETCH(QString, program);
        QFETCH(QStringList, mentions);
        // No display: --help must not need one.
        auto env = QProcessEnvironment::systemEnvironment();
        env.remove("DISPLAY");
        env.insert("QT_QPA_PLATFORM", "xcb");
        const CliResult r = runCli(program, {"--help"}, 60000, env);
        QCOMPARE(r.exitCode, 0);
        QVERIFY2(!r.err.contains("unknown"), r.err.constData());
        for (const QString& m : mentions) {
            QVERIFY2(r.out.contains(m.toUtf8()), qPrintable(m + " missing from\n" + r.out));
        }
    }

    void everyCommandAnswersHelp() {
        for (const QString& command : documentedCommands()) {
            const CliResult r = runCli("commprof", {command, "--help"});
            QCOMPARE(r.exitCode, 0);
            QVERIFY2(r.out.contains("commprof " + command.toUtf8()), r.out.constData());
        }
        const CliResult cells = runCli("commprof", {"cells", "--help"});
        QVERIFY(cells.out.contains("--format table|json|csv"));
    }

    // The table is the gate: a flag it does not list never reaches a command.
    void anUnlistedFlagIsRefusedWithTheUsage() {
        const CliResult r = runCli("commprof", {"plan", "m.yaml", "--no-such-flag"});
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains("unknown option '--no-such-flag'"), r.err.constData());
        QVERIFY(r.err.contains("usage: commprof plan MATRIX.yaml"));
        const CliResult rank = runCli("commprof-rank", {"--no-such-flag"});
        QCOMPARE(rank.exitCode, 2);
        QVERIFY(rank.err.contains("unknown flag '--no-such-flag'"));
        // --fork-server is served only alone: among a rank's flags it is a usage error, not a
        // rank that runs without the server it was asked for.
        const CliResult server =
            runCli("commprof-rank", {"--fork-server", "sock", "--iterations", "2"});
        QCOMPARE(server.exitCode, 2);
        QVERIFY2(server.err.contains("--fork-server takes its socket and nothing else"),
                 server.err.constData());
    }

    void manRendersEachPage_data() {
        QTest::addColumn<QString>("program");
        QTest::addColumn<QStringList>("flags");
        QTest::newRow("commprof") << "commprof"
                                  << QStringList{"--json-progress", "--max-trace-size", "--format"};
        QTest::newRow("commprof-rank")
            << "commprof-rank"
            << QStringList{"--rendezvous-timeout-s", "--fp-iters", "--perturb", "--fork-server"};
        QTest::newRow("commprof-workbench")
            << "commprof-workbench" << QStringList{"--compare", "--output", "--size"};
    }
    void manRendersEachPage() {
        QFETCH(QString, program);
        QFETCH(QStringList, flags);
        const CliResult r = man(kDocs + "/" + program + ".1");
        QCOMPARE(r.exitCode, 0);
        QVERIFY2(r.err.isEmpty(), r.err.constData()); // groff's warnings
        QVERIFY(r.out.contains(program.toUpper().toUtf8() + "(1)"));
        for (const char* section : {"NAME", "SYNOPSIS", "DESCRIPTION", "SEE ALSO"}) {
            QVERIFY2(r.out.contains(section), section);
        }
        for (const QString& f : flags) {
            QVERIFY2(r.out.contains(f.toUtf8()), qPrintable(f));
        }
        // What --help says is what the page says: every flag --help lists is on the page.
        const CliResult help = runCli(program, {"--help"});
        const QRegularExpression flag("(--[a-z][a-z-]+)");
        for (auto it = flag.globalMatch(QString::fromUtf8(help.out)); it.hasNext();) {
            const QString f = it.next().captured(1);
            QVERIFY2(r.out.contains(f.toUtf8()), qPrintable(f + " is in --help, not the page"));
        }
    }

    void bashCompletesTheSubcommands() {
        const QSet<QString> documented = documentedCommands();
        QVERIFY(documented.size() >= 9);
        QSet<QString> offered = toSet(bashComplete("commprof", {"commprof", ""}));
        QVERIFY(offered.remove("--help"));
        QVERIFY(offered.remove("--version"));
        QCOMPARE(offered, documented);
        // Each is a command the program runs: without arguments, its usage, never "unknown".
        for (const QString& command : offered) {
            const CliResult r = runCli("commprof", {command, "--no-such-flag"});
            QVERIFY2(!r.err.contains("unknown command"), qPrintable(command));
        }
        QCOMPARE(toSet(bashComplete("commprof", {"commprof", "trace", ""})),
                 (QSet<QString>{"summarize", "collectives", "reduce", "ddp", "whatif"}));
        QCOMPARE(toSet(bashComplete("commprof", {"commprof", "model", ""})),
                 (QSet<QString>{"export", "describe"}));
        QVERIFY(bashComplete("commprof-rank", {"commprof-rank", "--fo"}).contains("--fork-server"));
        QCOMPARE(bashComplete("commprof", {"commprof", "cells", "dir", "--format", ""}),
                 (QStringList{"table", "json", "csv"}));
        const QStringList runFlags = bashComplete("commprof", {"commprof", "run", "--"});
        for (const char* f : {"--out", "--resume", "--only", "--json-progress"}) {
            QVERIFY2(runFlags.contains(f), f);
        }
        QCOMPARE(bashComplete("commprof-rank", {"commprof-rank", "--backend", ""}),
                 (QStringList{"gloo", "nccl"}));
    }

    void zshCompletionsParse() {
        if (QStandardPaths::findExecutable("zsh").isEmpty()) {
            QSKIP("zsh is not installed (packaging/packages.sh lists it)");
        }
        for (const char* program : {"commprof", "commprof-rank", "commprof-workbench"}) {
            const CliResult r = runProgram("zsh", {"-n", kDocs + "/_" + program}, 30000);
            QVERIFY2(r.exitCode == 0, r.err.constData());
        }
    }
};

QTEST_GUILESS_MAIN(TstCliDocs)
#include "tst_cli_docs.moc"
