// SPDX-License-Identifier: GPL-3.0-or-later
#include "reduction_json.h"

#include "files/safe_file.h"
#include "json_null.h"
#include "spec/mapped.h"
#include "summary_json.h"
#include "trace_error.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QJsonParseError>

#include <cmath>
#include <limits>
#include <type_traits>

namespace commprof::trace {
namespace {

// A reduction holds a few numbers per collective and step: far below this even for a trace at
// the parser's own size limit; anything larger is not one of ours.
constexpr qint64 kMaxReductionBytes = 1LL << 30;

// JSON has no NaN, infinity or negative zero; Qt would write the first two as null and the third
// as 0, and the merged job would then print other figures than the local one.
QJsonValue exact(double d) {
    if (std::isnan(d)) {
        return "nan";
    }
    if (std::isinf(d)) {
        return d > 0 ? "inf" : "-inf";
    }
    if (d == 0 && std::signbit(d)) {
        return "-0";
    }
    return d;
}

QJsonValue exact(const std::optional<double>& d) {
    return d ? exact(*d) : QJsonValue(QJsonValue::Null);
}

QJsonValue spanOrNull(const std::optional<Span>& s) {
    return s ? QJsonValue(QJsonArray{exact(s->start), exact(s->end)}) : QJsonValue();
}

template <typename M> QJsonObject written(const M& m, const std::vector<spec::Field<M>>& fields) {
    return fieldsJson(m, fields, [](const auto& v) { return exact(v); });
}

QJsonObject summaryJson(const TraceSummary& s) {
    const auto step = [](const StepMetrics& m) { return written(m, stepFields()); };
    return {{"regime", toString(s.regime)},
            {"steps_marked", s.stepsMarked},
            {"steps", spec::mapped<QJsonArray>(s.steps, step)},
            {"totals", written(s.totals, stepFields())},
            {"window", spanOrNull(s.window)},
            {"window_figures",
             s.windowFigures ? QJsonValue(written(*s.windowFigures, stepFields())) : QJsonValue()},
            {"warnings", toJson(s.warnings)}};
}

QJsonObject htaJson(const HtaFigures& h) {
    QJsonObject out = written(h, htaFields());
    out.insert("device_events", qint64(h.deviceEvents));
    out.insert("warnings", toJson(h.warnings));
    return out;
}

QJsonValue distributedJson(const DistributedInfo& d) {
    if (!d.present) {
        return QJsonValue();
    }
    return QJsonObject{{"rank", numberOrNull(d.rank)},
                       {"world_size", numberOrNull(d.worldSize)},
                       {"backend", QString::fromStdString(d.backend)},
                       {"nccl_version", QString::fromStdString(d.ncclVersion)}};
}

// [process group, kind, seq, step, ordinal, start_us]: a few numbers per collective and rank,
// the bulk of the file, without a key repeated per element.
QJsonArray arrivalJson(const CollectiveArrival& a) {
    return {qint64(a.processGroup), qint64(a.kind),    numberOrNull(a.seq),
            numberOrNull(a.step),   qint64(a.ordinal), exact(a.startUs)};
}

// One value of the document being read, with where it is, so that every error names its field.
class Field {
public:
    Field(const QString& file, QString at, QJsonValue value)
        : file_(file), at_(std::move(at)), value_(std::move(value)) {}

    [[noreturn]] void fail(const QString& what) const {
        throw TraceError(QString("%1: field '%2': %3").arg(file_, at_, what).toStdString());
    }

    Field operator[](const char* key) const {
        if (!value_.isObject()) {
            fail("expected an object");
        }
        const QJsonObject o = value_.toObject();
        const QString path = at_.isEmpty() ? QString(key) : at_ + "." + key;
        if (!o.contains(key)) {
            Field(file_, path, {}).fail("missing");
        }
        return Field(file_, path, o.value(key));
    }

    std::vector<Field> elements() const {
        if (!value_.isArray()) {
            fail("expected an array");
        }
        const QJsonArray a = value_.toArray();
        std::vector<Field> out;
        out.reserve(std::size_t(a.size()));
        for (qsizetype i = 0; i < a.size(); ++i) {
            out.emplace_back(file_, QString("%1[%2]").arg(at_).arg(i), a[i]);
        }
        return out;
    }

    bool isNull() const { return value_.isNull(); }

    double number() const {
        if (value_.isDouble()) {
            return value_.toDouble();
        }
        const QString s = value_.toString();
        if (s == "nan") {
            return std::numeric_limits<double>::quiet_NaN();
        }
        if (s == "inf" || s == "-inf") {
            return (s == "inf" ? 1 : -1) * std::numeric_limits<double>::infinity();
        }
        if (s == "-0") {
            return -0.0;
        }
        fail("expected a number");
    }
    std::optional<double> optionalNumber() const {
        return isNull() ? std::nullopt : std::optional<double>(number());
    }

