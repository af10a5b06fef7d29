// SPDX-License-Identifier: GPL-3.0-or-later
// Emulated links as a normal user: `commprof run` over 1gbit inside an unprivileged user
// namespace of its own. As root (CI) the test makes a throwaway system user and runs commprof
// as that user; as a normal user it runs as itself. Checked against the kernel and util-linux,
// not commprof's own output: the cell completes and every file it wrote is the user's; the
// hosts' namespaces are not in this machine's `ip netns list` and its interfaces are as they
// were; the ranks run in the hosts' network namespaces (their inode, from inside the keeper's
// mount namespace through nsenter) with tbf on the link (tc, through nsenter); a runner killed
// with SIGKILL leaves no process of the cell behind within seconds, and one stopped by a signal
// removes its record. Skips with the reason without user namespaces, tbf in one, or a build the
// user can run.

#include "cli_runner.h"
#include "link_helpers.h"

#include <QDir>
#include <QDirIterator>
#include <QElapsedTimer>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QRandomGenerator>
#include <QSet>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>
#include <QThread>

#include <algorithm>
#include <csignal>

#include <grp.h>
#include <pwd.h>
#include <sys/stat.h>
#include <unistd.h>

namespace {

QByteArray ddpMatrix(const QByteArray& link, int iterations) {
    return links_test::ddpMatrix("userns_ddp", link, iterations);
}

QString toolPath(const QString& tool) {
    const QString onPath = QStandardPaths::findExecutable(tool);
    return onPath.isEmpty() ? QStandardPaths::findExecutable(tool, {"/usr/sbin", "/sbin"}) : onPath;
}

// The kernel's name of a process' namespace ("net:[4026532001]"), or empty when it is gone.
QByteArray namespaceOf(const QString& pid, const char* kind) {
    char target[128];
    const QByteArray link = QString("/proc/%1/ns/%2").arg(pid, kind).toLocal8Bit();
    const ssize_t n = ::readlink(link.constData(), target, sizeof target);
    return n > 0 ? QByteArray(target, int(n)) : QByteArray();
}

struct Proc {
    qint64 pid = 0;
    qint64 ppid = 0;
    qint64 uid = -1;
    QString exe; // the executable's file name
};

// Every process on the machine, from /proc.
QList<Proc> processes() {
    QList<Proc> out;
    for (const QString& entry : QDir("/proc").entryList(QDir::Dirs)) {
        bool number = false;
        const qint64 pid = entry.toLongLong(&number);
        if (!number) {
            continue;
        }
        QFile status(QString("/proc/%1/status").arg(pid));
        if (!status.open(QIODevice::ReadOnly)) {
            continue;
        }
        Proc p;
        p.pid = pid;
        for (const QByteArray& line : status.readAll().split('\n')) {
            if (line.startsWith("PPid:")) {
                p.ppid = line.mid(5).trimmed().toLongLong();
            } else if (line.startsWith("Uid:")) {
                p.uid = line.mid(4).simplified().split(' ').value(0).toLongLong();
            }
        }
        p.exe = QFileInfo(QFile::symLinkTarget(QString("/proc/%1/exe").arg(pid))).fileName();
        out << p;
    }
    return out;
}

bool alive(qint64 pid) {
    QFile stat(QString("/proc/%1/stat").arg(pid));
    if (!stat.open(QIODevice::ReadOnly)) {
        return false;
    }
    const QByteArray s = stat.readAll();
    return !s.mid(s.lastIndexOf(')') + 2).startsWith('Z');
}

using links_test::networkAside;
using links_test::runToken;

} // namespace

class TstLinksUserns : public QObject {
    Q_OBJECT
    QTemporaryDir work_;
    QString userName_; // the throwaway user made here as root; empty when running as oneself
    uid_t uid_ = ::getuid();
    gid_t gid_ = ::getgid();
    QString tc_;
    QString binDir_ = COMMPROF_BIN_DIR; // or a copy the user can run (bin())

    QString bin(const QString& program) const { return QDir(binDir_).filePath(program); }

