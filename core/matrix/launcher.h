// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// How a matrix's cells are started: `local` (a pool of rank processes on this machine) or
// `slurm` (one srun step per cell inside a Slurm allocation), and where the ranks of a cell are
// placed, which per-node feasibility and the srun options both follow.

#include <QJsonObject>
#include <QString>
#include <QStringList>

#include <optional>
#include <vector>

namespace commprof::matrix {

enum class LauncherKind { Local, Slurm };
const char* toString(LauncherKind kind);

struct LauncherSpec {
    LauncherKind kind = LauncherKind::Local;
    QString partition; // empty: the cluster's default partition
    QString account;
    std::optional<int> nodes; // spread each cell over this many nodes (at most one per rank)
    std::optional<int> ntasksPerNode; // or put at most this many ranks on a node
    std::optional<int> timeLimitS;    // Slurm's --time; by default the cell's own deadline
    QStringList extraArgs;            // given to sbatch (or to srun inside an allocation)
    int rendezvousPort = 29500;       // rank 0's store port on the cell's first node
    bool operator==(const LauncherSpec&) const = default;
};

// The ranks of a world of `worldSize` on each node, first node first: one node for the local
// launcher; under Slurm `nodes` balanced (as srun's block distribution with --nodes places
// them), or `ntasks_per_node` on every node but the last.
std::vector<int> ranksPerNode(const LauncherSpec& spec, int worldSize);

QJsonObject toJson(const LauncherSpec& spec);

} // namespace commprof::matrix