    qint64 integer(qint64 lowest = std::numeric_limits<qint64>::min(),
                   qint64 highest = std::numeric_limits<qint64>::max()) const {
        const double d = value_.toDouble();
        if (!value_.isDouble() || d != std::floor(d) || std::abs(d) > 9.2e18) {
            fail("expected an integer");
        }
        const qint64 v = value_.toInteger();
        if (v < lowest || v > highest) {
            fail(QString("%1 is out of range [%2, %3]").arg(v).arg(lowest).arg(highest));
        }
        return v;
    }
    template <typename T> T integerAs() const {
        return T(integer(qint64(std::numeric_limits<T>::min()),
                         qint64(std::min<std::uint64_t>(std::numeric_limits<T>::max(),
                                                        std::numeric_limits<qint64>::max()))));
    }
    template <typename T> std::optional<T> optionalInteger() const {
        return isNull() ? std::nullopt : std::optional<T>(integerAs<T>());
    }

    bool boolean() const {
        if (!value_.isBool()) {
            fail("expected true or false");
        }
        return value_.toBool();
    }

    std::string string() const {
        if (!value_.isString()) {
            fail("expected a string");
        }
        return value_.toString().toStdString();
    }

    std::vector<std::string> strings() const {
        return spec::mapped<std::vector<std::string>>(elements(),
                                                      [](const Field& f) { return f.string(); });
    }

    // Reads a field of a record (summary_json.h's tables) by its type.
    template <typename T> void read(T& out) const {
        if constexpr (std::is_same_v<T, bool>) {
            out = boolean();
        } else if constexpr (std::is_integral_v<T>) {
            out = integerAs<T>();
        } else if constexpr (std::is_same_v<T, std::string>) {
            out = string();
        } else if constexpr (std::is_same_v<T, double>) {
            out = number();
        } else if constexpr (std::is_same_v<T, std::optional<std::int64_t>>) {
            out = optionalInteger<std::int64_t>();
        } else if constexpr (std::is_same_v<T, std::optional<double>>) {
            out = optionalNumber();
        } else { // an array
            out.clear();
            for (const Field& e : elements()) {
                e.read(out.emplace_back());
            }
        }
    }