    QString home() const { return work_.filePath("home"); }
    QString recordDir() const { return work_.filePath("runtime/commprof/links"); }

    // A process that runs as the test's user, with a home and runtime folder of its own (so the
    // records go to $XDG_RUNTIME_DIR/commprof/links, the normal user's default).
    void asUser(QProcess& p) const {
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.remove("COMMPROF_LINK_RECORD_DIR");
        env.insert("HOME", home());
        env.insert("XDG_RUNTIME_DIR", work_.filePath("runtime"));
        env.insert("XDG_CONFIG_HOME", home() + "/.config");
        env.insert("XDG_DATA_HOME", home() + "/.local/share");
        env.insert("XDG_CACHE_HOME", home() + "/.cache");
        p.setProcessEnvironment(env);
        p.setWorkingDirectory(home());
        p.setStandardInputFile(QProcess::nullDevice());
        if (userName_.isEmpty()) {
            return;
        }
        p.setChildProcessModifier([uid = uid_, gid = gid_] {
            if (::setgroups(0, nullptr) != 0 || ::setgid(gid) != 0 || ::setuid(uid) != 0) {
                ::_exit(125);
            }
        });
    }

    CliResult runAsUser(const QString& program, const QStringList& args, int timeoutMs = 300000) {
        QProcess p;
        asUser(p);
        p.start(program, args);
        return finishProcess(p, timeoutMs);
    }

    QString write(const QString& name, const QByteArray& yaml) {
        const QString path = work_.filePath(name);
        QFile f(path);
        if (!f.open(QIODevice::WriteOnly) || f.write(yaml) != yaml.size()) {
            qFatal("cannot write %s", qPrintable(path));
        }
        f.close();
        QFile::setPermissions(path, QFile::ReadOwner | QFile::WriteOwner | QFile::ReadOther);
        return path;
    }

    // The output folder, made by the user: commprof writes there as the user.
    QString outDir(const QString& name) {
        const QString path = work_.filePath(name);
        runAsUser("mkdir", {"-p", path}, 10000);
        return path;
    }

    // The user's processes this runner started in a user namespace other than the machine's:
    // the keeper and the ranks.
    QList<Proc> namespacedChildrenOf(qint64 runner) const {
        QList<Proc> out;
        const QByteArray machine = namespaceOf("self", "user");
        for (const Proc& p : processes()) {
            const QByteArray userns = namespaceOf(QString::number(p.pid), "user");
            if (p.ppid == runner && p.uid == qint64(uid_) && !userns.isEmpty() &&
                userns != machine) {
                out << p;
            }
        }
        return out;
    }

    // Runs `args` in the keeper's mount namespace: as root directly (root may enter any), as
    // the user through the keeper's user namespace, keeping the user's ids (which map to its
    // root; setgroups, which nsenter would call otherwise, is denied there).
    QByteArray insideKeeper(qint64 keeper, const QStringList& args, int* code = nullptr) {
        const QString target = QString::number(keeper);
        const CliResult r =
            userName_.isEmpty()
                ? runAsUser("nsenter",
                            QStringList{"--target", target, "--user", "--preserve-credentials",
                                        "--mount", "--"} +
                                args,
                            30000)
                : runProgram("nsenter", QStringList{"--target", target, "--mount", "--"} + args,
                             30000);
        if (code) {
            *code = r.exitCode;
        }
        return r.out + r.err;
    }

    struct Started {
        QString token;
        qint64 keeper = 0;
        QList<Proc> ranks;
    };

    // Starts `commprof run` as the user and waits until its cell's keeper holds the two hosts
    // and both ranks run.
    Started startUntilRanksRun(QProcess& runner, const QString& matrix, const QString& out) {
        asUser(runner);
        runner.setProcessChannelMode(QProcess::ForwardedErrorChannel);
        runner.start(bin("commprof"), {"run", matrix, "--out", out});
        QElapsedTimer clock;
        clock.start();
        while (clock.elapsed() < 120000 && runner.state() != QProcess::NotRunning) {
            Started s;
            s.token = runToken(out);
            for (const Proc& p : namespacedChildrenOf(runner.processId())) {
                if (p.exe == "commprof-rank") {
                    s.ranks << p;
                } else {
                    s.keeper = p.pid; // whatever it runs: the one that holds the namespaces
                }
            }
            if (!s.token.isEmpty() && s.keeper > 0 && s.ranks.size() == 2) {
                return s;
            }
            QThread::msleep(200);
        }
        return {};
    }

