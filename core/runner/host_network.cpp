// SPDX-License-Identifier: GPL-3.0-or-later
#include "host_network.h"

#include "files/safe_file.h"
#include "matrix/links.h"
#include "platform/link_emulation.h"
#include "runner/process_identity.h"

#include <QAtomicInt>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QProcess>
#include <QRegularExpression>
#include <QStandardPaths>

#include <unistd.h>

namespace commprof::runner {
namespace {

// Every name commprof gives a namespace starts so; a record naming anything else is not ours.
const QString kPrefix = QStringLiteral("commprof-");
const QString kNetnsDir = QStringLiteral("/run/netns");
const QString kHostEnd = QStringLiteral("cpl0"); // a host's end of its link, in its namespace
constexpr qint64 kMaxRecordBytes = 64 * 1024;

bool namespaceExists(const QString& name) {
    return QFileInfo::exists(QDir(kNetnsDir).filePath(name));
}

// Only a name commprof could have made, and one that is a plain file name.
bool ours(const QString& name) {
    static const QRegularExpression plain("^commprof-[a-z0-9-]{1,64}$");
    return plain.match(name).hasMatch();
}

QString removeNamespace(const QString& name) {
    if (!ours(name) || !namespaceExists(name)) {
        return {};
    }
    return runNetworkTool("ip", {"netns", "del", name});
}

// A link sends at its rate from the first byte, as a wire does. tbf's bucket (256 KiB) would
// let a message under it cross at loopback speed, which the sweep's fit would take for the
// link's: a second bucket of one packet at 10 % over the rate (peakrate) holds bursts to it.
constexpr int kMaxPacketBytes = 16384; // the host end's GSO size, within the peak bucket
constexpr int kPeakBucketBytes = 20000;

QStringList shaperOf(const QString& link) {
    const double bits = matrix::linkBitsPerSecond(link).value_or(1e9);
    return QStringList{"tbf", "rate", link, "burst", "256kb", "latency", "50ms", "peakrate"}
           << QString::number(qint64(bits * 1.1)) + "bit"
           << "mtu" << QString::number(kPeakBucketBytes);
}

QAtomicInt cellsMade;

// A user namespace mode record whose runner is gone: its namespaces went with its keeper,
// unless the keeper still runs; then it is ended. Returns how many namespaces went (or, with
// `remove` false, would go).
int endLeftoverKeeper(const QJsonObject& r, const QString& path,
                      const std::function<void(const QString&)>& log, bool remove) {
    const qint64 owner = qint64(r["owner_pid"].toDouble());
    const qint64 keeper = qint64(r["keeper_pid"].toDouble());
    const PidRecord alive{keeper, r["keeper_start"].toString().toULongLong(), {}, {}};
    const bool running = keeper > 1 && alive.startTime > 0 && stillRunning(alive);
    const int names = int(r["namespaces"].toArray().size());
    if (!remove) {
        if (running && log) {
            log(QString("namespace keeper %1 (%2 namespaces), left by run pid %3")
                    .arg(keeper)
                    .arg(names)
                    .arg(owner));
        }
        return running ? names : 0;
    }
    const bool ended = running && NamespaceKeeper::endLeftover(keeper, alive.startTime);
    if (running && !ended && log) {
        log(QString("namespace keeper %1 of record %2 left alone: not a keeper of this user")
                .arg(keeper)
                .arg(path));
    } else if (!running && log) {
        log(QString("record %1 removed: its namespaces ended with their keeper").arg(path));
    } else if (ended && log) {
        log(QString("ended namespace keeper %1 and with it %2 namespaces, left by run pid %3")
                .arg(keeper)
                .arg(names)
                .arg(owner));
    }
    QFile::remove(path);
    return ended ? names : 0;
}

} // namespace

QString hostRecordDir() {
    if (const QString env = qEnvironmentVariable("COMMPROF_LINK_RECORD_DIR"); !env.isEmpty()) {
        return env;
    }
    if (::geteuid() == 0) {
        return QStringLiteral("/run/commprof/links");
    }
    // A normal user's records are that user's own: another user's killed run is not theirs to
    // clean, and its keeper is gone with it anyway.
    const QString runtime = qEnvironmentVariable("XDG_RUNTIME_DIR");
    const QString base =
        runtime.isEmpty() ? QStandardPaths::writableLocation(QStandardPaths::GenericCacheLocation)
                          : runtime;
    return QDir(base).filePath("commprof/links");
}

EmulatedHosts::~EmulatedHosts() {
    tearDown();
}

QString EmulatedHosts::addressOf(int host) {
    return QString("169.254.77.%1").arg(host + 1);
}

QString EmulatedHosts::networkNamespacePath(int host) const {
    const QString name = namespaceOf(host);
    return keeper_ ? keeper_->networkNamespacePath(name) : QDir(kNetnsDir).filePath(name);
}

QString EmulatedHosts::userNamespacePath() const {
    return keeper_ ? keeper_->userNamespacePath() : QString();
}

QString EmulatedHosts::runTool(const QString& tool, const QStringList& args) const {
    return keeper_ ? keeper_->run(tool, args) : runNetworkTool(tool, args);
}

QString EmulatedHosts::build(const QString& runId, const QString& link, int hosts) {
    tearDown();
    if (hosts < 2 || hosts > 250) {
        return QString("%1 hosts: an emulated link joins 2 to 250").arg(hosts);
    }
    const platform::LinkEmulation emulation = platform::linkEmulation();
    if (emulation.mode == platform::LinkEmulationMode::Unavailable) {
        return emulation.refusal;
    }
    const QString token = QString(runId).remove(QRegularExpression("[^a-z0-9]")).left(12);
    const QString base =
        QString("%1%2-%3").arg(kPrefix, token).arg(cellsMade.fetchAndAddOrdered(1));
    QStringList names;
    for (int h = 0; h < hosts; ++h) {
        names << QString("%1-h%2").arg(base).arg(h);
    }
    const QString bridge = hosts > 2 ? base + "-sw" : QString();
    if (!bridge.isEmpty()) {
        names << bridge;
    }
    // Written before anything is made: a SIGKILL from here on leaves a record to clean by.
    const QString dir = hostRecordDir();
    if (const QString e = files::makeDirs(dir); !e.isEmpty()) {
        return "cannot make the record folder for emulated hosts: " + e;
    }
    QJsonObject record{{"owner_pid", double(::getpid())},
                       {"owner_start", QString::number(processStartTime(::getpid()))},
                       {"mode", platform::linkEmulationModeName(emulation.mode)},
                       {"link", link},
                       {"namespaces", QJsonArray::fromStringList(names)}};
    const QString path = QDir(dir).filePath(base + ".json");
    if (const QString e = files::writeAtomically(path, QJsonDocument(record).toJson());
        !e.isEmpty()) {
        return "cannot record the emulated hosts: " + e;
    }
    record_ = path;
    namespaces_ = names;
    if (emulation.mode == platform::LinkEmulationMode::UserNamespace) {
        // The keeper is recorded once it runs; a SIGKILL before that ends it all the same.
        keeper_ = std::make_unique<NamespaceKeeper>();
        QString e = keeper_->start();
        if (e.isEmpty()) {
            record["keeper_pid"] = double(keeper_->pid());
            record["keeper_start"] = QString::number(keeper_->startTime());
            e = files::writeAtomically(path, QJsonDocument(record).toJson());
        }
        if (!e.isEmpty()) {
            tearDown();
            return "cannot make the emulated hosts: " + e;
        }
    }

    QList<QPair<QString, QStringList>> steps;
    const auto ip = [&steps](const QStringList& args) { steps.append({"ip", args}); };
    for (const QString& n : names) {
        ip({"netns", "add", n});
        ip({"-n", n, "link", "set", "lo", "up"});
    }
    if (bridge.isEmpty()) {
        ip({"link", "add", kHostEnd, "netns", names[0], "type", "veth", "peer", "name", kHostEnd,
            "netns", names[1]});
    } else {
        ip({"-n", bridge, "link", "add", "cpbr", "type", "bridge"});
        ip({"-n", bridge, "link", "set", "cpbr", "up"});
        for (int h = 0; h < hosts; ++h) {
            const QString port = QString("cph%1").arg(h);
            ip({"link", "add", kHostEnd, "netns", names[h], "type", "veth", "peer", "name", port,
                "netns", bridge});
            ip({"-n", bridge, "link", "set", port, "master", "cpbr", "up"});
        }
    }
    for (int h = 0; h < hosts; ++h) {
        ip({"-n", names[h], "addr", "add", addressOf(h) + "/24", "dev", kHostEnd});
        ip({"-n", names[h], "link", "set", kHostEnd, "gso_max_size",
            QString::number(kMaxPacketBytes), "up"});
        steps.append({"tc", QStringList{"-n", names[h], "qdisc", "add", "dev", kHostEnd, "root"} +
                                shaperOf(link)});
    }
    for (const auto& [tool, args] : steps) {
        if (const QString e = runTool(tool, args); !e.isEmpty()) {
            tearDown();
            return "cannot make the emulated hosts: " + e;
        }
    }
    return {};
}

void EmulatedHosts::tearDown() {
    bool all = true;
    if (keeper_) {
        keeper_->stop(); // the kernel frees its namespaces, with all that was made in them
        keeper_.reset();
    } else {
        for (const QString& n : namespaces_) {
            all = removeNamespace(n).isEmpty() && all;
        }
    }
    // A namespace that would not go stays recorded: the next run tries again.
    if (all && !record_.isEmpty()) {
        QFile::remove(record_);
    }
    namespaces_.clear();
    record_.clear();
}

int removeLeftoverHosts(const std::function<void(const QString&)>& log, bool remove) {
    const QDir dir(hostRecordDir());
    int removed = 0;
    for (const QString& file : dir.entryList({"commprof-*.json"}, QDir::Files)) {
        const QString path = dir.filePath(file);
        QJsonObject r;
        try {
            r = QJsonDocument::fromJson(
                    files::readRegularFile(path, kMaxRecordBytes, files::Links::Refuse))
                    .object();
        } catch (const std::exception& e) {
            if (log) {
                log(QString("record %1 left alone: %2").arg(path, e.what()));
            }
            continue;
        }
        const PidRecord owner{
            qint64(r["owner_pid"].toDouble()), r["owner_start"].toString().toULongLong(), {}, {}};
        if (owner.pid > 0 && stillRunning(owner)) {
            continue; // a live run's hosts
        }
        if (r["mode"].toString() ==
            platform::linkEmulationModeName(platform::LinkEmulationMode::UserNamespace)) {
            removed += endLeftoverKeeper(r, path, log, remove);
            continue;
        }
        bool all = true;
        for (const QJsonValue& v : r["namespaces"].toArray()) {
            const QString n = v.toString();
            if (!ours(n) || !namespaceExists(n)) {
                continue;
            }
            const QString e = remove ? removeNamespace(n) : QString();
            all = all && e.isEmpty();
            removed += e.isEmpty() ? 1 : 0;
            if (log) {
                log(e.isEmpty() ? QString("%1namespace %2, left by run pid %3")
                                      .arg(remove ? "removed " : "", n)
                                      .arg(owner.pid)
                                : e);
            }
        }
        if (all && remove) {
            QFile::remove(path);
        }
    }
    return removed;
}

QJsonObject probeLinkEmulation() {
    const platform::LinkEmulation emulation = platform::linkEmulation();
    QJsonObject out{{"available", false},
                    {"mode", platform::linkEmulationModeName(emulation.mode)}};
    if (emulation.mode == platform::LinkEmulationMode::Unavailable) {
        out["reason"] = emulation.refusal;
        return out;
    }
    EmulatedHosts scratch;
    const QString error = scratch.build("probe" + randomToken(32), "1gbit", 2);
    out["available"] = error.isEmpty();
    if (!error.isEmpty()) {
        out["reason"] = error;
        return out;
    }
    // Each replaces the link's root qdisc in the scratch host, with the least it takes.
    const QList<QPair<QString, QStringList>> shapers{
        {"tbf", {"rate", "1gbit", "burst", "256kb", "latency", "50ms"}},
        {"htb", {"default", "1"}},
        {"netem", {"delay", "1ms"}},
        {"fq", {}},
        {"fq_codel", {}},
        {"cake", {}}};
    QJsonObject found;
    for (const auto& [name, args] : shapers) {
        found[name] = scratch
                          .runTool("tc", QStringList{"-n", scratch.namespaceOf(0), "qdisc",
                                                     "replace", "dev", kHostEnd, "root", name} +
                                             args)
                          .isEmpty();
    }
    out["shapers"] = found;
    return out;
}

} // namespace commprof::runner