    std::optional<Span> span() const {
        if (isNull()) {
            return std::nullopt;
        }
        const std::vector<Field> e = elements();
        if (e.size() != 2) {
            fail("expected [start, end]");
        }
        return Span{e[0].number(), e[1].number()};
    }

private:
    const QString& file_;
    QString at_;
    QJsonValue value_;
};

template <typename M> M readFields(const Field& f, const std::vector<spec::Field<M>>& fields) {
    M m;
    for (const spec::Field<M>& field : fields) {
        std::visit([&](auto member) { f[field.key].read(m.*member); }, field.member);
    }
    return m;
}

TraceSummary summaryOf(const Field& f) {
    TraceSummary s;
    const std::string regime = f["regime"].string();
    if (regime != toString(Regime::Host) && regime != toString(Regime::Device)) {
        f["regime"].fail("expected \"host\" or \"device\"");
    }
    s.regime = regime == toString(Regime::Device) ? Regime::Device : Regime::Host;
    s.stepsMarked = f["steps_marked"].boolean();
    s.steps = spec::mapped<std::vector<StepMetrics>>(
        f["steps"].elements(), [](const Field& m) { return readFields(m, stepFields()); });
    s.totals = readFields<StepMetrics>(f["totals"], stepFields());
    s.window = f["window"].span();
    if (!f["window_figures"].isNull()) {
        s.windowFigures = readFields<StepMetrics>(f["window_figures"], stepFields());
    }
    s.warnings = f["warnings"].strings();
    return s;
}

HtaFigures htaOf(const Field& f) {
    HtaFigures h = readFields<HtaFigures>(f, htaFields());
    h.deviceEvents = f["device_events"].integerAs<std::size_t>();
    h.warnings = f["warnings"].strings();
    return h;
}

DistributedInfo distributedOf(const Field& f) {
    DistributedInfo d;
    if (f.isNull()) {
        return d;
    }
    d.present = true;
    d.rank = f["rank"].optionalInteger<std::int64_t>();
    d.worldSize = f["world_size"].optionalInteger<std::int64_t>();
    d.backend = f["backend"].string();
    d.ncclVersion = f["nccl_version"].string();
    return d;
}

CollectiveArrival arrivalOf(const Field& f, std::size_t names) {
    const std::vector<Field> e = f.elements();
    if (e.size() != 6) {
        f.fail("expected [process_group, kind, seq, step, ordinal, start_us]");
    }
    CollectiveArrival a;
    a.processGroup = std::uint32_t(e[0].integer(0, qint64(names) - 1));
    a.kind = std::uint32_t(e[1].integer(0, qint64(names) - 1));
    a.seq = e[2].optionalInteger<std::int64_t>();
    a.step = e[3].optionalInteger<int>();
    a.ordinal = e[4].integerAs<std::uint32_t>();
    a.startUs = e[5].number();
    return a;
}

} // namespace

QByteArray reductionDocument(const ReducedFile& file) {
    QJsonObject doc{{"format", kReductionFormat},
                    {"version", kReductionVersion},
                    {"source", QString::fromStdString(file.source)},
                    {"window", spanOrNull(file.terms.window)},
                    {"hta", file.terms.withHta}};
    if (!file.reduction) {
        doc.insert("not_a_trace", QString::fromStdString(file.notATrace));
        return QJsonDocument(doc).toJson(QJsonDocument::Indented);
    }
    const RankReduction& r = *file.reduction;
    const auto kind = [](const KindSummary& k) { return written(k, kindFields()); };
    doc.insert("reduction",
               QJsonObject{{"source", QString::fromStdString(r.source)},
                           {"rank", numberOrNull(r.rank)},
                           {"distributed", distributedJson(r.distributed)},
                           {"summary", summaryJson(r.summary)},
                           {"hta_figures", r.hta ? QJsonValue(htaJson(*r.hta)) : QJsonValue()},
                           {"collectives", qint64(r.collectives)},
                           {"by_kind", spec::mapped<QJsonArray>(r.byKind, kind)},
                           {"names", toJson(r.names)},
                           {"arrivals", spec::mapped<QJsonArray>(r.arrivals, arrivalJson)}});
    // Compact: the arrivals are most of it, and one line per number would triple its size.
    return QJsonDocument(doc).toJson(QJsonDocument::Compact) + '\n';
}

ReducedFile parseReduction(const QByteArray& bytes, const QString& name) {
    QJsonParseError err;
    const QJsonDocument doc = QJsonDocument::fromJson(bytes, &err);
    if (err.error != QJsonParseError::NoError) {
        const qsizetype at = std::min<qsizetype>(err.offset, bytes.size());
        throw TraceError(QString("%1: line %2: not JSON: %3")
                             .arg(name)
                             .arg(bytes.left(at).count('\n') + 1)
                             .arg(err.errorString())
                             .toStdString());
    }
    const Field root(name, {}, doc.isObject() ? QJsonValue(doc.object()) : QJsonValue());
    if (!doc.isObject()) {
        root.fail("expected a JSON object");
    }
    if (root["format"].string() != kReductionFormat) {
        root["format"].fail(
            QString("expected \"%1\": this is not a rank reduction").arg(kReductionFormat));
    }
    const qint64 version = root["version"].integer();
    if (version != kReductionVersion) {
        root["version"].fail(QString("version %1 is not the %2 this commprof reads")
                                 .arg(version)
                                 .arg(kReductionVersion));
    }
    ReducedFile out;
    out.source = root["source"].string();
    out.terms.window = root["window"].span();
    out.terms.withHta = root["hta"].boolean();
    if (doc.object().contains("not_a_trace")) {
        out.notATrace = root["not_a_trace"].string();
        return out;
    }
    const Field f = root["reduction"];
    RankReduction r;
    r.source = f["source"].string();
    r.rank = f["rank"].optionalInteger<int>();
    r.distributed = distributedOf(f["distributed"]);
    r.summary = summaryOf(f["summary"]);
    if (!f["hta_figures"].isNull()) {
        r.hta = htaOf(f["hta_figures"]);
    }
    r.collectives = f["collectives"].integerAs<std::size_t>();
    r.byKind = spec::mapped<std::vector<KindSummary>>(
        f["by_kind"].elements(), [](const Field& k) { return readFields(k, kindFields()); });
    r.names = f["names"].strings();
    r.arrivals = spec::mapped<std::vector<CollectiveArrival>>(
        f["arrivals"].elements(), [&](const Field& a) { return arrivalOf(a, r.names.size()); });
    out.reduction = std::move(r);
    return out;
}

ReducedFile readReductionFile(const QString& path) {
    try {
        return parseReduction(
            files::readRegularFile(path, kMaxReductionBytes, files::Links::Follow), path);
    } catch (const files::FileError& e) {
        throw TraceError(e.what());
    }
}

} // namespace commprof::trace
