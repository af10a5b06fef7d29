#include "process_identity.h"

#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QSaveFile>
#include <QThread>

#include <csignal>

namespace commprof::runner {

quint64 processStartTime(qint64 pid) {
    QFile f(QString("/proc/%1/stat").arg(pid));
    if (!f.open(QIODevice::ReadOnly)) {
        return 0;
    }
    const QByteArray stat = f.readAll();
    // The command name (field 2) may hold spaces; fields after the last ')' are plain.
    const int close = stat.lastIndexOf(')');
    if (close < 0) {
        return 0;
    }
    const QList<QByteArray> fields = stat.mid(close + 2).split(' ');
    // fields[0] is field 3 (state); start time is field 22.
    if (fields.size() < 20 || fields[0] == "Z") {
        return 0;
    }
    return fields[19].toULongLong();
}

bool writePidRecord(const QString& path, qint64 pid) {
    QSaveFile f(path);
    if (!f.open(QIODevice::WriteOnly)) {
        return false;
    }
    f.write(QString("%1 %2\n").arg(pid).arg(processStartTime(pid)).toUtf8());
    return f.commit();
}

bool readPidRecord(const QString& path, PidRecord& out) {
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly)) {
        return false;
    }
    const QList<QByteArray> parts = f.readAll().trimmed().split(' ');
    if (parts.size() != 2) {
        return false;
    }
    out.pid = parts[0].toLongLong();
    out.startTime = parts[1].toULongLong();
    out.path = path;
    return out.pid > 0;
}

bool stillRunning(const PidRecord& record) {
    const quint64 now = processStartTime(record.pid);
    return now != 0 && now == record.startTime;
}

int endRecordedProcesses(const QString& dir, int graceMs) {
    QList<PidRecord> live;
    const QStringList files = QDir(dir).entryList({"*.pid"}, QDir::Files);
    for (const QString& name : files) {
        PidRecord r;
        const QString path = QDir(dir).filePath(name);
        if (readPidRecord(path, r) && stillRunning(r)) {
            ::kill(pid_t(r.pid), SIGTERM);
            live.push_back(r);
        } else {
            QFile::remove(path);
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

} // namespace commprof::runner
