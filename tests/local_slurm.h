// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// A one-node Slurm cluster of the test's own: slurm.conf generated into a temporary folder with
// free ports, munged with its own socket and key, slurmctld and slurmd, all of them stopped by
// pid when the cluster is destroyed (or stop() is called), whatever the tests did. The clients
// (srun, sbatch, scontrol, ...) find it through SLURM_CONF in env(). The daemons run in the
// foreground as children of the test with a parent-death signal, so that a test that crashes
// still takes them with it.

#include <QCoreApplication>
#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QProcess>
#include <QStandardPaths>
#include <QSysInfo>
#include <QTcpServer>
#include <QTemporaryDir>
#include <QThread>

#include <csignal>
#include <memory>
#include <vector>

#include <pwd.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <unistd.h>

// Every process whose command line names `text` (a results folder): what a cell left behind.
inline QStringList processesNaming(const QString& text) {
    QStringList found;
    const QByteArray needle = text.toUtf8();
    for (const QString& pid : QDir("/proc").entryList(QDir::Dirs)) {
        bool numeric = false;
        pid.toLongLong(&numeric);
        if (!numeric || pid.toLongLong() == QCoreApplication::applicationPid()) {
            continue;
        }
        QFile f("/proc/" + pid + "/cmdline");
        if (f.open(QIODevice::ReadOnly)) {
            QByteArray cmd = f.readAll();
            if (cmd.contains(needle)) {
                found << pid + ": " + QString::fromUtf8(cmd.replace('\0', ' ')).left(200);
            }
        }
    }
    return found;
}

class LocalSlurm {
public:
    static constexpr int kRealMemoryMib = 6144;
    static constexpr int kCpus = 2;

    ~LocalSlurm() { stop(); }

    // The Slurm programs a cluster needs that are not installed; empty when all are.
    static QStringList missingPrograms() {
        QStringList missing;
        const QStringList sbin{"/usr/sbin", "/sbin", "/usr/local/sbin"};
        for (const char* p : {"munged", "slurmctld", "slurmd"}) {
            if (QStandardPaths::findExecutable(p).isEmpty() &&
                QStandardPaths::findExecutable(p, sbin).isEmpty()) {
                missing << p;
            }
        }
        for (const char* p : {"srun", "sbatch", "salloc", "scontrol", "scancel", "squeue"}) {
            if (QStandardPaths::findExecutable(p).isEmpty()) {
                missing << p;
            }
        }
        return missing;
    }

    // Why a suite that needs Slurm is skipped here; empty when it can run.
    static QString skipReason() {
        const QStringList missing = missingPrograms();
        return missing.isEmpty() ? QString()
                                 : "Slurm is not installed (missing: " + missing.join(", ") +
                                       "); packaging/bootstrap.sh installs slurm-wlm and munge";
    }

    // This process's own environment as env() has it, for what the test runs in-process (the
    // runner, a plan) and asks Slurm through it.
    void useInThisProcess() const {
        const QProcessEnvironment wanted = env();
        for (const QString& k : QProcessEnvironment::systemEnvironment().keys()) {
            if (!wanted.contains(k)) {
                qunsetenv(qPrintable(k));
            }
        }
        qputenv("SLURM_CONF", QFile::encodeName(conf()));
    }

    // Starts the daemons and waits until the node is idle. Empty on success, else why not (the
    // daemons' logs are in the message).
    QString start() {
        if (!dir_.isValid()) {
            return "no temporary folder";
        }
        host_ = QSysInfo::machineHostName();
        for (const char* d : {"state", "spool", "log", "munge"}) {
            QDir(dir_.path()).mkpath(d);
        }
        ::chmod(QFile::encodeName(dir_.filePath("munge")).constData(), 0700);
        if (QString e = writeMungeKey(); !e.isEmpty()) {
            return e;
        }
        QString e = writeConf();
        if (!e.isEmpty()) {
            return e;
        }
        const QString socket = dir_.filePath("munge/munge.socket");
        mungePid_ = launch("munged",
                           {"--foreground", "--force", "--socket=" + socket,
                            "--key-file=" + dir_.filePath("munge/munge.key"),
                            "--pid-file=" + dir_.filePath("munge/munged.pid"),
                            "--seed-file=" + dir_.filePath("munge/munged.seed"),
                            "--log-file=" + dir_.filePath("log/munged.log")},
                           "munged.out");
        if (!waitFor([&] { return QFile::exists(socket); }, 20000)) {
            return "munged did not create its socket: " + log("munged.log") + log("munged.out");
        }
        ctldPid_ = launch("slurmctld", {"-D", "-f", conf()}, "slurmctld.out");
        if (!waitFor([&] { return scontrol({"ping"}).contains("UP"); }, 60000)) {
            return "slurmctld did not answer: " + log("slurmctld.log") + log("slurmctld.out");
        }
        slurmdPid_ = launch("slurmd", {"-D", "-f", conf(), "-N", host_}, "slurmd.out");
        if (!waitFor([&] { return nodeState().startsWith("IDLE"); }, 90000)) {
            return "the node did not become idle (" + nodeState() + "): " + log("slurmd.log") +
                   log("slurmd.out") + log("slurmctld.log");
        }
        return {};
    }