    static bool waitUntilGone(const QList<qint64>& pids, int ms) {
        QElapsedTimer clock;
        clock.start();
        while (clock.elapsed() < ms) {
            if (std::none_of(pids.begin(), pids.end(), alive)) {
                return true;
            }
            QThread::msleep(100);
        }
        return false;
    }

    // Whether the user can run the build's own binaries where they are.
    bool runsAsUser() {
        return runAsUser(bin("commprof"), {"--version"}, 60000).exitCode == 0 &&
               runAsUser(bin("commprof-rank"), {"--version"}, 60000).exitCode == 0;
    }

    QString userSkipReason() {
        // util-linux's unshare, not commprof's code, says whether the kernel allows it.
        const CliResult userns =
            runAsUser("unshare", {"--user", "--map-root-user", "--net", "--mount", "true"}, 30000);
        if (userns.exitCode != 0) {
            return "no unprivileged user namespaces here: " + QString(userns.err).trimmed();
        }
        const CliResult tbf =
            runAsUser("unshare",
                      {"--user", "--map-root-user", "--net", tc_, "qdisc", "add", "dev", "lo",
                       "root", "tbf", "rate", "1gbit", "burst", "256kb", "latency", "50ms"},
                      30000);
        if (tbf.exitCode != 0) {
            return "no tbf qdisc in a user namespace: " + QString(tbf.err).trimmed();
        }
        // A build tree others cannot enter (under /root, mode 700): the binaries are
        // self-contained, so a copy in the test's folder, which the user owns, stands in.
        if (!runsAsUser()) {
            binDir_ = work_.filePath("bin");
            QDir().mkpath(binDir_);
            for (const char* program : {"commprof", "commprof-rank", "commprof-rank-fork"}) {
                QFile::copy(COMMPROF_BIN_DIR "/" + QString(program), bin(program));
            }
            ::chmod(QFile::encodeName(binDir_).constData(), 0755);
        }
        for (const char* program : {"commprof", "commprof-rank"}) {
            const CliResult v = runAsUser(bin(program), {"--version"}, 60000);
            if (v.exitCode != 0) {
                return QString("the build's %1 cannot be run by the unprivileged user, nor a "
                               "copy of it: %2")
                    .arg(program, QString(v.err).trimmed());
            }
        }
        return {};
    }

    // A system user of the test's own (removed again by removeUser). Why not, or empty.
    QString makeUser() {
        const QString name =
            QString("commprof-t%1").arg(QRandomGenerator::system()->generate() % 1000000);
        int code = 0;
        const QByteArray said = links_test::run(
            "useradd", {"--system", "--no-create-home", "--shell", "/usr/sbin/nologin", name},
            &code);
        if (code != 0) {
            return "cannot make an unprivileged user: " + QString(said).trimmed();
        }
        userName_ = name;
        const passwd* pw = ::getpwnam(name.toLocal8Bit().constData());
        if (!pw) {
            return "useradd made " + name + ", but getpwnam does not know it";
        }
        uid_ = pw->pw_uid;
        gid_ = pw->pw_gid;
        return {};
    }

private slots:
    void initTestCase() {
        QVERIFY(work_.isValid());
        tc_ = toolPath("tc");
        if (tc_.isEmpty() || toolPath("ip").isEmpty() || toolPath("nsenter").isEmpty()) {
            QSKIP("needs iproute2's ip and tc, and util-linux's nsenter");
        }
        if (::geteuid() == 0) {
            if (const QString why = makeUser(); !why.isEmpty()) {
                QSKIP(qPrintable(why));
            }
        }
        QVERIFY(QDir().mkpath(home()));
        QVERIFY(QDir().mkpath(work_.filePath("runtime")));
        for (const QString& dir : {work_.path(), home(), work_.filePath("runtime")}) {
            QVERIFY(::chown(QFile::encodeName(dir).constData(), uid_, gid_) == 0);
            QVERIFY(::chmod(QFile::encodeName(dir).constData(), 0700) == 0);
        }
        if (const QString why = userSkipReason(); !why.isEmpty()) {
            QSKIP(qPrintable(why));
        }
    }

