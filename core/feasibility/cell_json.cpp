// SPDX-License-Identifier: GPL-3.0-or-later
#include "cell_json.h"

#include "results/json_kind.h"

#include <QJsonArray>

namespace commprof::matrix {

QJsonObject runConfigJson(const RunConfig& c) {
    return QJsonObject{{"iterations", c.iterations},
                       {"warmup", c.warmup},
                       {"batch_size", c.batchSize},
                       {"bucket_cap_mb", c.bucketCapMb},
                       {"first_bucket_mb", c.firstBucketMb},
                       {"gradient_as_bucket_view", c.gradientAsBucketView},
                       {"static_graph", c.staticGraph},
                       {"hook", c.hook},
                       {"link", c.link},
                       {"ranks_per_host", c.ranksPerHost},
                       {"optimizer", c.optimizer},
                       {"timeout_s", c.timeoutS},
                       {"trace", QJsonObject{{"enabled", c.trace.enabled},
                                             {"first_step", c.trace.firstStep},
                                             {"steps", c.trace.steps}}}};
}

QJsonObject cellJson(const Cell& cell, const feasibility::FootprintEstimate& estimate) {
    QJsonObject o = feasibility::toJson(estimate);
    o["id"] = cell.id;
    o["model"] = cell.model.name;
    o["family"] = cell.model.family;
    o["params"] = cell.model.params;
    o["layer"] = cell.layer.name;
    o["backend"] = cell.layer.backend;
    o["device"] = cell.layer.device;
    o["interconnect"] = cell.layer.interconnect;
    o["world_size"] = cell.worldSize;
    o["repeat"] = cell.repeat;
    o["config"] = runConfigJson(cell.config);
    o["kind"] = cell.model.kind;
    QJsonObject axes; // every axis' value, as exclude rules and the plots name it
    for (const auto& [key, value] : cell.axes) {
        axes[key] = value;
    }
    o["axes"] = axes;
    if (const auto& t = cell.model.torchscript) {
        const QJsonObject input =
            t->tokens > 0
                ? QJsonObject{{"tokens", t->tokens}, {"vocab", t->vocab}}
                : QJsonObject{{"shape", results::jsonArray(t->inputShape,
                                                           [](qint64 d) { return double(d); })},
                              {"classes", t->classes}};
        o["torchscript"] = QJsonObject{{"file", t->file},
                                       {"description", t->description},
                                       {"params_trainable", t->paramsTrainable},
                                       {"tensors", t->tensors},
                                       {"input", input},
                                       {"find_unused_parameters", t->findUnusedParameters}};
    }
    if (cell.isSweep()) {
        const SweepSpec& w = cell.model.sweep;
        QJsonObject sweep{{"collectives", QJsonArray::fromStringList(w.collectives)},
                          {"max_bytes", cell.sweepMaxBytes},
                          {"iterations", w.iterations},
                          {"warmup", w.warmup}};
        if (cell.sweepCappedFrom) {
            sweep["requested_max_bytes"] = *cell.sweepCappedFrom;
        }
        o["sweep"] = sweep;
        o.remove("family");
        o.remove("params");
    }
    return o;
}

} // namespace commprof::matrix
