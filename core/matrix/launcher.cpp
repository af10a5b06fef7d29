// SPDX-License-Identifier: GPL-3.0-or-later
#include "launcher.h"

#include <QJsonArray>

#include <algorithm>

namespace commprof::matrix {

const char* toString(LauncherKind kind) {
    return kind == LauncherKind::Slurm ? "slurm" : "local";
}

std::vector<int> ranksPerNode(const LauncherSpec& spec, int worldSize) {
    const int ws = std::max(1, worldSize);
    if (spec.kind == LauncherKind::Local) {
        return {ws};
    }
    std::vector<int> out;
    if (spec.ntasksPerNode) {
        const int perNode = std::max(1, *spec.ntasksPerNode);
        for (int left = ws; left > 0; left -= perNode) {
            out.push_back(std::min(left, perNode));
        }
        return out;
    }
    const int nodes = std::clamp(spec.nodes.value_or(1), 1, ws);
    for (int n = 0; n < nodes; ++n) {
        out.push_back(ws / nodes + (n < ws % nodes ? 1 : 0));
    }
    return out;
}

QJsonObject toJson(const LauncherSpec& spec) {
    QJsonObject o{{"kind", toString(spec.kind)}};
    if (spec.kind == LauncherKind::Local) {
        return o;
    }
    o["partition"] = spec.partition;
    o["account"] = spec.account;
    for (const auto& [key, value] : {std::pair{"nodes", spec.nodes},
                                     {"ntasks_per_node", spec.ntasksPerNode},
                                     {"time_limit_s", spec.timeLimitS}}) {
        if (value) {
            o[key] = *value;
        }
    }
    o["extra_args"] = QJsonArray::fromStringList(spec.extraArgs);
    o["rendezvous_port"] = spec.rendezvousPort;
    return o;
}

} // namespace commprof::matrix
