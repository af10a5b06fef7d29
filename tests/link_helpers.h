// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// What the emulated-link tests share: whether this machine can run them (root, ip, tc, tbf,
// tried by hand here, not through the code under test), the machine's own namespaces and
// interfaces to compare before and after, and a record folder of the test's own.

#include <QByteArray>
#include <QDir>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QList>
#include <QPair>
#include <QProcess>
#include <QRegularExpression>
#include <QString>
#include <QStringList>
#include <QTest>

#include <algorithm>
#include <csignal>
#include <optional>
#include <vector>

#include <unistd.h>

namespace links_test {

inline QByteArray run(const QString& program, const QStringList& args, int* code = nullptr) {
    QProcess p;
    p.start(program, args);
    p.waitForFinished(30000);
    if (code) {
        *code = p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1;
    }
    return p.readAllStandardOutput() + p.readAllStandardError();
}

// Why the emulated-link tests cannot run here, or empty: as root, a namespace with a tbf qdisc
// on its loopback is made and removed by hand.
inline QString skipReason() {
    if (::geteuid() != 0) {
        return "needs root (network namespaces, veth pairs, tc qdiscs)";
    }
    const QString ns = QString("cptest-probe-%1").arg(::getpid());
    int code = 0;
    const QByteArray add = run("ip", {"netns", "add", ns}, &code);
    if (code != 0) {
        return "cannot make a network namespace: " + QString(add).trimmed();
    }
    const QByteArray tbf = run("tc",
                               {"-n", ns, "qdisc", "add", "dev", "lo", "root", "tbf", "rate",
                                "1gbit", "burst", "256kb", "latency", "50ms"},
                               &code);
    run("ip", {"netns", "del", ns});
    return code == 0 ? QString() : "the kernel has no tbf qdisc: " + QString(tbf).trimmed();
}

// `ip netns list` and this namespace's interfaces (names and indices, counters left out), to
// compare before and after.
inline QString machineNetwork() {
    QString links;
    for (const QString& line : QString(run("ip", {"-o", "link", "show"})).split('\n')) {
        links += line.section(':', 0, 1) + "\n"; // "3: eth0": what exists, not its counters
    }
    return QString(run("ip", {"netns", "list"})) + "--\n" + links;
}

// The namespaces whose names carry `token`.
inline QStringList namespacesWith(const QString& token) {
    QStringList out;
    for (const QString& line : QString(run("ip", {"netns", "list"})).split('\n')) {
        const QString name = line.section(' ', 0, 0);
        if (!name.isEmpty() && name.contains(token)) {
            out << name;
        }
    }
    return out;
}

// What the namespaces of every commprof run but concurrent ones look like: the machine's own
// list without commprof's and other tests' transient names, except those of `token`.
inline QString networkAside(const QString& token) {
    QString out;
    for (const QString& line : machineNetwork().split('\n')) {
        const QString name = line.section(' ', 0, 0);
        const bool transient = name.startsWith("commprof-") || name.startsWith("cptest-");
        if (!transient || (!token.isEmpty() && name.contains(token))) {
            out += line + "\n";
        }
    }
    return out;
}

// A 2-rank DDP cell of a 2M MLP over `link`, as a matrix named `name`.
inline QByteArray ddpMatrix(const QByteArray& name, const QByteArray& link, int iterations) {
    return "name: " + name + "\ndefaults: {iterations: " + QByteArray::number(iterations) +
           ", warmup: 1, batch_size: 8, link: " + link +
           ", timeout_s: 300}\n"
           "models: [{name: mlp, family: mlp, params: 2.0e6}]\n"
           "layers: [{name: gloo_cpu}]\n"
           "world_sizes: [2]\n";
}

// The run's id as the names of its hosts carry it.
inline QString runToken(const QString& results) {
    QFile f(QDir(results).filePath("run.json"));
    if (!f.open(QIODevice::ReadOnly)) {
        return {};
    }
    return QJsonDocument::fromJson(f.readAll()).object()["run_id"].toString().left(12);
}

// The signals that stop a run (and must take its hosts with it), as rows of a column "signal".
inline void addStopSignalRows() {
    QTest::addColumn<int>("signal");
    QTest::newRow("SIGINT") << int(SIGINT);
    QTest::newRow("SIGTERM") << int(SIGTERM);
    QTest::newRow("SIGHUP") << int(SIGHUP);
}

// The median of timings (0 for none), and the load average they were taken at: a measured test
// quotes both.
inline double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v.empty()      ? 0
           : v.size() % 2 ? v[v.size() / 2]
                          : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2;
}

inline QString loadAverage() {
    QFile f("/proc/loadavg");
    return f.open(QIODevice::ReadOnly) ? QString(f.readAll()).section(' ', 0, 2) : "?";
}

// The link a cell's manifest says it ran on; nothing where the manifest cannot be opened.
inline std::optional<QJsonObject> manifestLink(const QString& cell) {
    QFile manifest(QDir(cell).filePath("manifest.json"));
    if (!manifest.open(QIODevice::ReadOnly)) {
        return std::nullopt;
    }
    return QJsonDocument::fromJson(manifest.readAll())
        .object()["launcher"]
        .toObject()["link"]
        .toObject();
}

// The shapers `commprof probe` reports on, each with what a root qdisc of it on lo takes: the
// suites try each with tc themselves and compare.
inline QList<QPair<QString, QStringList>> triedShapers() {
    return {{"tbf", {"rate", "1gbit", "burst", "256kb", "latency", "50ms"}},
            {"htb", {}},
            {"netem", {"delay", "1ms"}},
            {"fq", {}},
            {"fq_codel", {}},
            {"cake", {}}};
}

} // namespace links_test
