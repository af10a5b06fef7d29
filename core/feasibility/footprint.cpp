// SPDX-License-Identifier: GPL-3.0-or-later
#include "footprint.h"

#include "spec/layers.h"
#include "spec/model_families.h"
#include "spec/units.h"

#include <QJsonArray>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <stdexcept>

namespace commprof::feasibility {
namespace {

// Bytes of activations kept for backward by one rank, by the family's own rule.
double activationBytes(const matrix::Cell& cell, const spec::ModelFamily& family,
                       const Coefficients& k) {
    return family.activationBytes(family.dims(cell.model.params), cell.config.batchSize,
                                  k[std::string(family.activationCoefficient).c_str()]);
}

void add(Demand& d, const QString& name, double bytes, const QString& basis = {}) {
    if (bytes > 0) {
        d.terms.reserve(8); // one allocation per pool, not one per term
        d.terms.push_back({name, d.pool, bytes, basis});
    }
}

// Sets feasible, binding and reason from the pools' terms and budgets.
void decideFeasibility(FootprintEstimate& e) {
    const bool hostFits = e.host.total() <= e.host.budgetBytes;
    const bool deviceFits = !e.device.used || e.device.total() <= e.device.budgetBytes;
    e.feasible = hostFits && deviceFits;
    e.binding = (e.device.used && e.device.ratio() > e.host.ratio()) ? Pool::Device : Pool::Host;
    if (!e.feasible) {
        const Demand& d = e.binding == Pool::Device ? e.device : e.host;
        e.reason = d.budgetBytes <= 0
                       ? QString("no %1 memory on this machine").arg(toString(d.pool))
                       : QString("%1 demand %2 GiB exceeds the budget of %3 GiB")
                             .arg(toString(d.pool))
                             .arg(d.total() / spec::kGiB, 0, 'f', 2)
                             .arg(d.budgetBytes / spec::kGiB, 0, 'f', 2);
    }
}

} // namespace

const char* toString(Pool pool) {
    return pool == Pool::Device ? "device" : "host";
}

double Demand::total() const {
    return std::accumulate(terms.begin(), terms.end(), 0.0,
                           [](double t, const auto& term) { return t + term.bytes; });
}

double Demand::ratio() const {
    const double t = total();
    if (budgetBytes <= 0) {
        return t > 0 ? std::numeric_limits<double>::infinity() : 0.0;
    }
    return t / budgetBytes;
}

Coefficients::Coefficients()
    : table_{
          {"process_baseline_mib", 163.0, "MiB per rank",
           "measured: VmHWM of commprof-rank with a 1e5-parameter MLP, world size 1, Debian "
           "libtorch 1.13 (docs/feasibility.md)"},
          {"param_bytes", 4.0, "bytes per parameter", "fp32 weights"},
          {"grad_bytes", 4.0, "bytes per parameter", "fp32 gradients"},
          {"bucket_bytes", 4.0, "bytes per parameter",
           "DDP bucket buffers: one flat fp32 copy of the gradients "
           "(gradient_as_bucket_view=false)"},
          {"sgd_state_bytes", 4.0, "bytes per parameter", "SGD momentum buffer, fp32"},
          {"adam_state_bytes", 8.0, "bytes per parameter",
           "Adam exp_avg + exp_avg_sq, fp32 (ZeRO, Rajbhandari et al. 2020, sec. 3.1; accelerate "
           "estimate-memory counts Adam as 2x the fp32 model)"},
          {"mlp_activation_floats_per_unit", 3.0, "floats per batch x width x layer",
           "saved Linear input, pre-activation and ReLU output per layer"},
          {"transformer_activation_floats_per_token_width", 17.0,
           "floats per token x width x block",
           "Korthikanti et al. 2022, 'Reducing Activation Recomputation': 34 s b h bytes per layer "
           "in fp16, i.e. 17 values per token and width"},
          {"cuda_context_device_mib", 500.0, "MiB per rank on the device",
           "CUDA context and cuBLAS/cuDNN workspaces as commonly reported for PyTorch (300-600 "
           "MiB); to be refitted from measured peaks"},
          {"cuda_runtime_host_mib", 300.0, "MiB per rank on the host",
           "host side of the CUDA runtime; fitted so the reference WSL study's 50M gloo_cuda x 8 "
           "cell needs 9.7 GiB"},
          {"gloo_cuda_staging_factor", 2.0, "x gradient bytes on the host",
           "gloo over CUDA tensors pins host buffers in both directions"},
          {"sweep_buffer_factor", 3.0, "x the largest message per rank",
           "commprof-rank --sweep holds a message and, for all_gather and reduce_scatter, the "
           "gathered side; the backend's scratch copy of it is the third"},
      } {}

double Coefficients::operator[](const char* key) const {
    const auto c = std::ranges::find(table_, std::string_view(key), &Coefficient::key);
    if (c == table_.end()) {
        throw std::invalid_argument(std::string("unknown coefficient ") + key);
    }
    return c->value;
}

void Coefficients::set(const QString& key, double value) {
    const auto c = std::ranges::find(table_, key.toStdString(), &Coefficient::key);
    if (c == table_.end()) {
        throw std::invalid_argument("unknown coefficient '" + key.toStdString() + "'");
    }
    c->value = value;
}

FootprintEstimate estimate(const matrix::Cell& cell, const Coefficients& k,
                           const MachineBudget& budget) {
    FootprintEstimate e;
    e.host.pool = Pool::Host;
    e.device.pool = Pool::Device;
    e.host.used = true;
    e.host.budgetBytes = budget.hostBytes;
    e.device.budgetBytes = budget.deviceBytes;
    const double ws = cell.worldSize;
    const double p = cell.model.params;
    const spec::Layer* layer = spec::findLayer(cell.layer.name.toStdString());
    const spec::ModelFamily* family = spec::findModelFamily(cell.model.family.toStdString());
    const bool scripted = cell.model.torchscript.has_value();
    if (!layer || (!cell.isSweep() && !family && !scripted)) {
        // Never sized as some other layer or family: a cell of a name this build does not know
        // cannot be planned at all.
        e.feasible = false;
        e.reason =
            layer ? QString("unknown model family '%1' (%2)")
                        .arg(cell.model.family, QString::fromStdString(spec::modelFamilyNames()))
                  : QString("unknown layer '%1' (%2)")
                        .arg(cell.layer.name, QString::fromStdString(spec::layerNames()));
        return e;
    }
    const bool cuda = spec::usesDevice(*layer);
    const double optimizerBytes =
        cell.config.optimizer == "adam" ? k["adam_state_bytes"] : k["sgd_state_bytes"];
    const double gradBytes =
        (scripted ? cell.model.torchscript->paramsTrainable : p) * k["grad_bytes"];

    // A sweep's messages take the place of the gradients: what gloo stages and the pools hold.
    const double messageBytes = cell.isSweep() ? cell.sweepMaxBytes : gradBytes;

    add(e.host, QStringLiteral("process baseline"), ws * k["process_baseline_mib"] * spec::kMiB);
    // Where the model lives: the host for CPU cells, the device for CUDA cells.
    Demand& modelPool = cuda ? e.device : e.host;
    double ranksOnPool = ws;
    if (cuda) {
        e.device.used = true;
        add(e.host, QStringLiteral("CUDA runtime (host side)"),
            ws * k["cuda_runtime_host_mib"] * spec::kMiB);
        if (layer->stagesThroughHost) {
            add(e.host, QStringLiteral("gloo host staging buffers"),
                ws * k["gloo_cuda_staging_factor"] * messageBytes);
        }
        // Budgets are per GPU: NCCL puts one rank on each GPU, gloo over CUDA shares them.
        ranksOnPool = layer->gpus == spec::GpuRule::OnePerRank
                          ? 1.0
                          : std::ceil(ws / std::max(1, budget.gpus));
        add(e.device, QStringLiteral("CUDA context"),
            ranksOnPool * k["cuda_context_device_mib"] * spec::kMiB);
    }
    if (cell.isSweep()) {
        add(modelPool, QStringLiteral("sweep message buffers"),
            ranksOnPool * k["sweep_buffer_factor"] * cell.sweepMaxBytes);
    } else {
        // A TorchScript module's weights and what DDP keeps for its trainable ones come from its
        // description; its activations as `commprof calibrate` measured them, else from the
        // tensors the export saw saved (an estimate, as is either scaled to another input).
        const matrix::TorchScriptModel* t = scripted ? &*cell.model.torchscript : nullptr;
        const double total = t ? t->paramsTotal : p;
        const double trainable = t ? t->paramsTrainable : p;
        const QString basis = t ? QStringLiteral("described") : QString();
        add(modelPool, QStringLiteral("parameters"), ranksOnPool * total * k["param_bytes"], basis);
        add(modelPool, QStringLiteral("gradients"),
            t ? ranksOnPool * trainable * k["grad_bytes"] : ranksOnPool * gradBytes, basis);
        // With gradient_as_bucket_view the gradients are views into the buckets: no second copy.
        if (!cell.config.gradientAsBucketView) {
            add(modelPool, QStringLiteral("DDP bucket buffers"),
                ranksOnPool * trainable * k["bucket_bytes"], basis);
        }
        add(modelPool, "optimizer state (" + cell.config.optimizer + ")",
            ranksOnPool * trainable * optimizerBytes, basis);
        add(modelPool, QStringLiteral("activations"),
            ranksOnPool * (t ? t->activationBytesFixedHere() +
                                   t->activationBytesPerSampleHere() * cell.config.batchSize
                             : activationBytes(cell, *family, k)),
            t ? t->activationBasis() : QString());
    }
    decideFeasibility(e);
    return e;
}

QJsonObject toJson(const FootprintEstimate& e) {
    QJsonObject pools;
    QJsonArray terms;
    for (const Demand* d : {&e.host, &e.device}) {
        if (d->used) {
            pools[toString(d->pool)] =
                QJsonObject{{"demand_bytes", d->total()}, {"budget_bytes", d->budgetBytes}};
        }
        for (const auto& t : d->terms) {
            QJsonObject term{{"name", t.name}, {"pool", toString(t.pool)}, {"bytes", t.bytes}};
            if (!t.basis.isEmpty()) {
                term["basis"] = t.basis;
            }
            terms.append(term);
        }
    }
    QJsonObject out{{"feasible", e.feasible},
                    {"binding", toString(e.binding)},
                    {"pools", pools},
                    {"terms", terms}};
    if (!e.reason.isEmpty()) {
        out["reason"] = e.reason;
    }
    return out;
}

} // namespace commprof::feasibility
