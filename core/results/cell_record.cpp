// SPDX-License-Identifier: GPL-3.0-or-later
#include "cell_record.h"

#include "results/json_kind.h"

#include <cmath>

namespace commprof::results {
namespace {

// Reads typed fields of one object; the first field of the wrong type is the problem.
class Fields {
public:
    Fields(const QJsonObject& o, QString where) : o_(o), where_(std::move(where)) {}
    QString problem;

    void string(const char* key, QString* out) {
        take(key, out, "a string", true, [](const QJsonValue& v) { return v.isString(); });
    }
    void number(const char* key, double* out) {
        take(key, out, "a number", false,
             [](const QJsonValue& v) { return v.isDouble() && std::isfinite(v.toDouble()); });
    }
    void integer(const char* key, int* out) {
        take(key, out, "an integer", false, [](const QJsonValue& v) {
            const double d = v.toDouble();
            return v.isDouble() && d == std::floor(d) && std::fabs(d) <= 1e9;
        });
    }
    void object(const char* key, QJsonObject* out) {
        take(key, out, "an object", false, [](const QJsonValue& v) { return v.isObject(); });
    }

private:
    // The value at `key` into *out where `fits` takes it; absent (or null, where `nullIsAbsent`)
    // leaves *out as it was.
    template <typename T, typename Fits>
    void take(const char* key, T* out, const char* expected, bool nullIsAbsent, Fits fits) {
        const QJsonValue v = o_.value(key);
        if (v.isUndefined() || (nullIsAbsent && v.isNull())) {
            return;
        }
        if (!fits(v)) {
            return wrong(key, expected, v);
        }
        as(v, out);
    }
    static void as(const QJsonValue& v, QString* out) { *out = v.toString(); }
    static void as(const QJsonValue& v, double* out) { *out = v.toDouble(); }
    static void as(const QJsonValue& v, int* out) { *out = int(v.toDouble()); }
    static void as(const QJsonValue& v, QJsonObject* out) { *out = v.toObject(); }
    void wrong(const char* key, const char* expected, const QJsonValue& v) {
        if (problem.isEmpty()) {
            problem = QString("%1%2: expected %3, found %4")
                          .arg(where_, QString::fromLatin1(key), QString::fromLatin1(expected),
                               describeJson(v));
        }
    }
    const QJsonObject& o_;
    QString where_;
};

} // namespace

std::optional<CellRecord> parseCellRecord(const QJsonObject& cell, QString* problem) {
    CellRecord r;
    Fields top(cell, "cell.json: ");
    top.string("id", &r.id);
    top.string("kind", &r.kind);
    top.string("status", &r.status);
    top.string("model", &r.model);
    top.string("layer", &r.layer);
    top.integer("world_size", &r.worldSize);
    top.object("config", &r.config.all);
    Fields config(r.config.all, "cell.json: config.");
    config.number("bucket_cap_mb", &r.config.bucketCapMb);
    config.number("first_bucket_mb", &r.config.firstBucketMb);
    config.string("hook", &r.config.hook);
    config.string("link", &r.config.link);
    for (const QString& p : {top.problem, config.problem}) {
        if (!p.isEmpty()) {
            *problem = p;
            return std::nullopt;
        }
    }
    return r;
}

} // namespace commprof::results
