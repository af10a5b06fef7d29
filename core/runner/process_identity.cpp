// SPDX-License-Identifier: GPL-3.0-or-later
#include "process_identity.h"

#include "files/safe_file.h"
#include "spec/fork_contract.h"
#include "spec/rank_contract.h"

#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QFileInfo>
#include <QList>
#include <QRandomGenerator>
#include <QRegularExpression>
#include <QThread>

#include <algorithm>
#include <csignal>
#include <unistd.h>

namespace commprof::runner {
namespace {

constexpr qint64 kMaxPidFileBytes = 4096;
constexpr qint64 kMaxEnvironBytes = 4LL * 1024 * 1024;
// A rank, or the client that stands in for a rank forked by the run's fork server: ending the
// client ends its rank.
const char* const kRankBinaries[] = {"commprof-rank", spec::fork::kClientProgram};

QString executableOf(qint64 pid) {
    char target[4096];
    const QByteArray link = QString("/proc/%1/exe").arg(pid).toLocal8Bit();
    const ssize_t n = ::readlink(link.constData(), target, sizeof target - 1);
    if (n <= 0) {
        return {};
    }
    // A binary rebuilt while it runs shows as "PATH (deleted)".
    static const QRegularExpression deleted(" \\(deleted\\)$");
    return QFile::decodeName(QByteArray(target, int(n))).remove(deleted);
}

bool environmentHolds(qint64 pid, const QByteArray& entry) {
    return files::readRegularFileOrEmpty(QString("/proc/%1/environ").arg(pid), kMaxEnvironBytes,
                                         files::Links::Follow)
        .split('\0')
        .contains(entry);
}

} // namespace

quint64 processStartTime(qint64 pid) {
    const QByteArray stat = files::readRegularFileOrEmpty(QString("/proc/%1/stat").arg(pid),
                                                          kMaxPidFileBytes, files::Links::Follow);
    // The command name (field 2) may hold spaces; fields after the last ')' are plain.
    const int close = stat.lastIndexOf(')');
    if (close < 0) {
        return 0;
    }
    const QList<QByteArray> fields = stat.mid(close + 2).split(' ');
    // fields[0] is field 3 (state); start time is field 22.
    return fields.size() < 20 || fields[0] == "Z" ? 0 : fields[19].toULongLong();
}

QString writePidRecord(const QString& path, qint64 pid, const QString& runId) {
    return files::writeAtomically(
        path, QString("%1 %2 %3\n").arg(pid).arg(processStartTime(pid)).arg(runId).toUtf8());
}

QList<QByteArray> readRecordWords(const QString& path, int count) {
    const QList<QByteArray> words =
        files::readRegularFileOrEmpty(path, kMaxPidFileBytes, files::Links::Refuse)
            .trimmed()
            .split(' ');
    return words.size() == count ? words : QList<QByteArray>{};
}

bool readPidRecord(const QString& path, PidRecord& out) {
    const QList<QByteArray> parts = readRecordWords(path, 3);
    if (parts.isEmpty()) {
        return false;
    }
    bool pidOk = false;
    bool startOk = false;
    out.pid = parts[0].toLongLong(&pidOk);
    out.startTime = parts[1].toULongLong(&startOk);
    out.runId = QString::fromLatin1(parts[2]);
    out.path = path;
    return pidOk && startOk && out.pid > 0 && !out.runId.isEmpty();
}

bool stillRunning(const PidRecord& record) {
    const quint64 now = processStartTime(record.pid);
    return now != 0 && now == record.startTime;
}

bool isRecordedRank(const PidRecord& record) {
    const QString binary = QFileInfo(executableOf(record.pid)).fileName();
    return stillRunning(record) &&
           std::ranges::any_of(kRankBinaries, [&](const char* name) { return binary == name; }) &&
           environmentHolds(record.pid, "COMMPROF_RUN_ID=" + record.runId.toLatin1());
}

int endRecordedProcesses(const QString& dir, int graceMs) {
    if (files::isLink(dir)) {
        return 0; // never act on records that live elsewhere
    }
    QList<PidRecord> live;
    // A record still being written (FILE.pid.XXXXXX.tmp) when its launcher was killed names a
    // rank as well: it is read like the rest, and removed whatever it holds.
    const QString pid = QString("*") + spec::files::kPidFile.suffix;
    const QStringList names =
        QDir(dir).entryList({pid, pid + ".*" + spec::files::kPartial}, QDir::Files | QDir::System);
    for (const QString& name : names) {
        PidRecord r;
        const QString path = QDir(dir).filePath(name);
        if (readPidRecord(path, r) && isRecordedRank(r)) {
            ::kill(pid_t(r.pid), SIGTERM);
            live.push_back(r);
        } else {
            QFile::remove(path); // unlinks a planted link itself, never its target
        }
    }
    QElapsedTimer clock;
    clock.start();
    for (const PidRecord& r : live) {
        while (stillRunning(r) && clock.elapsed() < graceMs) {
            QThread::msleep(20);
        }
        if (stillRunning(r)) {
            ::kill(pid_t(r.pid), SIGKILL);
        }
        QFile::remove(r.path);
    }
    return int(live.size());
}

QString randomToken(int bits) {
    QByteArray bytes(qsizetype((bits + 7) / 8), '\0');
    std::ranges::generate(bytes, [] { return char(QRandomGenerator::system()->bounded(256)); });
    return QString::fromLatin1(bytes.toHex());
}

} // namespace commprof::runner