    // Ends every job, then the daemons, each by the pid it was started with.
    void stop() {
        if (ctldPid_ > 0 && slurmdPid_ > 0) {
            run("scancel", {"--full", "--user=" + userName()}, 20000);
            waitFor([&] { return run("squeue", {"-h", "-o", "%i"}).trimmed().isEmpty(); }, 60000);
        }
        for (qint64* pid : {&slurmdPid_, &ctldPid_, &mungePid_}) {
            end(*pid);
        }
    }

    QProcessEnvironment env() const {
        QProcessEnvironment e = QProcessEnvironment::systemEnvironment();
        // Never the allocation of a cluster the tests may run under.
        for (const QString& k : e.keys()) {
            if (k.startsWith("SLURM_") || k.startsWith("SBATCH_") || k.startsWith("SALLOC_") ||
                k.startsWith("SRUN_")) {
                e.remove(k);
            }
        }
        e.insert("SLURM_CONF", conf());
        return e;
    }

    QString conf() const { return dir_.filePath("slurm.conf"); }
    QString host() const { return host_; }
    QString partition() const { return "commprof"; }

    // A client command against this cluster; its standard output, "" when it failed.
    QByteArray run(const QString& program, const QStringList& args, int timeoutMs = 30000) const {
        QProcess p;
        p.setProcessEnvironment(env());
        p.start(program, args);
        if (!p.waitForFinished(timeoutMs)) {
            p.kill();
            p.waitForFinished();
            return {};
        }
        return p.exitStatus() == QProcess::NormalExit && p.exitCode() == 0
                   ? p.readAllStandardOutput()
                   : QByteArray();
    }
    QByteArray scontrol(const QStringList& args) const { return run("scontrol", args); }

    // "Key" of `scontrol show job -o ID`.
    QString jobField(const QString& jobId, const QString& key) const {
        const QString line = QString::fromUtf8(scontrol({"show", "job", "-o", jobId}));
        for (const QString& token : line.split(' ', Qt::SkipEmptyParts)) {
            if (token.startsWith(key + "=")) {
                return token.mid(key.size() + 1);
            }
        }
        return {};
    }

    QString nodeState() const {
        const QString line = QString::fromUtf8(scontrol({"show", "node", "-o", host_}));
        for (const QString& token : line.split(' ', Qt::SkipEmptyParts)) {
            if (token.startsWith("State=")) {
                return token.mid(6);
            }
        }
        return "unknown";
    }

    QString log(const QString& name) const {
        QFile f(dir_.filePath("log/" + name));
        if (!f.open(QIODevice::ReadOnly)) {
            return {};
        }
        return "\n--- " + name + ":\n" + QString::fromUtf8(f.readAll().right(3000));
    }

    static bool waitFor(const std::function<bool()>& done, int timeoutMs) {
        QElapsedTimer t;
        t.start();
        while (!done()) {
            if (t.elapsed() > timeoutMs) {
                return false;
            }
            QThread::msleep(250);
        }
        return true;
    }

private:
    static QString userName() {
        const passwd* pw = ::getpwuid(::getuid());
        return pw ? QString::fromLocal8Bit(pw->pw_name) : QString::number(::getuid());
    }

    static int freePort() {
        QTcpServer s;
        s.listen(QHostAddress::LocalHost, 0);
        return s.serverPort();
    }

    QString writeMungeKey() {
        QFile random("/dev/urandom");
        QFile key(dir_.filePath("munge/munge.key"));
        if (!random.open(QIODevice::ReadOnly) || !key.open(QIODevice::WriteOnly)) {
            return "cannot write the munge key";
        }
        key.write(random.read(1024));
        key.close();
        key.setPermissions(QFile::ReadOwner);
        return {};
    }

