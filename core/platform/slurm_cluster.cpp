// SPDX-License-Identifier: GPL-3.0-or-later
#include "slurm_cluster.h"

#include "spec/units.h"

#include <QJsonArray>
#include <QProcess>
#include <QRegularExpression>
#include <QStandardPaths>

namespace commprof::platform {
namespace {

constexpr qsizetype kMaxToolOutput = 8LL * 1024 * 1024;

QString find(const QProcessEnvironment& env, const QString& program) {
    return QStandardPaths::findExecutable(program,
                                          env.value("PATH").split(':', Qt::SkipEmptyParts));
}

QList<SlurmNode> parseSlurmNodes(const QByteArray& text) {
    static const QRegularExpression gpu("gpu(?::[^:,(]+)?:(\\d+)");
    QList<SlurmNode> out;
    for (const QByteArray& line : text.split('\n')) {
        const QMap<QString, QString> r = parseSlurmRecord(line);
        if (!r.contains("NodeName")) {
            continue;
        }
        SlurmNode n;
        n.name = r["NodeName"];
        n.state = r["State"];
        n.cpus = r.value("CPUTot", r["CPUEfctv"]).toInt();
        n.memoryBytes = r["RealMemory"].toDouble() * spec::kMiB;
        for (QRegularExpressionMatchIterator g = gpu.globalMatch(r["Gres"]); g.hasNext();) {
            n.gpus += g.next().captured(1).toInt();
        }
        n.partitions = r["Partitions"].split(',', Qt::SkipEmptyParts);
        out << n;
    }
    return out;
}

} // namespace

QStringList SlurmTools::missing() const {
    QStringList out;
    const std::pair<const char*, const QString*> needed[] = {
        {"srun", &srun}, {"sbatch", &sbatch}, {"scontrol", &scontrol}, {"scancel", &scancel}};
    for (const auto& [name, path] : needed) {
        if (path->isEmpty()) {
            out << name;
        }
    }
    return out;
}

SlurmTools findSlurmTools(const QProcessEnvironment& env) {
    return {find(env, "srun"),    find(env, "sbatch"), find(env, "scontrol"),
            find(env, "scancel"), find(env, "squeue"), find(env, "sacct")};
}

QString ToolResult::problem(const QString& what) const {
    if (!ran) {
        return what + ": did not run or did not finish in time";
    }
    const QString text = QString::fromUtf8(err.trimmed().isEmpty() ? out : err).trimmed();
    return QString("%1: exit %2%3").arg(what).arg(exitCode).arg(text.isEmpty() ? "" : ": " + text);
}

ToolResult runTool(const QString& program, const QStringList& args, const QProcessEnvironment& env,
                   int timeoutMs) {
    ToolResult r;
    if (program.isEmpty()) {
        return r;
    }
    QProcess p;
    p.setProcessEnvironment(env);
    p.start(program, args);
    if (!p.waitForStarted(timeoutMs) || !p.waitForFinished(timeoutMs)) {
        p.kill();
        p.waitForFinished(2000);
        return r;
    }
    r.ran = p.exitStatus() == QProcess::NormalExit;
    r.exitCode = r.ran ? p.exitCode() : -1;
    r.out = p.readAllStandardOutput().left(kMaxToolOutput);
    r.err = p.readAllStandardError().left(kMaxToolOutput);
    return r;
}

QMap<QString, QString> parseSlurmRecord(const QByteArray& line) {
    static const QRegularExpression key("(?:^|\\s)([A-Za-z][A-Za-z0-9_:/]*)=");
    const QString text = QString::fromUtf8(line).trimmed();
    QMap<QString, QString> out;
    QRegularExpressionMatchIterator it = key.globalMatch(text);
    QString name;
    qsizetype valueStart = -1;
    while (it.hasNext()) {
        const QRegularExpressionMatch m = it.next();
        if (valueStart >= 0) {
            out[name] = text.mid(valueStart, m.capturedStart(0) - valueStart).trimmed();
        }
        name = m.captured(1);
        valueStart = m.capturedEnd(0);
    }
    if (valueStart >= 0) {
        out[name] = text.mid(valueStart).trimmed();
    }
    return out;
}

QStringList expandHostnames(const QString& nodeList, const QProcessEnvironment& env) {
    const ToolResult r =
        runTool(find(env, "scontrol"), {"show", "hostnames", nodeList}, env, 30000);
    return r.ok() ? QString::fromUtf8(r.out).split('\n', Qt::SkipEmptyParts) : QStringList{};
}

SlurmCluster querySlurmCluster(const QString& partition, const QProcessEnvironment& env) {
    SlurmCluster c;
    const QString scontrol = find(env, "scontrol");
    if (scontrol.isEmpty()) {
        c.problem = "scontrol is not on PATH";
        return c;
    }
    const ToolResult parts = runTool(scontrol, {"show", "partition", "-o"}, env);
    if (!parts.ok()) {
        c.problem = parts.problem("scontrol show partition");
        return c;
    }
    for (const QByteArray& line : parts.out.split('\n')) {
        const QMap<QString, QString> p = parseSlurmRecord(line);
        if (p.contains("PartitionName") &&
            (partition.isEmpty() ? p["Default"] == "YES" : p["PartitionName"] == partition)) {
            c.partition = p["PartitionName"];
            c.partitionUp = p["State"] == "UP"; // else DOWN, DRAIN or INACTIVE
        }
    }
    c.allocation = env.value("SLURM_JOB_ID");
    if (c.partition.isEmpty() && c.allocation.isEmpty()) {
        c.problem = partition.isEmpty()
                        ? QString("the cluster has no default partition; name one (partition:)")
                        : QString("partition '%1' does not exist").arg(partition);
        return c;
    }
    const ToolResult nodes = runTool(scontrol, {"show", "node", "-o"}, env);
    if (!nodes.ok()) {
        c.problem = nodes.problem("scontrol show node");
        return c;
    }
    const QStringList allocated = c.allocation.isEmpty()
                                      ? QStringList{}
                                      : expandHostnames(env.value("SLURM_JOB_NODELIST"), env);
    for (const SlurmNode& n : parseSlurmNodes(nodes.out)) {
        if (c.allocation.isEmpty() ? n.partitions.contains(c.partition)
                                   : allocated.contains(n.name)) {
            c.nodes << n;
        }
    }
    if (c.nodes.isEmpty()) {
        c.problem =
            c.allocation.isEmpty()
                ? QString("partition '%1' has no nodes").arg(c.partition)
                : QString("no node of allocation %1 is known to scontrol").arg(c.allocation);
    }
    return c;
}

SlurmProbe probeSlurm(const QString& partition, const QProcessEnvironment& env) {
    SlurmProbe p;
    p.tools = findSlurmTools(env);
    if (const QStringList missing = p.tools.missing(); !missing.isEmpty()) {
        p.issues << "not on PATH: " + missing.join(", ");
    }
    p.cluster = querySlurmCluster(partition, env);
    if (!p.cluster.reachable()) {
        p.issues << p.cluster.problem;
    } else if (p.cluster.allocation.isEmpty() && !p.cluster.partitionUp) {
        p.issues << QString("partition '%1' is not UP").arg(p.cluster.partition);
    }
    return p;
}

QJsonObject SlurmProbe::toJson() const {
    QJsonObject commands;
    const std::pair<const char*, const QString*> all[] = {
        {"srun", &tools.srun},       {"sbatch", &tools.sbatch}, {"scontrol", &tools.scontrol},
        {"scancel", &tools.scancel}, {"squeue", &tools.squeue}, {"sacct", &tools.sacct}};
    for (const auto& [name, path] : all) {
        commands[name] = path->isEmpty() ? QJsonValue() : QJsonValue(*path);
    }
    QJsonArray nodeList;
    int idle = 0;
    for (const SlurmNode& n : cluster.nodes) {
        idle += n.idle() ? 1 : 0;
        nodeList.append(QJsonObject{{"name", n.name},
                                    {"state", n.state},
                                    {"idle", n.idle()},
                                    {"cpus", n.cpus},
                                    {"memory_bytes", n.memoryBytes},
                                    {"gpus", n.gpus}});
    }
    return QJsonObject{{"commands", commands},
                       {"partition", cluster.partition},
                       {"partition_up", cluster.partitionUp},
                       {"allocation", cluster.allocation},
                       {"nodes", nodeList},
                       {"idle_nodes", idle},
                       {"issues", QJsonArray::fromStringList(issues)},
                       {"ok", issues.isEmpty()}};
}

} // namespace commprof::platform
