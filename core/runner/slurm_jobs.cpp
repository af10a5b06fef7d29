// SPDX-License-Identifier: GPL-3.0-or-later
#include "slurm_jobs.h"

#include "files/safe_file.h"
#include "platform/slurm_cluster.h"
#include "runner/process_identity.h"

#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QRegularExpression>
#include <QThread>

#include <unistd.h>

namespace commprof::runner {
namespace {

bool ownedByThisUser(const QString& userId) {
    const QRegularExpressionMatch m = QRegularExpression("\\((\\d+)\\)$").match(userId);
    return m.hasMatch() && m.captured(1).toUInt() == ::getuid();
}

bool readJobRecord(const QString& path, JobRecord& out) {
    const QList<QByteArray> parts = readRecordWords(path, 3);
    static const QRegularExpression id("^\\d+(\\.\\d+)?$");
    if (parts.isEmpty()) {
        return false;
    }
    out = {QString::fromLatin1(parts[0]), QString::fromUtf8(parts[1]),
           QString::fromLatin1(parts[2]), path};
    return id.match(out.id).hasMatch() && !out.runId.isEmpty();
}

// Whether Slurm still runs the recorded job or step as the record describes it
// (`scontrol show job|step -o ID`; Slurm no longer knows one that has ended).
bool isRecordedJob(const JobRecord& r, const QProcessEnvironment& env, const QString& scontrol) {
    const platform::ToolResult t =
        platform::runTool(scontrol, {"show", r.isStep() ? "step" : "job", "-o", r.id}, env);
    if (!t.ok()) {
        return false;
    }
    const QMap<QString, QString> s = platform::parseSlurmRecord(t.out.split('\n').value(0));
    if (r.isStep()) {
        return s.value("StepId") == r.id && s.value("Name") == r.name &&
               ownedByThisUser(s.value("UserId")) && slurmStateActive(s.value("State"));
    }
    return s.value("JobId") == r.id && s.value("JobName") == r.name &&
           s.value("Comment") == slurmJobComment(r.runId) && ownedByThisUser(s.value("UserId")) &&
           slurmStateActive(s.value("JobState"));
}

} // namespace

QString slurmJobName(const QString& cellId) {
    return "commprof_" + cellId;
}

QString slurmJobComment(const QString& runId) {
    return "commprof run " + runId;
}

bool slurmStateActive(const QString& state) {
    static const QStringList active{"PENDING",    "RUNNING",   "SUSPENDED",    "CONFIGURING",
                                    "COMPLETING", "REQUEUED",  "RESIZING",     "STOPPED",
                                    "SIGNALING",  "STAGE_OUT", "REQUEUE_HOLD", "REQUEUE_FED"};
    return active.contains(state.section(' ', 0, 0));
}

QString writeJobRecord(const QString& path, const JobRecord& r) {
    return files::writeAtomically(path, QString("%1 %2 %3\n").arg(r.id, r.name, r.runId).toUtf8());
}

int endRecordedJobs(const QString& dir, const QProcessEnvironment& env, int waitMs) {
    if (files::isLink(dir)) {
        return 0; // never act on records that live elsewhere
    }
    const platform::SlurmTools tools = platform::findSlurmTools(env);
    QList<JobRecord> live;
    for (const QString& name : QDir(dir).entryList({"*.job"}, QDir::Files | QDir::System)) {
        const QString path = QDir(dir).filePath(name);
        JobRecord r;
        if (!readJobRecord(path, r)) {
            QFile::remove(path);
            continue;
        }
        if (tools.scontrol.isEmpty() || tools.scancel.isEmpty()) {
            continue; // cannot be checked here: kept for a run that can
        }
        if (isRecordedJob(r, env, tools.scontrol)) {
            platform::runTool(tools.scancel, {r.id}, env);
            live << r;
        } else {
            QFile::remove(path);
        }
    }
    QElapsedTimer clock;
    clock.start();
    for (const JobRecord& r : live) {
        while (isRecordedJob(r, env, tools.scontrol) && clock.elapsed() < waitMs) {
            QThread::msleep(250);
        }
        QFile::remove(r.path);
    }
    return int(live.size());
}

} // namespace commprof::runner