    QString writeConf() {
        // Both ports are taken from the system; slurmctld uses its port and the next one.
        int ctld = freePort();
        while (ctld == 0 || ctld >= 65000) {
            ctld = freePort();
        }
        int slurmd = freePort();
        while (slurmd == ctld || slurmd == ctld + 1) {
            slurmd = freePort();
        }
        const QString user = userName();
        const QString d = dir_.path();
        const QString text =
            QString("ClusterName=commprof-test\n"
                    "SlurmctldHost=%1(127.0.0.1)\n"
                    "SlurmctldPort=%2\n"
                    "SlurmdPort=%3\n"
                    "SlurmUser=%4\n"
                    "SlurmdUser=%4\n"
                    "AuthType=auth/munge\n"
                    "CredType=cred/munge\n"
                    "AuthInfo=socket=%5/munge/munge.socket\n"
                    "StateSaveLocation=%5/state\n"
                    "SlurmdSpoolDir=%5/spool\n"
                    "SlurmctldPidFile=%5/slurmctld.pid\n"
                    "SlurmdPidFile=%5/slurmd.pid\n"
                    "SlurmctldLogFile=%5/log/slurmctld.log\n"
                    "SlurmdLogFile=%5/log/slurmd.log\n"
                    "ProctrackType=proctrack/linuxproc\n"
                    "TaskPlugin=task/none\n"
                    "SelectType=select/cons_tres\n"
                    "SelectTypeParameters=CR_CPU\n"
                    "MpiDefault=none\n"
                    "JobAcctGatherType=jobacct_gather/none\n"
                    "AccountingStorageType=accounting_storage/none\n"
                    "ReturnToService=2\n"
                    "InactiveLimit=0\n"
                    "KillWait=5\n"
                    "MinJobAge=600\n"
                    "NodeName=%1 NodeAddr=127.0.0.1 CPUs=%6 RealMemory=%7 State=UNKNOWN\n"
                    "PartitionName=commprof Nodes=%1 Default=YES MaxTime=INFINITE State=UP "
                    "OverSubscribe=FORCE:4\n")
                .arg(host_)
                .arg(ctld)
                .arg(slurmd)
                .arg(user, d)
                .arg(kCpus)
                .arg(kRealMemoryMib);
        QFile f(conf());
        if (!f.open(QIODevice::WriteOnly) || f.write(text.toUtf8()) != text.toUtf8().size()) {
            return "cannot write " + conf();
        }
        return {};
    }

    // A daemon in the foreground, as a child of the test that the kernel ends (SIGTERM) when
    // the test process dies in any way, an abort included.
    qint64 launch(const QString& name, const QStringList& args, const QString& outFile) {
        QString program = QStandardPaths::findExecutable(name);
        if (program.isEmpty()) {
            program =
                QStandardPaths::findExecutable(name, {"/usr/sbin", "/sbin", "/usr/local/sbin"});
        }
        auto p = std::make_unique<QProcess>();
        p->setProgram(program);
        p->setArguments(args);
        p->setProcessEnvironment(env());
        p->setStandardOutputFile(dir_.filePath("log/" + outFile));
        p->setStandardErrorFile(dir_.filePath("log/" + outFile), QIODevice::Append);
        p->setChildProcessModifier([] { ::prctl(PR_SET_PDEATHSIG, SIGTERM); });
        p->start();
        if (!p->waitForStarted(10000)) {
            return 0;
        }
        const qint64 pid = p->processId();
        daemons_.push_back(std::move(p));
        return pid;
    }

    // SIGTERM by pid, SIGKILL after 20 s.
    void end(qint64& pid) {
        if (pid <= 0) {
            return;
        }
        ::kill(pid_t(pid), SIGTERM);
        for (auto& p : daemons_) {
            if (p->processId() == pid && !p->waitForFinished(20000)) {
                ::kill(pid_t(pid), SIGKILL);
                p->waitForFinished(5000);
            }
        }
        pid = 0;
    }

    QTemporaryDir dir_{QDir::tempPath() + "/commprof-slurm-XXXXXX"};
    QString host_;
    qint64 mungePid_ = 0;
    qint64 ctldPid_ = 0;
    qint64 slurmdPid_ = 0;
    std::vector<std::unique_ptr<QProcess>> daemons_;
};

// In initTestCase: skipped (saying why) without Slurm's programs, failed when the cluster does
// not start, otherwise the cluster runs and this process uses it.
#define COMMPROF_START_LOCAL_SLURM(cluster)                                                        \
    do {                                                                                           \
        if (const QString why = LocalSlurm::skipReason(); !why.isEmpty()) {                        \
            QSKIP(qPrintable(why));                                                                \
        }                                                                                          \
        const QString problem = (cluster).start();                                                 \
        QVERIFY2(problem.isEmpty(), qPrintable(problem));                                          \
        (cluster).useInThisProcess();                                                              \
    } while (false)
