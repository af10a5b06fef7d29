// SPDX-License-Identifier: GPL-3.0-or-later
#include "probe_model.h"

#include <QJsonArray>

namespace commprof::models {

void ProbeModel::setReport(const probe::ProbeReport& report) {
    beginResetModel();
    report_ = report;
    rows_.clear();
    for (const QString& i : report.issues) {
        rows_.push_back({"issue", "blocks a run", i});
    }
    for (const QString& w : report.warnings) {
        rows_.push_back({"warning", "advisory", w});
    }
    const QJsonObject d = report.details;
    const QJsonObject host = d["host"].toObject();
    rows_.push_back({"ok", "host",
                     QString("%1, %2 cores, %3 GiB available")
                         .arg(host["cpu_model"].toString())
                         .arg(host["cores"].toInt())
                         .arg(host["mem_available_bytes"].toDouble() / 1073741824.0, 0, 'f', 1)});
    const QJsonObject rank = d["rank"].toObject();
    if (!rank.isEmpty()) {
        rows_.push_back(
            {"ok", "rank worker",
             QString("libtorch %1, CUDA %2, Gloo %3, NCCL %4")
                 .arg(rank["torch_version"].toString(), rank["cuda_build"].toBool() ? "yes" : "no",
                      rank["gloo"].toBool() ? "yes" : "no", rank["nccl"].toBool() ? "yes" : "no")});
    }
    rows_.push_back({"ok", "GPUs",
                     d["gpus"].toArray().isEmpty()
                         ? QString("none visible")
                         : QString::number(d["gpus"].toArray().size()) + " visible"});
    const QJsonObject b = d["budgets"].toObject();
    rows_.push_back({"ok", "host budget",
                     QString("%1 GiB (%2)")
                         .arg(b["host_bytes"].toDouble() / 1073741824.0, 0, 'f', 2)
                         .arg(b["host_source"].toString())});
    rows_.push_back({"ok", "device budget",
                     QString("%1 GiB (%2)")
                         .arg(b["device_bytes"].toDouble() / 1073741824.0, 0, 'f', 2)
                         .arg(b["device_source"].toString())});
    if (d.contains("formation")) {
        rows_.push_back({d["formation"].toObject()["ok"].toBool() ? "ok" : "issue", "formation",
                         d["formation"].toObject()["detail"].toString()});
    }
    endResetModel();
}

ProbeModel::ProbeModel(QObject* parent) : TableModel({"", "check", "finding"}, parent) {}

int ProbeModel::rows() const {
    return int(rows_.size());
}

QVariant ProbeModel::data(const QModelIndex& index, int role) const {
    if (!index.isValid() || index.row() >= rows_.size()) {
        return {};
    }
    const Row& r = rows_[index.row()];
    if (role == SeverityRole) {
        return r.severity;
    }
    if (role != Qt::DisplayRole && role != Qt::ToolTipRole) {
        return {};
    }
    switch (index.column()) {
    case Severity:
        return r.severity;
    case Check:
        return r.check;
    case Finding:
        return r.finding;
    default:
        return {};
    }
}

} // namespace commprof::models
