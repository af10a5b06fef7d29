#include "cell_files.h"

#include <QDir>
#include <QFile>
#include <QJsonDocument>
#include <QRegularExpression>
#include <QSet>

namespace commprof::results {

CellFiles readCellDir(const QString& dir) {
    CellFiles f;
    f.dir = dir;
    f.id = QFileInfo(dir).fileName();
    const QDir d(dir);
    {
        QFile c(d.filePath("cell.json"));
        if (c.open(QIODevice::ReadOnly)) {
            f.cell = QJsonDocument::fromJson(c.readAll()).object();
        }
    }
    f.hasManifest = QFile::exists(d.filePath("manifest.json"));
    static const QRegularExpression rankFile("^rank(\\d+)\\.json$");
    static const QRegularExpression traceFile("^trace_rank(\\d+)\\.json\\.gz$");
    for (const QString& name : d.entryList(QDir::Files, QDir::Name)) {
        if (name.endsWith(".tmp")) {
            f.leftovers << name;
            continue;
        }
        if (const auto m = traceFile.match(name); m.hasMatch()) {
            f.traces[m.captured(1).toInt()] = d.filePath(name);
            continue;
        }
        const auto m = rankFile.match(name);
        if (!m.hasMatch()) {
            continue;
        }
        QFile rf(d.filePath(name));
        if (!rf.open(QIODevice::ReadOnly)) {
            f.unreadable << name + " unreadable: " + rf.errorString();
            continue;
        }
        QJsonParseError err;
        const QJsonDocument doc = QJsonDocument::fromJson(rf.readAll(), &err);
        if (err.error != QJsonParseError::NoError || !doc.isObject()) {
            f.unreadable << QString("%1 unparseable: %2 at byte %3")
                                .arg(name, err.errorString())
                                .arg(err.offset);
            continue;
        }
        f.ranks[m.captured(1).toInt()] = doc.object();
    }
    return f;
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
    for (auto it = f.ranks.begin(); it != f.ranks.end(); ++it) {
        worldSizes.insert(it.value()["world_size"].toInt());
        cellIds.insert(it.value()["cell_id"].toString());
        signatures.insert(it.value()["model"].toObject()["signature"].toString());
    }
    if (worldSizes.size() == 1) {
        c.worldSize = *worldSizes.begin();
    }
    if (!f.hasManifest) {
        c.reasons << "no manifest";
    }
    if (!f.ranks.contains(0)) {
        c.reasons << "missing rank0.json";
    }
    if (worldSizes.size() > 1) {
        c.reasons << "rank files disagree on world_size";
    }
    if (cellIds.size() > 1) {
        c.reasons << "rank files disagree on cell_id";
    }
    if (!f.ranks.isEmpty() && cellIds.size() == 1 && !f.cell.isEmpty() &&
        *cellIds.begin() != f.cell["id"].toString()) {
        c.reasons << QString("rank files belong to cell '%1'").arg(*cellIds.begin());
    }
    if (signatures.size() > 1) {
        c.reasons << "rank files disagree on the model signature";
    }
    if (c.worldSize > 0 && f.ranks.size() != c.worldSize) {
        c.reasons << QString("%1 rank files, world_size %2").arg(f.ranks.size()).arg(c.worldSize);
    }
    if (f.ranks.isEmpty() && c.worldSize == 0) {
        c.reasons << "no rank files";
    }
    c.reasons << f.unreadable;
    if (!f.leftovers.isEmpty()) {
        c.reasons << "temporary files left: " + f.leftovers.join(", ");
    }
    if (recorded == "failed") {
        c.status = "failed";
        c.reasons.prepend("runner recorded a failure: " + f.cell["failure"].toString());
    } else {
        c.status = c.reasons.isEmpty() ? "complete" : "incomplete";
    }
    return c;
}

} // namespace commprof::results
