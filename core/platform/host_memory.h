// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// What the host can give: memory (the cgroup ceiling when there is one, not MemTotal) and GPUs.
// Paths are parameters so tests can point them at a fake /proc-style root.

#include <QList>
#include <QProcessEnvironment>
#include <QString>

#include <optional>

namespace commprof::platform {

struct HostMemory {
    double totalBytes = 0;
    double availableBytes = 0;
    std::optional<double> cgroupLimitBytes; // memory.max / memory.limit_in_bytes, when set
    double budgetBytes() const;             // min(available, cgroup limit)
    QString source() const;
};

HostMemory readHostMemory(const QString& root = "/");

// A file of /proc or /sys whole (they report size 0); empty when it cannot be read.
QByteArray readSystemFile(const QString& path);

struct GpuInfo {
    QString name;
    double memoryBytes = 0;
    QString computeCapability;
};

// Parses `nvidia-smi --query-gpu=name,memory.total,compute_cap --format=csv,noheader,nounits`
// from env's PATH, run in env; empty when there is no nvidia-smi or no GPU.
QList<GpuInfo> queryGpus(const QProcessEnvironment& env = QProcessEnvironment::systemEnvironment());
QList<GpuInfo> parseNvidiaSmi(const QByteArray& csv);

} // namespace commprof::platform
