// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// What commprof asks Slurm through its own client commands (srun, sbatch, scontrol, scancel,
// squeue, sacct): which of them are on PATH, the partitions and nodes (`scontrol show ... -o`),
// and a host list expanded (`scontrol show hostnames`). No Slurm library is linked: a cluster's
// own commands speak its protocol version.

#include <QJsonObject>
#include <QList>
#include <QMap>
#include <QProcessEnvironment>
#include <QString>
#include <QStringList>

#include <algorithm>

namespace commprof::platform {

struct SlurmTools {
    QString srun, sbatch, scontrol, scancel, squeue, sacct; // empty: not on PATH
    // The commands a Slurm run needs that are not on PATH.
    QStringList missing() const;
};
SlurmTools findSlurmTools(const QProcessEnvironment& env);

struct ToolResult {
    bool ran = false; // started and finished within its time
    int exitCode = -1;
    QByteArray out;
    QByteArray err;
    bool ok() const { return ran && exitCode == 0; }
    QString problem(const QString& what) const; // "what: exit N: stderr" for the messages
};
// Runs a short client command and waits for it (at most timeoutMs).
ToolResult runTool(const QString& program, const QStringList& args, const QProcessEnvironment& env,
                   int timeoutMs = 30000);

// One record of `scontrol show job|step|node|partition -o`: "Key=Value Key=Value ...", values
// may hold spaces (OS=Linux 6.1 ...); a key is a word that starts a token and ends with '='.
QMap<QString, QString> parseSlurmRecord(const QByteArray& line);

struct SlurmNode {
    QString name;
    QString state; // IDLE, MIXED, ALLOCATED, DOWN*, IDLE+DRAIN, ...
    int cpus = 0;
    double memoryBytes = 0; // RealMemory, what Slurm lets jobs use on the node
    int gpus = 0;           // from Gres=gpu[:type]:N
    QStringList partitions;
    bool idle() const { return state == "IDLE"; }
};

// The cluster as the nodes a run would use: the current allocation's nodes when commprof runs
// inside one (SLURM_JOB_ID), else the nodes of `partition` (the default partition when empty).
struct SlurmCluster {
    QString problem; // non-empty: Slurm could not be asked, and why
    QString partition;
    bool partitionUp = false;
    QString allocation; // SLURM_JOB_ID when inside an allocation
    QList<SlurmNode> nodes;
    bool reachable() const { return problem.isEmpty(); }
    // Per node, the smallest of the nodes: what every node can give a cell.
    int smallestCpus() const { return smallest(&SlurmNode::cpus); }
    double smallestMemoryBytes() const { return smallest(&SlurmNode::memoryBytes); }
    int smallestGpus() const { return smallest(&SlurmNode::gpus); }
    template <typename T> T smallest(T SlurmNode::*field) const {
        return nodes.isEmpty() ? T{} : std::ranges::min(nodes, {}, field).*field;
    }
};
SlurmCluster querySlurmCluster(const QString& partition, const QProcessEnvironment& env);

// `commprof probe --launcher slurm`: the client commands found, the partition (or allocation)
// and its nodes with their state. `issues` lists what stops a Slurm run (a command missing, no
// such partition, a partition not UP, no node); nodes that are not idle are only reported.
struct SlurmProbe {
    SlurmTools tools;
    SlurmCluster cluster;
    QStringList issues;
    QJsonObject toJson() const;
};
SlurmProbe probeSlurm(const QString& partition, const QProcessEnvironment& env);

// `scontrol show hostnames LIST`: vm[01-03] -> vm01, vm02, vm03. Empty on failure.
QStringList expandHostnames(const QString& nodeList, const QProcessEnvironment& env);

} // namespace commprof::platform