    // The whole cell as the user: it completes, every file is the user's, the machine's
    // namespaces and interfaces are as they were, no process of the cell is left and its record
    // is gone.
    void cellCompletesAsTheUser() {
        const QString before = networkAside({});
        const QString matrix = write("tiny.yaml", ddpMatrix("1gbit", 3));
        const QString out = outDir("tiny");
        const CliResult run = runAsUser(bin("commprof"), {"run", matrix, "--out", out});
        QVERIFY2(run.exitCode == 0, run.err.constData());
        const QString cell = QDir(out).filePath("cells/mlp_gloo_cpu_ws2_link1gbit_r0");
        QFile cellFile(QDir(cell).filePath("cell.json"));
        QVERIFY(cellFile.open(QIODevice::ReadOnly));
        QCOMPARE(QJsonDocument::fromJson(cellFile.readAll()).object()["status"].toString(),
                 QString("complete"));
        const std::optional<QJsonObject> manifestLink = links_test::manifestLink(cell);
        QVERIFY(manifestLink);
        const QJsonObject& link = *manifestLink;
        QCOMPARE(link["hosts"].toInt(), 2);
        // Every file and folder the run wrote, the ranks' included, is the user's (stat).
        int files = 0;
        QDirIterator it(out, QDir::AllEntries | QDir::Hidden | QDir::System | QDir::NoDotAndDotDot,
                        QDirIterator::Subdirectories);
        while (it.hasNext()) {
            const QString path = it.next();
            struct stat st {};
            QVERIFY(::lstat(QFile::encodeName(path).constData(), &st) == 0);
            QVERIFY2(st.st_uid == uid_,
                     qPrintable(path + " is owned by uid " + QString::number(st.st_uid)));
            ++files;
        }
        QVERIFY2(files > 5, qPrintable(QString::number(files)));
        QCOMPARE(networkAside(runToken(out)), before);
        QVERIFY(QDir(recordDir()).entryList({"*.json"}, QDir::Files).isEmpty());
    }

