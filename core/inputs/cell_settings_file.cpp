// SPDX-License-Identifier: GPL-3.0-or-later
#include "cell_settings_file.h"

#include "inputs/ddp_job_files.h"
#include "results/cell_files.h"
#include "results/cell_record.h"
#include "spec/comm_hooks.h"
#include "spec/layers.h"
#include "trace/trace_error.h"

namespace commprof::inputs {

std::optional<analysis::CellSettings> cellSettingsBeside(const QStringList& paths) {
    const QString path = fileBeside(paths, "cell.json");
    if (path.isEmpty()) {
        return std::nullopt;
    }
    QString problem;
    const QJsonObject o = results::readRecord(path, &problem);
    std::optional<results::CellRecord> r;
    if (problem.isEmpty()) {
        r = results::parseCellRecord(o, &problem);
    }
    if (!r) {
        // The readers name the file bare ("cell.json: ...", "cell.json unparseable: ..."):
        // the path replaces the name.
        if (problem.startsWith("cell.json")) {
            problem = problem.mid(int(qstrlen("cell.json")));
            problem = problem.startsWith(": ") ? problem.mid(2) : problem.trimmed();
        }
        throw trace::TraceError((path + ": " + problem).toStdString());
    }
    analysis::CellSettings s;
    s.path = path;
    s.bucketCapMb = r->config.bucketCapMb;
    s.firstBucketMb = r->config.firstBucketMb;
    const spec::CommHook* hook = spec::findCommHook(r->config.hook.toStdString());
    if (!hook) {
        throw trace::TraceError(
            (path + ": config.hook: unknown hook '" + r->config.hook + "'").toStdString());
    }
    s.hook = QString::fromLatin1(hook->name.data(), int(hook->name.size()));
    if (!(s.bucketCapMb > 0) || !(s.firstBucketMb > 0)) {
        throw trace::TraceError(
            (path + ": config.bucket_cap_mb and config.first_bucket_mb: expected numbers > 0")
                .toStdString());
    }
    s.layer = r->layer;
    if (const spec::Layer* l = spec::findLayer(r->layer.toStdString())) {
        s.backend = QString::fromLatin1(l->backend.data(), int(l->backend.size()));
        s.onDevice = l->device != "cpu";
    }
    s.worldSize = r->worldSize > 0 ? r->worldSize : 0;
    s.link = r->config.link.isEmpty() ? QString("loopback") : r->config.link;
    return s;
}

} // namespace commprof::inputs
