// SPDX-License-Identifier: GPL-3.0-or-later
#include "ddp_params_file.h"

#include "files/safe_file.h"
#include "results/json_kind.h"
#include "spec/sane_values.h"
#include "trace/collectives.h"
#include "trace/trace_error.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

#include <cmath>
#include <map>

namespace commprof::inputs {

using analysis::DdpParam;
using analysis::DdpParams;

namespace {

constexpr qint64 kMaxParamsBytes = 64LL * 1024 * 1024;

// "float32", "torch.float32", "Float", "float" -> 4.
std::optional<int> elementBytes(QString dtype) {
    if (dtype.startsWith("torch.")) {
        dtype = dtype.mid(6);
    }
    static const std::map<QString, QString> aliases{
        {"float32", "float"}, {"float16", "half"}, {"float64", "double"}, {"int64", "long"},
        {"int32", "int"},     {"int16", "short"},  {"uint8", "Byte"},     {"int8", "Char"}};
    if (const auto it = aliases.find(dtype); it != aliases.end()) {
        dtype = it->second;
    }
    return trace::dtypeBytes(dtype.toStdString());
}

// Why the file is refused: the field (empty for the whole document) and what is wrong there.
struct Refusal {
    QString where;
    QString what;
};

// One entry of the parameter list; nullopt in *param for a frozen one (DDP's reducer never
// sees it).
std::optional<Refusal> readParam(const QJsonValue& entry, const QString& where,
                                 std::optional<DdpParam>* param) {
    if (!entry.isObject()) {
        return Refusal{where, "expected an object, found " + results::describeJson(entry)};
    }
    const QJsonObject p = entry.toObject();
    if (p.contains("requires_grad") && !p["requires_grad"].toBool(true)) {
        return std::nullopt; // frozen: DDP's reducer never sees it
    }
    DdpParam& out = param->emplace();
    if (!p["name"].isString()) {
        return Refusal{where + ".name",
                       "expected a string, found " + results::describeJson(p["name"])};
    }
    out.name = p["name"].toString();
    if (!p["shape"].isArray()) {
        return Refusal{where + ".shape",
                       "expected an array of sizes, found " + results::describeJson(p["shape"])};
    }
    double numel = 1;
    for (const QJsonValue d : p["shape"].toArray()) {
        const double v = d.toDouble(-1);
        if (!d.isDouble() || v < 0 || v != std::floor(v) || v > 1e12) {
            return Refusal{where + ".shape",
                           "expected whole sizes >= 0, found " + results::describeJson(d)};
        }
        out.shape.push_back(v);
        numel *= v;
    }
    out.dtype = p["dtype"].toString("float32");
    const std::optional<int> size = elementBytes(out.dtype);
    if (!p["dtype"].isUndefined() && !p["dtype"].isString()) {
        return Refusal{where + ".dtype",
                       "expected a string, found " + results::describeJson(p["dtype"])};
    }
    if (!size) {
        return Refusal{where + ".dtype", QString("unknown dtype '%1'").arg(out.dtype)};
    }
    // Each dimension may be sane while their product is not: [2^32, 2^32] floats would be
    // a 7.4e19-byte bucket.
    if (const std::string why = spec::outsideSaneBytes(out.shape, *size); !why.empty()) {
        return Refusal{where + ".shape", QString::fromStdString(why)};
    }
    out.bytes = numel * *size;
    return std::nullopt;
}

// The parameters that take a gradient, under "params" (or "parameters"), together no more
// than any model holds.
std::optional<Refusal> readParamList(const QJsonObject& o, DdpParams& out) {
    const QString listKey = o.contains("params") ? "params" : "parameters";
    if (!o.value(listKey).isArray()) {
        return Refusal{"params", "expected an array of {name, shape, dtype}, found " +
                                     results::describeJson(o.value(listKey))};
    }
    double totalBytes = 0;
    const QJsonArray list = o.value(listKey).toArray();
    for (qsizetype i = 0; i < list.size(); ++i) {
        std::optional<DdpParam> param;
        if (auto refused = readParam(list[i], QString("%1[%2]").arg(listKey).arg(i), &param)) {
            return refused;
        }
        if (param) {
            totalBytes += param->bytes;
            out.params.push_back(std::move(*param));
        }
    }
    if (out.params.empty()) {
        return Refusal{listKey, "no parameter that takes a gradient"};
    }
    if (!(totalBytes <= spec::kMaxSaneBytes)) {
        return Refusal{listKey, QString("the gradients together hold %1 bytes, above the %2 "
                                        "bytes (16 TiB) any model holds")
                                    .arg(totalBytes, 0, 'g', 6)
                                    .arg(spec::kMaxSaneBytes, 0, 'g', 6)};
    }
    return std::nullopt;
}

// The DDP settings the job ran with, where the file gives them: its bucket caps, its hook
// and its world size.
std::optional<Refusal> readSettings(const QJsonObject& o, DdpParams& out) {
    for (const char* key : {"bucket_cap_mb", "first_bucket_mb"}) {
        const QJsonValue v = o.value(key);
        if (v.isUndefined() || v.isNull()) {
            continue;
        }
        if (!v.isDouble()) {
            return Refusal{key, "expected a number > 0, found " + results::describeJson(v)};
        }
        if (const std::string why = spec::outsideSaneRange(v.toDouble(), spec::kSaneMebibytes);
            !why.empty()) {
            return Refusal{key, QString::fromStdString(why)};
        }
        (QString(key) == "bucket_cap_mb" ? out.bucketCapMb : out.firstBucketMb) = v.toDouble();
    }
    if (o.contains("hook") && !o["hook"].isNull()) {
        if (!o["hook"].isString()) {
            return Refusal{"hook", "expected a string, found " + results::describeJson(o["hook"])};
        }
        out.hook = o["hook"].toString();
    }
    if (o.contains("world_size") && !o["world_size"].isNull()) {
        const double w = o["world_size"].toDouble(-1);
        if (!o["world_size"].isDouble() ||
            !spec::outsideSaneRange(w, spec::kSaneWorldSize).empty()) {
            return Refusal{"world_size", "expected a whole number >= 1, found " +
                                             results::describeJson(o["world_size"])};
        }
        out.worldSize = int(w);
    }
    return std::nullopt;
}

} // namespace

DdpParams readDdpParams(const QString& path) {
    const auto fail = [&](const Refusal& r) {
        throw trace::TraceError((r.where.isEmpty()
                                     ? QString("%1: %2").arg(path, r.what)
                                     : QString("%1: %2: %3").arg(path, r.where, r.what))
                                    .toStdString());
    };
    QByteArray text;
    try {
        text = files::readRegularFile(path, kMaxParamsBytes, files::Links::Follow);
    } catch (const files::FileError& e) {
        throw trace::TraceError((path + ": " + e.detail).toStdString());
    }
    QJsonParseError err;
    const QJsonDocument doc = QJsonDocument::fromJson(text, &err);
    if (err.error != QJsonParseError::NoError) {
        fail({{}, QString("not JSON: %1 at byte %2").arg(err.errorString()).arg(err.offset)});
    }
    if (!doc.isObject()) {
        fail({{}, "expected a JSON object"});
    }
    DdpParams out;
    for (const auto& read : {readParamList, readSettings}) {
        if (auto refused = read(doc.object(), out)) {
            fail(*refused);
        }
    }
    out.source = path;
    return out;
}

} // namespace commprof::inputs
