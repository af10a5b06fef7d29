// SPDX-License-Identifier: GPL-3.0-or-later
#include "cell_files.h"

#include "files/safe_file.h"
#include "results/rank_file.h"
#include "spec/mapped.h"
#include "spec/rank_contract.h"

#include <QDir>
#include <QFileInfo>
#include <QJsonDocument>
#include <QRegularExpression>
#include <QSet>

namespace commprof::results {
namespace {

// cell.json and manifest.json are a few kilobytes.
constexpr qint64 kMaxRecordBytes = 16LL * 1024 * 1024;

// PREFIX{R}SUFFIX for a rank from 0 to 9999 written without leading zeros; R is captured.
QRegularExpression perRankName(const spec::PerRankFile& f) {
    return QRegularExpression(
        QString("^%1(0|[1-9]\\d{0,3})%2$")
            .arg(QRegularExpression::escape(f.prefix), QRegularExpression::escape(f.suffix)));
}

} // namespace

QJsonObject readRecord(const QString& path, QString* problem) {
    QString why;
    try {
        QJsonParseError err;
        const QJsonDocument doc = QJsonDocument::fromJson(
            files::readRegularFile(path, kMaxRecordBytes, files::Links::Refuse), &err);
        if (err.error == QJsonParseError::NoError && doc.isObject()) {
            return doc.object();
        }
        why = QString("%1 unparseable: %2")
                  .arg(QFileInfo(path).fileName(), err.error == QJsonParseError::NoError
                                                       ? QString("not an object")
                                                       : err.errorString());
    } catch (const files::FileError& e) {
        why = QFileInfo(path).fileName() + ": " + e.detail;
    }
    if (problem) {
        *problem = why;
    }
    return {};
}

QString networkOf(const QString& layer, const QString& link) {
    return link.isEmpty() || link == QLatin1String("loopback") ? layer : layer + " over " + link;
}

QString networkOf(const QJsonObject& cell) {
    return networkOf(cell["layer"].toString(), cell["config"].toObject()["link"].toString());
}

CellFiles readCellDir(const QString& dir) {
    CellFiles f;
    f.dir = dir;
    f.id = QFileInfo(dir).fileName();
    const QDir d(dir);
    if (files::isLink(dir)) {
        f.unreadable << "the cell folder is a symbolic link; not read";
        return f;
    }
    if (QFileInfo::exists(d.filePath(spec::files::kCellRecord)) ||
        files::isLink(d.filePath(spec::files::kCellRecord))) {
        QString problem;
        f.cell = readRecord(d.filePath(spec::files::kCellRecord), &problem);
        if (auto typed = problem.isEmpty() ? parseCellRecord(f.cell, &problem) : std::nullopt) {
            f.record = std::move(*typed);
        } else {
            f.unreadable << problem;
        }
    }
    const QFileInfo manifest(d.filePath(spec::files::kManifest));
    f.hasManifest = manifest.isFile() && !manifest.isSymLink();
    if (manifest.isSymLink()) {
        f.unreadable << QString(spec::files::kManifest) + ": a symbolic link, not a manifest";
    }
    static const QRegularExpression rankFile = perRankName(spec::files::kRankResult);
    static const QRegularExpression sweepFile = perRankName(spec::files::kSweep);
    static const QRegularExpression traceFile = perRankName(spec::files::kTrace);
    // Links, devices and FIFOs are listed too: readRankFile refuses them with a reason.
    for (const QString& name : d.entryList(QDir::Files | QDir::System, QDir::Name)) {
        if (name.endsWith(spec::files::kPartial)) {
            f.leftovers << name;
            continue;
        }
        if (const auto m = traceFile.match(name); m.hasMatch()) {
            const QFileInfo trace(d.filePath(name));
            if (trace.isSymLink() || !trace.isFile()) {
                f.unreadable << name + ": not a regular file (links and devices are never read)";
            } else {
                f.traces[m.captured(1).toInt()] = trace.filePath();
            }
            continue;
        }
        const auto m = rankFile.match(name);
        const auto sweep = m.hasMatch() ? m : sweepFile.match(name);
        if (!sweep.hasMatch()) {
            continue;
        }
        const RankFile rf = readRankFile(d.filePath(name));
        if (!rf.ok()) {
            f.unreadable << rf.problem;
            continue;
        }
        const int rank = sweep.captured(1).toInt();
        const int says = rf.rank();
        if (says != rank) {
            f.unreadable << QString("%1: says rank %2").arg(name).arg(says);
            continue;
        }
        if (rf.isSweep) {
            f.sweeps[rank] = rf.sweep;
        } else {
            f.records[rank] = rf.record;
        }
    }
    return f;
}

std::vector<CellFiles> readCells(const QString& resultsDir) {
    const QDir cellsDir(QDir(resultsDir).filePath("cells"));
    return spec::mapped<std::vector<CellFiles>>(
        cellsDir.entryList(QDir::Dirs | QDir::NoDotAndDotDot, QDir::Name),
        [&](const QString& id) { return readCellDir(cellsDir.filePath(id)); });
}

Completeness judge(const CellFiles& f) {
    Completeness c;
    const QString recorded = f.cell["status"].toString();
    c.worldSize = f.cell["world_size"].toInt();
    if (recorded == "skipped_infeasible") {
        c.status = recorded;
        c.reasons << f.cell["reason"].toString("predicted not to fit");
        return c;
    }
    // The world size as the rank files state it; the runner's record when none says.
    QSet<int> worldSizes;
    QSet<QString> cellIds, signatures;
    // A sweep's rank files are sweep_rank{R}.json, with no model.
    const bool sweep = f.isSweep();
    const QList<int> ranks = sweep ? f.sweeps.keys() : f.records.keys();
    const QString rank0 =
        QString::fromStdString((sweep ? spec::files::kSweep : spec::files::kRankResult).of(0));
    for (const SweepRecord& s : f.sweeps) {
        worldSizes.insert(s.worldSize);
        cellIds.insert(QString::fromStdString(s.cellId));
    }
    for (const RankRecord& r : f.records) {
        if (!sweep) {
            worldSizes.insert(r.worldSize);
            cellIds.insert(QString::fromStdString(r.cellId));
            signatures.insert(QString::fromStdString(r.modelSignature));
        }
    }
    if (worldSizes.size() == 1) {
        c.worldSize = *worldSizes.begin();
    }
    const QString cellId = cellIds.size() == 1 ? *cellIds.begin() : QString();
    const std::pair<bool, QString> checks[] = {
        {!f.hasManifest, "no manifest"},
        {!ranks.contains(0), "missing " + rank0},
        {worldSizes.size() > 1, "rank files disagree on world_size"},
        {cellIds.size() > 1, "rank files disagree on cell_id"},
        {!ranks.isEmpty() && cellIds.size() == 1 && !f.cell.isEmpty() &&
             cellId != f.cell["id"].toString(),
         QString("rank files belong to cell '%1'").arg(cellId)},
        {signatures.size() > 1, "rank files disagree on the model signature"},
        {c.worldSize > 0 && ranks.size() != c.worldSize,
         QString("%1 rank files, world_size %2").arg(ranks.size()).arg(c.worldSize)},
        {ranks.isEmpty() && c.worldSize == 0, "no rank files"},
        {f.records.contains(0) && !f.records[0].traceFile.empty() && !f.traces.contains(0),
         QString("rank 0 wrote a trace, but %1 is missing")
             .arg(QString::fromStdString(spec::files::kTrace.of(0)))}};
    for (const auto& [holds, reason] : checks) {
        if (holds) {
            c.reasons << reason;
        }
    }
    c.reasons << f.unreadable;
    if (!f.leftovers.isEmpty()) {
        c.reasons << "temporary files left: " + f.leftovers.join(", ");
    }
    if (recorded == "stopped" || (recorded == "failed" && f.cell["stopped"].toBool())) {
        // Ended on request (Stop, SIGINT): not the cell's fault, and it may be run again. Folders
        // written before the runner recorded "stopped" say failed with stopped: true.
        c.status = "stopped";
        c.reasons.prepend("stopped before it ended: " + f.cell["failure"].toString());
    } else if (recorded == "failed") {
        c.status = "failed";
        c.reasons.prepend("runner recorded a failure: " + f.cell["failure"].toString());
    } else {
        c.status = c.reasons.isEmpty() ? "complete" : "incomplete";
    }
    return c;
}

} // namespace commprof::results
