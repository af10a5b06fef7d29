// SPDX-License-Identifier: GPL-3.0-or-later
#include "probe_model.h"

#include <QJsonArray>

namespace commprof::models {

void ProbeModel::setReport(const probe::ProbeReport& report) {
    report_ = report;
    std::vector<ProbeFinding> rows;
    for (const QString& i : report.issues) {
        rows.push_back({"issue", "blocks a run", i});
    }
    for (const QString& w : report.warnings) {
        rows.push_back({"warning", "advisory", w});
    }
    const QJsonObject d = report.details;
    const QJsonObject host = d["host"].toObject();
    rows.push_back({"ok", "host",
                    QString("%1, %2 cores, %3 GiB available")
                        .arg(host["cpu_model"].toString())
                        .arg(host["cores"].toInt())
                        .arg(host["mem_available_bytes"].toDouble() / 1073741824.0, 0, 'f', 1)});
    const QJsonObject rank = d["rank"].toObject();
    if (!rank.isEmpty()) {
        rows.push_back(
            {"ok", "rank worker",
             QString("libtorch %1, CUDA %2, Gloo %3, NCCL %4")
                 .arg(rank["torch_version"].toString(), rank["cuda_build"].toBool() ? "yes" : "no",
                      rank["gloo"].toBool() ? "yes" : "no", rank["nccl"].toBool() ? "yes" : "no")});
    }
    rows.push_back({"ok", "GPUs",
                    d["gpus"].toArray().isEmpty()
                        ? QString("none visible")
                        : QString::number(d["gpus"].toArray().size()) + " visible"});
    const QJsonObject b = d["budgets"].toObject();
    for (const QString kind : {"host", "device"}) {
        rows.push_back({"ok", kind + " budget",
                        QString("%1 GiB (%2)")
                            .arg(b[kind + "_bytes"].toDouble() / 1073741824.0, 0, 'f', 2)
                            .arg(b[kind + "_source"].toString())});
    }
    if (d.contains("formation")) {
        rows.push_back({d["formation"].toObject()["ok"].toBool() ? "ok" : "issue", "formation",
                        d["formation"].toObject()["detail"].toString()});
    }
    setRows(std::move(rows));
}

ProbeModel::ProbeModel(QObject* parent)
    : RowTableModel({memberColumn("", &ProbeFinding::severity),
                     memberColumn("check", &ProbeFinding::check),
                     memberColumn("finding", &ProbeFinding::finding)},
                    parent) {}

QVariant ProbeModel::rowData(const ProbeFinding& row, int column, int role) const {
    return role == SeverityRole ? QVariant(row.severity)
                                : RowTableModel::rowData(row, column, role);
}

} // namespace commprof::models
