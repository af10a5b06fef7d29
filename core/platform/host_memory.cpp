// SPDX-License-Identifier: GPL-3.0-or-later
#include "host_memory.h"

#include <QDir>
#include <QFile>
#include <QProcess>
#include <QStandardPaths>

#include <algorithm>

namespace commprof::platform {

QByteArray readSystemFile(const QString& path) {
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

namespace {

double meminfoKb(const QByteArray& meminfo, const QByteArray& key) {
    for (const QByteArray& line : meminfo.split('\n')) {
        if (line.startsWith(key + ":")) {
            return line.mid(key.size() + 1).trimmed().split(' ').value(0).toDouble();
        }
    }
    return 0;
}

} // namespace

double HostMemory::budgetBytes() const {
    return cgroupLimitBytes ? std::min(availableBytes, *cgroupLimitBytes) : availableBytes;
}

QString HostMemory::source() const {
    return cgroupLimitBytes && *cgroupLimitBytes < availableBytes ? "cgroup memory limit"
                                                                  : "MemAvailable";
}

HostMemory readHostMemory(const QString& root) {
    const QDir r(root);
    HostMemory m;
    const QByteArray meminfo = readSystemFile(r.filePath("proc/meminfo"));
    m.totalBytes = meminfoKb(meminfo, "MemTotal") * 1024.0;
    m.availableBytes = meminfoKb(meminfo, "MemAvailable") * 1024.0;
    for (const char* path :
         {"sys/fs/cgroup/memory.max", "sys/fs/cgroup/memory/memory.limit_in_bytes"}) {
        const QByteArray v = readSystemFile(r.filePath(path)).trimmed();
        bool ok = false;
        const double limit = v.toDouble(&ok);
        // "max" or a huge sentinel means no limit.
        if (ok && limit > 0 && limit < 1e18 && (m.totalBytes <= 0 || limit < m.totalBytes)) {
            m.cgroupLimitBytes = limit;
            break;
        }
    }
    return m;
}

QList<GpuInfo> parseNvidiaSmi(const QByteArray& csv) {
    QList<GpuInfo> out;
    for (const QByteArray& line : csv.split('\n')) {
        const QList<QByteArray> cols = line.split(',');
        if (cols.size() < 3) {
            continue;
        }
        out.push_back({QString(cols[0]).trimmed(), cols[1].trimmed().toDouble() * 1024.0 * 1024.0,
                       QString(cols[2]).trimmed()});
    }
    return out;
}

QList<GpuInfo> queryGpus(const QProcessEnvironment& env) {
    const QString smi = QStandardPaths::findExecutable(
        "nvidia-smi", env.value("PATH").split(':', Qt::SkipEmptyParts));
    if (smi.isEmpty()) {
        return {};
    }
    QProcess p;
    p.setProcessEnvironment(env);
    p.start(smi, {"--query-gpu=name,memory.total,compute_cap", "--format=csv,noheader,nounits"});
    if (!p.waitForFinished(10000) || p.exitCode() != 0) {
        return {};
    }
    return parseNvidiaSmi(p.readAllStandardOutput());
}

} // namespace commprof::platform