    // While the cell runs its hosts are the keeper's alone, its ranks are in them and the link
    // is shaped; SIGKILL of the runner takes the keeper and the ranks with it within seconds.
    void killedRunnerLeavesNothing() {
        const QString before = networkAside({});
        const QString out = outDir("killed");
        QProcess runner;
        const Started s =
            startUntilRanksRun(runner, write("long.yaml", ddpMatrix("500mbit", 100000)), out);
        QVERIFY2(s.keeper > 0, "the cell's keeper and ranks never appeared");
        // Not in this machine's namespaces.
        QVERIFY2(links_test::namespacesWith(s.token).isEmpty(), qPrintable(s.token));
        // In the keeper's, each shaped with tbf at the rate; each rank in one of them.
        QStringList hosts;
        for (const QString& line :
             QString(insideKeeper(s.keeper, {toolPath("ip"), "netns", "list"})).split('\n')) {
            if (line.contains(s.token)) {
                hosts << line.section(' ', 0, 0);
            }
        }
        QCOMPARE(hosts.size(), 2);
        QSet<QByteArray> hostNamespaces;
        for (const QString& host : hosts) {
            const QByteArray qdisc =
                insideKeeper(s.keeper, {tc_, "-n", host, "qdisc", "show", "dev", "cpl0"});
            QVERIFY2(qdisc.contains("tbf") && qdisc.contains("rate 500Mbit"), qdisc.constData());
            const QByteArray inode =
                insideKeeper(s.keeper, {"stat", "-L", "-c", "%i", "/run/netns/" + host});
            hostNamespaces.insert("net:[" + inode.trimmed() + "]");
        }
        QSet<QByteArray> rankNamespaces;
        for (const Proc& rank : s.ranks) {
            rankNamespaces.insert(namespaceOf(QString::number(rank.pid), "net"));
        }
        QCOMPARE(rankNamespaces, hostNamespaces);
        QVERIFY(QFileInfo::exists(recordDir()));
        QCOMPARE(QDir(recordDir()).entryList({"*.json"}, QDir::Files).size(), 1);

        ::kill(pid_t(runner.processId()), SIGKILL);
        runner.waitForFinished(10000);
        QList<qint64> cell{s.keeper};
        for (const Proc& rank : s.ranks) {
            cell << rank.pid;
        }
        QVERIFY2(waitUntilGone(cell, 10000), "the keeper or a rank outlived its runner");
        QCOMPARE(networkAside(s.token), before);
        if (!userName_.isEmpty()) {
            // A user of the test's own: nothing of it runs any more.
            QElapsedTimer clock;
            clock.start();
            auto left = [this] {
                const QList<Proc> all = processes();
                return std::count_if(all.begin(), all.end(),
                                     [this](const Proc& p) { return p.uid == qint64(uid_); });
            };
            while (left() > 0 && clock.elapsed() < 10000) {
                QThread::msleep(100);
            }
            QCOMPARE(int(left()), 0);
        }
        // The record stays until probe --cleanup (or the next run) finds its owner gone.
        QCOMPARE(QDir(recordDir()).entryList({"*.json"}, QDir::Files).size(), 1);
        const CliResult probe =
            runAsUser(bin("commprof"), {"probe", "--cleanup", "--no-formation", "--json"});
        QVERIFY2(QDir(recordDir()).entryList({"*.json"}, QDir::Files).isEmpty(),
                 probe.out.constData());
    }

    // SIGINT, SIGTERM, SIGHUP stop the run: its keeper and ranks end and its record goes.
    void stoppedRunnerEndsItsKeeper_data() { links_test::addStopSignalRows(); }
    void stoppedRunnerEndsItsKeeper() {
        QFETCH(int, signal);
        const QString before = networkAside({});
        QProcess runner;
        const Started s =
            startUntilRanksRun(runner, write("long.yaml", ddpMatrix("500mbit", 100000)),
                               outDir(QString("stopped%1").arg(signal)));
        QVERIFY2(s.keeper > 0, "the cell's keeper and ranks never appeared");
        ::kill(pid_t(runner.processId()), signal);
        QVERIFY(runner.waitForFinished(60000));
        QList<qint64> cell{s.keeper};
        for (const Proc& rank : s.ranks) {
            cell << rank.pid;
        }
        QVERIFY2(waitUntilGone(cell, 5000), "the keeper or a rank outlived the stopped run");
        QCOMPARE(networkAside(s.token), before);
        QVERIFY(QDir(recordDir()).entryList({"*.json"}, QDir::Files).isEmpty());
    }

