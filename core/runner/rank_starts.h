// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// How a cell's local ranks were really started, for its records (cell.json and manifest.json
// under `launcher`, and launcher.log): forked from the run's fork server, exec'd by the runner
// (the server off, lost or not fit for the cell), or exec'd by the server's client, which says
// so on the rank's stderr (spec/fork_contract.h) when the server cannot fork it.

#include "runner/launcher_base.h"

#include <QJsonObject>
#include <QList>
#include <QString>

#include <vector>

namespace commprof::runner {

struct RankStarts {
    QString startedBy;  // "fork", "exec", or "mixed"
    QString execReason; // why (the first exec'd rank's reason); empty when all were forked
    QList<int> execd;   // the exec'd ranks, when mixed
    qint64 serverPid = 0;

    void addTo(QJsonObject& launcher) const; // ranks_started_by, exec_reason, execd_ranks
    QString logLine() const;                 // one line for launcher.log, with its newline
};

// RUNNER_EXEC_REASON: why the runner exec'd every rank itself, empty when it started them
// through the fork server's client (SERVER_PID); RANKS: how each ended, with the client's notice.
RankStarts rankStarts(const QString& runnerExecReason, const std::vector<RankExit>& ranks,
                      qint64 serverPid);

} // namespace commprof::runner
