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

} // namespace

std::optional<DdpParams> parseDdpParams(const QByteArray& text, const QString& name,
                                        QString* error) {
    const auto fail = [&](const QString& where, const QString& what) -> std::optional<DdpParams> {
        *error = where.isEmpty() ? QString("%1: %2").arg(name, what)
                                 : QString("%1: %2: %3").arg(name, where, what);
        return std::nullopt;
    };
    QJsonParseError err;
    const QJsonDocument doc = QJsonDocument::fromJson(text, &err);
    if (err.error != QJsonParseError::NoError) {
        return fail({}, QString("not JSON: %1 at byte %2").arg(err.errorString()).arg(err.offset));
    }
    if (!doc.isObject()) {
        return fail({}, "expected a JSON object");
    }
    const QJsonObject o = doc.object();
    const QString listKey = o.contains("params") ? "params" : "parameters";
    if (!o.value(listKey).isArray()) {
        return fail("params", "expected an array of {name, shape, dtype}, found " +
                                  results::describeJson(o.value(listKey)));
    }
    DdpParams out;
    double totalBytes = 0;
    const QJsonArray list = o.value(listKey).toArray();
    for (qsizetype i = 0; i < list.size(); ++i) {
        const QString where = QString("%1[%2]").arg(listKey).arg(i);
        if (!list[i].isObject()) {
            return fail(where, "expected an object, found " + results::describeJson(list[i]));
        }
        const QJsonObject p = list[i].toObject();
        if (p.contains("requires_grad") && !p["requires_grad"].toBool(true)) {
            continue; // frozen: DDP's reducer never sees it
        }
        DdpParam param;
        if (!p["name"].isString()) {
            return fail(where + ".name",
                        "expected a string, found " + results::describeJson(p["name"]));
        }
        param.name = p["name"].toString();
        if (!p["shape"].isArray()) {
            return fail(where + ".shape",
                        "expected an array of sizes, found " + results::describeJson(p["shape"]));
        }
        double numel = 1;
        for (const QJsonValue d : p["shape"].toArray()) {
            const double v = d.toDouble(-1);
            if (!d.isDouble() || v < 0 || v != std::floor(v) || v > 1e12) {
                return fail(where + ".shape",
                            "expected whole sizes >= 0, found " + results::describeJson(d));
            }
            param.shape.push_back(v);
            numel *= v;
        }
        param.dtype = p["dtype"].toString("float32");
        const std::optional<int> size = elementBytes(param.dtype);
        if (!p["dtype"].isUndefined() && !p["dtype"].isString()) {
            return fail(where + ".dtype",
                        "expected a string, found " + results::describeJson(p["dtype"]));
        }
        if (!size) {
            return fail(where + ".dtype", QString("unknown dtype '%1'").arg(param.dtype));
        }
        // Each dimension may be sane while their product is not: [2^32, 2^32] floats would be
        // a 7.4e19-byte bucket.
        if (const std::string why = spec::outsideSaneBytes(param.shape, *size); !why.empty()) {
            return fail(where + ".shape", QString::fromStdString(why));
        }
        param.bytes = numel * *size;
        totalBytes += param.bytes;
        out.params.push_back(std::move(param));
    }
    if (out.params.empty()) {
        return fail(listKey, "no parameter that takes a gradient");
    }
    if (!(totalBytes <= spec::kMaxSaneBytes)) {
        return fail(listKey, QString("the gradients together hold %1 bytes, above the %2 bytes "
                                     "(16 TiB) any model holds")
                                 .arg(totalBytes, 0, 'g', 6)
                                 .arg(spec::kMaxSaneBytes, 0, 'g', 6));
    }
    for (const char* key : {"bucket_cap_mb", "first_bucket_mb"}) {
        const QJsonValue v = o.value(key);
        if (v.isUndefined() || v.isNull()) {
            continue;
        }
        if (!v.isDouble()) {
            return fail(key, "expected a number > 0, found " + results::describeJson(v));
        }
        if (const std::string why = spec::outsideSaneRange(v.toDouble(), spec::kSaneMebibytes);
            !why.empty()) {
            return fail(key, QString::fromStdString(why));
        }
        (QString(key) == "bucket_cap_mb" ? out.bucketCapMb : out.firstBucketMb) = v.toDouble();
    }
    if (o.contains("hook") && !o["hook"].isNull()) {
        if (!o["hook"].isString()) {
            return fail("hook", "expected a string, found " + results::describeJson(o["hook"]));
        }
        out.hook = o["hook"].toString();
    }
    if (o.contains("world_size") && !o["world_size"].isNull()) {
        const double w = o["world_size"].toDouble(-1);
        if (!o["world_size"].isDouble() ||
            !spec::outsideSaneRange(w, spec::kSaneWorldSize).empty()) {
            return fail("world_size", "expected a whole number >= 1, found " +
                                          results::describeJson(o["world_size"]));
        }
        out.worldSize = int(w);
    }
    return out;
}

DdpParams readDdpParams(const QString& path) {
    QString error;
    std::optional<DdpParams> params;
    try {
        params = parseDdpParams(files::readRegularFile(path, kMaxParamsBytes, files::Links::Follow),
                                path, &error);
    } catch (const files::FileError& e) {
        throw trace::TraceError((path + ": " + e.detail).toStdString());
    }
    if (!params) {
        throw trace::TraceError(error.toStdString());
    }
    params->source = path;
    return std::move(*params);
}

} // namespace commprof::inputs
