// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The local launcher: the cell's ranks as a RankPool of processes on this machine, rendezvous
// on loopback, pid files under the results folder's .pids.

#include "runner/cell_launcher.h"

namespace commprof::runner {

class LocalLauncher : public CellLauncher {
    Q_OBJECT
public:
    explicit LocalLauncher(QObject* parent = nullptr);
    void start(const CellLaunch& launch) override;
    void stop() override;

private:
    RankPool* pool_;
};

} // namespace commprof::runner