    // A keeper that outlived its runner (here a stand-in: a process of the user's in a user
    // namespace of its own, named in a record whose runner is gone) is ended by probe
    // --cleanup; a process named the same way that is in the machine's user namespace is not a
    // keeper and is left running.
    void leftoverKeeperIsEndedOthersAreNot() {
        QProcess keeper;
        QProcess impostor;
        asUser(keeper);
        asUser(impostor);
        keeper.start("unshare", {"--user", "--map-root-user", "sleep", "120"});
        impostor.start("sleep", {"120"});
        QVERIFY(keeper.waitForStarted() && impostor.waitForStarted());
        QThread::msleep(300); // unshare has made the namespace and run sleep
        QVERIFY(namespaceOf(QString::number(keeper.processId()), "user") !=
                namespaceOf("self", "user"));
        QProcess gone;
        gone.start("true", QStringList{});
        QVERIFY(gone.waitForFinished());
        QVERIFY(QDir().mkpath(recordDir()));
        for (const QString& dir : {work_.filePath("runtime/commprof"), recordDir()}) {
            QVERIFY(::chown(QFile::encodeName(dir).constData(), uid_, gid_) == 0);
        }
        // The start time as the kernel has it: /proc/PID/stat field 22.
        const auto startOf = [](qint64 pid) {
            QFile stat(QString("/proc/%1/stat").arg(pid));
            stat.open(QIODevice::ReadOnly);
            const QByteArray s = stat.readAll();
            return QString(s.mid(s.lastIndexOf(')') + 2).split(' ').value(19));
        };
        const auto record = [&](const QString& name, qint64 pid) {
            const QJsonObject r{{"owner_pid", double(gone.processId())},
                                {"owner_start", "1"},
                                {"mode", "user_namespace"},
                                {"link", "1gbit"},
                                {"namespaces", QJsonArray{name + "-h0", name + "-h1"}},
                                {"keeper_pid", double(pid)},
                                {"keeper_start", startOf(pid)}};
            const QString path = QDir(recordDir()).filePath(name + ".json");
            QFile f(path);
            QVERIFY(f.open(QIODevice::WriteOnly));
            f.write(QJsonDocument(r).toJson());
            f.close();
            QVERIFY(::chown(QFile::encodeName(path).constData(), uid_, gid_) == 0);
        };
        record("commprof-left0-0", keeper.processId());
        record("commprof-left1-0", impostor.processId());
        const CliResult r =
            runAsUser(bin("commprof"), {"probe", "--cleanup", "--no-formation", "--json"});
        QVERIFY2(r.out.contains("removed 2 emulated host(s)"), r.out.constData());
        QVERIFY2(waitUntilGone({keeper.processId()}, 5000), r.out.constData());
        QVERIFY2(alive(impostor.processId()), r.out.constData());
        QVERIFY(QDir(recordDir()).entryList({"*.json"}, QDir::Files).isEmpty());
        impostor.kill();
        impostor.waitForFinished();
        keeper.waitForFinished();
    }

    // probe, as the user, says links work in a user namespace, with the shapers tc itself takes
    // in a user namespace util-linux makes.
    void probeNamesTheModeAndTheShapers() {
        const CliResult r = runAsUser(bin("commprof"), {"probe", "--json", "--no-formation"});
        const QJsonObject links = r.json()["links"].toObject();
        QVERIFY2(links["available"].toBool(), r.out.constData());
        QCOMPARE(links["mode"].toString(), QString("user_namespace"));
        const QJsonObject shapers = links["shapers"].toObject();
        for (const auto& [name, args] : links_test::triedShapers()) {
            const CliResult tc =
                runAsUser("unshare",
                          QStringList{"--user", "--map-root-user", "--net", tc_, "qdisc", "replace",
                                      "dev", "lo", "root", name} +
                              args,
                          30000);
            QVERIFY2(shapers[name].toBool() == (tc.exitCode == 0), qPrintable(name));
        }
        QVERIFY2(QString(runAsUser(bin("commprof"), {"probe", "--no-formation"}).out)
                     .contains("links     available in a user namespace of its own"),
                 r.out.constData());
    }

    void cleanupTestCase() { removeUser(); }

public:
    ~TstLinksUserns() override { removeUser(); }

private:
    // Always, however the suite ended (cleanupTestCase, else the destructor).
    void removeUser() {
        if (userName_.isEmpty()) {
            return;
        }
        // Anything of the throwaway user still running was started here: end each by its pid.
        for (const Proc& p : processes()) {
            if (p.uid == qint64(uid_)) {
                ::kill(pid_t(p.pid), SIGKILL);
            }
        }
        QThread::msleep(500);
        int code = 0;
        const QByteArray said = links_test::run("userdel", {userName_}, &code);
        if (code != 0) {
            qWarning("userdel %s: %s", qPrintable(userName_), said.constData());
        }
        userName_.clear();
    }
};

QTEST_GUILESS_MAIN(TstLinksUserns)
#include "tst_links_userns.moc"
