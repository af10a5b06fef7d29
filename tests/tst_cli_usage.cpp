// SPDX-License-Identifier: GPL-3.0-or-later
// The option table drives parsing: options::parseArgs refuses what a command's row does not
// allow, naming the flag or operand, and every usage error of commprof, whether the table or the
// command found it, ends with the usage line rendered from the table, never one written by hand.
// commprof-rank refuses a value outside a flag's choices in the words of its table.

#include "cli_options.h"
#include "cli_runner.h"
#include "rank_flags.h"

#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QTest>

namespace options = commprof::options;

namespace {

const options::Command& command(const char* name) {
    const options::Command* c = options::findCommand(commprof::cli::commprofProgram(), name);
    if (!c) {
        qFatal("no command %s in the table", name);
    }
    return *c;
}

QString usageOf(const char* name) {
    return "usage: " + QString::fromStdString(
                           options::usageLine(commprof::cli::commprofProgram(), &command(name)));
}

QString lastLine(const QByteArray& text) {
    const QStringList lines = QString::fromUtf8(text).split('\n', Qt::SkipEmptyParts);
    return lines.isEmpty() ? QString() : lines.last();
}

QStringList words(const QString& s) {
    return s.split(' ', Qt::SkipEmptyParts);
}

} // namespace

class TstCliUsage : public QObject {
    Q_OBJECT
private slots:
    void parseArgsFollowsTheRow_data() {
        QTest::addColumn<QString>("command");
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QString>("error");
        QTest::newRow("all there") << "run" << words("m.yaml --out d --resume") << "";
        QTest::newRow("unknown flag")
            << "plan" << words("m.yaml --nope") << "unknown option '--nope'";
        QTest::newRow("missing value")
            << "plan" << words("m.yaml --gpus") << "--gpus: missing value";
        QTest::newRow("outside the choices") << "cells" << words("dir --format yaml")
                                             << "--format: expected table, json or csv, got 'yaml'";
        QTest::newRow("missing operand") << "plan" << words("--json") << "missing MATRIX.yaml";
        QTest::newRow("empty operand") << "plan" << QStringList{""} << "missing MATRIX.yaml";
        QTest::newRow("one operand too many")
            << "calibrate" << words("a b") << "unexpected argument 'b'";
        QTest::newRow("required left out") << "run" << words("m.yaml") << "--out is required";
        QTest::newRow("required given empty")
            << "report" << QStringList{"dir", "--out", ""} << "--out is required";
        QTest::newRow("operands that may be left out") << "diff" << words("--arms") << "";
        QTest::newRow("operands that may be left out, too many")
            << "diff" << words("a b c") << "unexpected argument 'c'";
        QTest::newRow("repeated operand") << "trace summarize" << words("a b c d") << "";
        QTest::newRow("repeated operand, none")
            << "trace summarize" << words("--hta") << "missing TRACE_OR_DIR";
        QTest::newRow("several values") << "probe" << words("--compare-hosts a b --json") << "";
        QTest::newRow("a comma list is one value")
            << "sweep run" << words("--out d --kinds all_reduce extra")
            << "unexpected argument 'extra'";
    }
    void parseArgsFollowsTheRow() {
        QFETCH(QString, command);
        QFETCH(QStringList, args);
        QFETCH(QString, error);
        std::vector<std::string> a;
        for (const QString& s : args) {
            a.push_back(s.toStdString());
        }
        QCOMPARE(QString::fromStdString(
                     options::parseArgs(::command(command.toUtf8().constData()), a).error),
                 error);
    }

    void parsedValues() {
        // A value is taken whatever it looks like; the last of a repeated flag wins.
        const auto p = options::parseArgs(
            command("diff"), {"--arms", "--change", "--seed 1", "--out", "a", "--out", "b"});
        QVERIFY(p.error.empty());
        QVERIFY(p.has("--arms") && !p.has("--json"));
        QCOMPARE(p.value("--change"), std::string("--seed 1"));
        QCOMPARE(p.value("--out"), std::string("b"));
        QCOMPARE(p.value("--world", "2"), std::string("2"));
        const auto hosts = options::parseArgs(command("probe"), {"--compare-hosts", "a", "b"});
        QCOMPARE(hosts.values("--compare-hosts"), (std::vector<std::string>{"a", "b"}));
        // After "--" every word is another program's, flags and all (`record -- python3 t.py`).
        const auto rec = options::parseArgs(
            command("record"), {"--steps", "3", "--", "python3", "t.py", "--steps", "9", "--"});
        QVERIFY(rec.error.empty());
        QCOMPARE(rec.value("--steps"), std::string("3"));
        QCOMPARE(rec.operands, (std::vector<std::string>{"python3", "t.py", "--steps", "9", "--"}));
    }

    // What a command cannot do without reads first and unbracketed.
    void usageLineShowsWhatIsRequired() {
        QCOMPARE(usageOf("run"), QString("usage: commprof run MATRIX.yaml --out DIR [--resume] "
                                         "[--only CELL_ID] [--json-progress] [--profile FILE] "
                                         "[--launcher local|slurm]"));
        QVERIFY(usageOf("sweep run")
                    .startsWith("usage: commprof sweep run --out DIR [--world-size N]"));
        QVERIFY(
            usageOf("report").startsWith("usage: commprof report DIR --out OUTDIR [--db FILE]"));
    }

