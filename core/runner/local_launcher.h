// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The local launcher: the cell's ranks as a RankPool of processes on this machine, rendezvous
// on loopback, pid files under the results folder's .pids. Over an emulated link the same
// pool's ranks run on emulated hosts made for the cell and removed when it ends, however it
// ends (runner/host_network.h).

#include "runner/cell_launcher.h"
#include "runner/host_network.h"

#include <memory>

namespace commprof::runner {

class LocalLauncher : public CellLauncher {
    Q_OBJECT
public:
    explicit LocalLauncher(QObject* parent = nullptr);
    void start(const CellLaunch& launch) override;
    void stop() override;

private:
    // The ranks' places on the cell's hosts, made now; empty over loopback. Why not on failure.
    QString placeRanks(const CellLaunch& launch, PoolSpec& spec);

    RankPool* pool_;
    std::unique_ptr<EmulatedHosts> hosts_;
    QJsonObject link_; // the link the cell ran over, for the manifest's launcher record
};

} // namespace commprof::runner
