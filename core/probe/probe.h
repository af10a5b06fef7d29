// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The environment probe: can this machine run a matrix, and if not, every reason at once.
// Each check is independent: it adds issues (block a run) or warnings and never stops the rest.

#include "platform/host_memory.h"

#include <QJsonObject>
#include <QProcessEnvironment>
#include <QStringList>

namespace commprof::probe {

// The probe reports on the machine's facts, which core/platform reads.
using platform::GpuInfo;
using platform::HostMemory;
using platform::parseNvidiaSmi;
using platform::queryGpus;
using platform::readHostMemory;

struct ProbeOptions {
    QString root = "/"; // where proc/ and sys/ are read; a fake tree in tests
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment(); // PATH, LD_LIBRARY_PATH
    QString rankProgram; // commprof-rank to ask for --version --json
    QString resultsDir = "results";
    int firstPort = 29500; // the rendezvous port range checked
    int portCount = 10;
    bool cleanup = false;  // end stale ranks (pid files) and remove hosts a killed run left
    bool formation = true; // run a two-rank formation over gloo on loopback
    QStringList
        otherHosts; // `commprof probe --json` reports of the other hosts of a multi-host run
};

struct ProbeReport {
    QStringList issues;
    QStringList warnings;
    QJsonObject details; // host, rank, gpus, nccl, ports, stale_ranks, budgets, formation
    QString verdict() const;
    QJsonObject toJson() const;
};

ProbeReport runProbe(const ProbeOptions& options);

// Pieces the probe is made of, tested one by one.
QString
ncclVersionOf(const QString& libraryPath); // from the file name: libnccl.so.2.18.3 -> 2.18.3
bool archCovers(const QStringList& compiledArchs, const QString& computeCapability);

} // namespace commprof::probe
