// SPDX-License-Identifier: GPL-3.0-or-later
// commprof probe: can this machine run a matrix, every reason at once; with --launcher slurm,
// Slurm's side instead.

#include "cli_common.h"

#include "platform/slurm_cluster.h"
#include "probe/probe.h"
#include "runner/rank_program.h"

#include <QJsonArray>

namespace commprof::cli {
namespace {

// Slurm's side only: its commands, the partition and whether its nodes are idle.
int probeSlurm(const QString& partition, bool json) {
    const platform::SlurmProbe p =
        platform::probeSlurm(partition, QProcessEnvironment::systemEnvironment());
    if (json) {
        printJson(p.toJson());
        return p.issues.isEmpty() ? Ok : NotFine;
    }
    const QJsonObject o = p.toJson();
    QString text;
    const QJsonObject commands = o["commands"].toObject();
    for (auto it = commands.begin(); it != commands.end(); ++it) {
        text += QString("%1 %2\n")
                    .arg(it.key(), -9)
                    .arg(it.value().isNull() ? "NOT FOUND" : it.value().toString());
    }
    text += p.cluster.allocation.isEmpty()
                ? QString("partition %1 (%2)\n")
                      .arg(p.cluster.partition.isEmpty() ? "?" : p.cluster.partition,
                           p.cluster.partitionUp ? "UP" : "not UP")
                : QString("allocation %1\n").arg(p.cluster.allocation);
    for (const platform::SlurmNode& n : p.cluster.nodes) {
        text += QString("node      %1 %2, %3 CPUs, %4 GiB, %5 GPU(s)\n")
                    .arg(n.name, n.idle() ? "idle" : "busy: " + n.state)
                    .arg(n.cpus)
                    .arg(n.memoryBytes / 1073741824.0, 0, 'f', 1)
                    .arg(n.gpus);
    }
    text +=
        QString("%1 of %2 node(s) idle\n").arg(o["idle_nodes"].toInt()).arg(p.cluster.nodes.size());
    for (const QString& i : p.issues) {
        text += "ISSUE     " + i + "\n";
    }
    printText(text);
    return p.issues.isEmpty() ? Ok : NotFine;
}

// "links     available as root (shapers: tbf yes, htb yes, netem no, ...)", or why not.
QString linksLine(const QJsonObject& links) {
    if (!links["available"].toBool()) {
        return "links     not available: " + links["reason"].toString() + "\n";
    }
    QStringList shapers;
    const QJsonObject s = links["shapers"].toObject();
    for (auto it = s.begin(); it != s.end(); ++it) {
        shapers << it.key() + (it.value().toBool() ? " yes" : " no");
    }
    const QString how =
        links["mode"].toString() == "user_namespace" ? "in a user namespace of its own" : "as root";
    return "links     available " + how + " (shapers: " + shapers.join(", ") + ")\n";
}

} // namespace

int probeCommand(const Args& args) {
    probe::ProbeOptions o;
    o.rankProgram = runner::defaultRankProgram();
    const bool json = args.has("--json");
    o.cleanup = args.has("--cleanup");
    o.formation = !args.has("--no-formation");
    o.otherHosts = args.values("--compare-hosts");
    o.resultsDir = args.value("--results", o.resultsDir);
    if (args.has("--ports")) {
        const QString ports = args.value("--ports");
        const QStringList range = ports.split('-');
        bool ok1 = false, ok2 = false;
        const int first = range.value(0).toInt(&ok1);
        const int last = range.value(1, range.value(0)).toInt(&ok2);
        if (!ok1 || !ok2 || first < 1 || last > 65535 || last < first) {
            return args.usageError(
                QString("--ports: expected FIRST-LAST within 1-65535, got '%1'").arg(ports));
        }
        o.firstPort = first;
        o.portCount = last - first + 1;
    }
    if (launcherOf(args) == matrix::LauncherKind::Slurm) {
        return probeSlurm(args.value("--partition"), json);
    }
    const probe::ProbeReport r = probe::runProbe(o);
    if (json) {
        printJson(r.toJson());
    } else {
        const QJsonObject d = r.details;
        const QJsonObject host = d["host"].toObject();
        const QJsonObject rk = d["rank"].toObject();
        const QJsonObject b = d["budgets"].toObject();
        QString text = QString("host      %1, %2 cores, %3 GiB total, %4 GiB available\n")
                           .arg(host["cpu_model"].toString())
                           .arg(host["cores"].toInt())
                           .arg(host["mem_total_bytes"].toDouble() / 1073741824.0, 0, 'f', 1)
                           .arg(host["mem_available_bytes"].toDouble() / 1073741824.0, 0, 'f', 1);
        text +=
            QString("rank      libtorch %1, CUDA %2, Gloo %3, NCCL %4, Kineto %5\n")
                .arg(rk["torch_version"].toString(), rk["cuda_build"].toBool() ? "yes" : "no",
                     rk["gloo"].toBool() ? "yes" : "no",
                     rk["nccl"].toBool() ? "yes " + rk["nccl_version"].toString() : QString("no"),
                     rk["kineto"].toBool() ? "yes" : "no");
        text +=
            QString("gpus      %1\n")
                .arg(d["gpus"].toArray().isEmpty() ? QString("none")
                                                   : QString::number(d["gpus"].toArray().size()));
        text += QString("budgets   host %1 GiB (%2), device %3 GiB (%4)\n")
                    .arg(b["host_bytes"].toDouble() / 1073741824.0, 0, 'f', 2)
                    .arg(b["host_source"].toString())
                    .arg(b["device_bytes"].toDouble() / 1073741824.0, 0, 'f', 2)
                    .arg(b["device_source"].toString());
        text += linksLine(d["links"].toObject());
        if (d.contains("formation")) {
            text += "formation " + d["formation"].toObject()["detail"].toString() + "\n";
        }
        for (const QString& i : r.issues) {
            text += "ISSUE     " + i + "\n";
        }
        for (const QString& w : r.warnings) {
            text += "warning   " + w + "\n";
        }
        text += r.verdict() + "\n";
        printText(text);
    }
    return r.issues.isEmpty() ? Ok : NotFine;
}

} // namespace commprof::cli
