// SPDX-License-Identifier: GPL-3.0-or-later
#include "rank_starts.h"

#include "results/json_kind.h"
#include "spec/mapped.h"

#include <QStringList>

namespace commprof::runner {

RankStarts rankStarts(const QString& runnerExecReason, const std::vector<RankExit>& ranks,
                      qint64 serverPid) {
    RankStarts s;
    s.serverPid = serverPid;
    if (!runnerExecReason.isEmpty()) {
        s.startedBy = "exec";
        s.execReason = runnerExecReason;
        return s;
    }
    for (const RankExit& r : ranks) {
        if (!r.execNotice.isEmpty()) {
            s.execd << r.rank;
            if (s.execReason.isEmpty()) {
                s.execReason = r.execNotice;
            }
        }
    }
    s.startedBy = s.execd.isEmpty()                           ? "fork"
                  : s.execd.size() == qsizetype(ranks.size()) ? "exec"
                                                              : "mixed";
    if (s.startedBy != "mixed") {
        s.execd.clear();
    }
    return s;
}

void RankStarts::addTo(QJsonObject& launcher) const {
    launcher["ranks_started_by"] = startedBy;
    if (!execReason.isEmpty()) {
        launcher["exec_reason"] = execReason;
    }
    if (!execd.isEmpty()) {
        launcher["execd_ranks"] = results::jsonArray(execd);
    }
}

QString RankStarts::logLine() const {
    const QString forked = QString("forked from the run's fork server (pid %1)").arg(serverPid);
    if (startedBy == "fork") {
        return "ranks " + forked + "\n";
    }
    if (startedBy == "exec") {
        return QString("ranks started by exec: %1\n").arg(execReason);
    }
    return QString("rank(s) %1 started by exec: %2; the others %3\n")
        .arg(spec::mapped<QStringList>(execd, [](int r) { return QString::number(r); }).join(", "),
             execReason, forked);
}

} // namespace commprof::runner