    // Each a line that commprof refuses, found by the table or by the command's own checks.
    void everyUsageErrorEndsWithTheTablesLine_data() {
        QTest::addColumn<QString>("command");
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QString>("named");
        for (const auto& c : commprof::cli::commprofProgram().commands) {
            const QString name = QString::fromStdString(c.name);
            QTest::addRow("%s, unknown flag", c.name.c_str())
                << name << QStringList{"--no-such-flag"} << "unknown option '--no-such-flag'";
        }
        QTest::newRow("plan, no matrix") << "plan" << words("--json") << "missing MATRIX.yaml";
        QTest::newRow("probe, an operand")
            << "probe" << words("extra") << "unexpected argument 'extra'";
        QTest::newRow("run, no --out") << "run" << words("m.yaml") << "--out is required";
        QTest::newRow("report, no --out") << "report" << words("dir") << "--out is required";
        QTest::newRow("sweep run, no --out")
            << "sweep run" << words("--world-size 2") << "--out is required";
        QTest::newRow("trace summarize, no trace")
            << "trace summarize" << words("--json") << "missing TRACE_OR_DIR";
        QTest::newRow("cells, a format it lacks")
            << "cells" << words("dir --format yaml") << "--format: expected table, json or csv";
        // The commands' own checks.
        QTest::newRow("plan, bad --gpus") << "plan" << words("m.yaml --gpus many") << "--gpus: ";
        QTest::newRow("plan, bad budget")
            << "plan" << words("m.yaml --host-budget-gib 0") << "--host-budget-gib: ";
        QTest::newRow("probe, bad --ports") << "probe" << words("--ports 0-70000") << "--ports: ";
        QTest::newRow("diff, one run") << "diff" << words("a") << "expected RUN_A and RUN_B";
        QTest::newRow("diff, an arms flag alone")
            << "diff" << words("a b --out d") << "--out needs --arms";
        QTest::newRow("diff --arms, no --out")
            << "diff" << words("--arms --change x") << "--arms needs --out";
        QTest::newRow("diff --arms, runs named")
            << "diff" << words("--arms --out d --change x a b") << "none may be named";
        QTest::newRow("diff --arms, bad --world")
            << "diff" << words("--arms --out d --change x --world 0") << "--world: ";
        QTest::newRow("sweep run, bad --world-size")
            << "sweep run" << words("--out d --world-size 99") << "--world-size: ";
    }
    void everyUsageErrorEndsWithTheTablesLine() {
        QFETCH(QString, command);
        QFETCH(QStringList, args);
        QFETCH(QString, named);
        QTemporaryDir dir; // nothing a refused line names is created
        QVERIFY(QDir::setCurrent(dir.path()));
        const CliResult r = runCli("commprof", words(command) + args, 60000);
        QCOMPARE(r.exitCode, 2);
        QVERIFY(r.out.isEmpty());
        QVERIFY2(r.err.contains(named.toUtf8()), r.err.constData());
        QCOMPARE(lastLine(r.err), usageOf(command.toUtf8().constData()));
        QCOMPARE(QDir(dir.path()).entryList(QDir::NoDotAndDotDot | QDir::AllEntries),
                 QStringList());
    }

    // Issue 29: help is text on stdout and nothing else, even for the command that draws
    // (report started Qt's GUI first, whose platform warned about XDG_RUNTIME_DIR on stderr).
    // XDG_RUNTIME_DIR unset, or naming a folder others may read (Qt warns of each).
    void helpPrintsNoQtWarning_data() {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<bool>("badDir");
        QTest::newRow("commprof --help") << QStringList{"--help"} << false;
        QTest::newRow("commprof report --help") << QStringList{"report", "--help"} << false;
        QTest::newRow("commprof --help, 0755 dir") << QStringList{"--help"} << true;
        QTest::newRow("commprof report --help, 0755 dir")
            << QStringList{"report", "--help"} << true;
    }
    void helpPrintsNoQtWarning() {
        QFETCH(QStringList, args);
        QFETCH(bool, badDir);
        auto env = QProcessEnvironment::systemEnvironment();
        env.remove("XDG_RUNTIME_DIR");
        QTemporaryDir runtime;
        if (badDir) {
            QVERIFY(QFile::setPermissions(runtime.path(), QFile::ReadOwner | QFile::WriteOwner |
                                                              QFile::ExeOwner | QFile::ReadGroup |
                                                              QFile::ExeGroup | QFile::ReadOther |
                                                              QFile::ExeOther));
            env.insert("XDG_RUNTIME_DIR", runtime.path());
        }
        env.remove("QT_QPA_PLATFORM");
        const CliResult r = runCli("commprof", args, 60000, env);
        QCOMPARE(r.exitCode, 0);
        QVERIFY(r.out.contains("report"));
        QVERIFY2(r.err.isEmpty(), r.err.constData());
    }

    void rankRefusesAValueOutsideItsChoices_data() {
        QTest::addColumn<QString>("flag");
        QTest::addColumn<QString>("expected");
        for (const auto& o : commprof::rank::rankProgram().options) {
            if (!o.choices.empty()) {
                QTest::newRow(o.flag.c_str())
                    << QString::fromStdString(o.flag)
                    << QString::fromStdString(options::choiceError(o, "bogus"));
            }
        }
    }
    void rankRefusesAValueOutsideItsChoices() {
        QFETCH(QString, flag);
        QFETCH(QString, expected);
        if (!QFile::exists(COMMPROF_BIN_DIR "/commprof-rank")) {
            QSKIP("commprof-rank is not built (no libtorch)");
        }
        QTemporaryDir dir;
        const CliResult r = runCli("commprof-rank", {flag, "bogus", "--out", dir.path()}, 60000);
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains(expected.toUtf8()), r.err.constData());
    }
};

QTEST_GUILESS_MAIN(TstCliUsage)
#include "tst_cli_usage.moc"
