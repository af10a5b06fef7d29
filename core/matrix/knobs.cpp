// SPDX-License-Identifier: GPL-3.0-or-later
#include "knobs.h"

#include "matrix/links.h"
#include "matrix/matrix.h"
#include "matrix/spec_names.h"
#include "spec/comm_hooks.h"
#include "spec/mapped.h"

#include <QJsonValue>
#include <QLocale>

#include <algorithm>

namespace commprof::matrix {
namespace {

// Far above any real bucket, low enough that the bytes fit any integer type on the way.
constexpr double kMaxBucketMb = 65536.0;

// The hooks commprof-rank runs over c10d::GradBucket (docs/measurement.md).
const QStringList kHooks = spec::mapped<QStringList>(
    spec::kCommHooks, [](const spec::CommHook& h) { return qName(h.name); });

// The shortest text that reads back as the same double: two values the user wrote apart stay
// apart (0.1000000000001 and 0.1000000000002), and 0.25 is still "0.25".
QString number(double v) {
    return QString::number(v, 'g', QLocale::FloatingPointShortest);
}

// "0.25" -> "0p25": cell ids are letters, digits and '_' only.
QString idNumber(const QString& text) {
    return QString(text).replace('.', 'p').replace('-', 'm').replace('+', "");
}

// A whole number of at least 1, its id part `prefix` and the number.
Knob countKnob(const QString& key, const QString& plural, const QString& flag,
               int RunConfig::*member, const QString& prefix, bool sweepToo = false) {
    return {
        key,
        plural,
        flag,
        false,
        [key](const Ctx& c, const YAML::Node& n) { return QString::number(integer(c, n, key, 1)); },
        [member](RunConfig& r, const QString& v) { r.*member = v.toInt(); },
        [member](const RunConfig& r) { return QString::number(r.*member); },
        [prefix](const QString& v) { return prefix + v; },
        sweepToo};
}

// A bucket size in MiB, above 0 and at most kMaxBucketMb.
Knob megabytesKnob(const QString& key, const QString& plural, const QString& flag,
                   double RunConfig::*member, const QString& prefix) {
    return {key,
            plural,
            flag,
            false,
            [key](const Ctx& c, const YAML::Node& n) {
                return number(positive(c, n, key, kMaxBucketMb));
            },
            [member](RunConfig& r, const QString& v) { r.*member = v.toDouble(); },
            [member](const RunConfig& r) { return number(r.*member); },
            [prefix](const QString& v) { return prefix + idNumber(v); }};
}

// A rank switch: "true" or "false", its id part `on` or `off`.
Knob switchKnob(const QString& key, const QString& plural, const QString& flag,
                bool RunConfig::*member, const QString& on, const QString& off) {
    const auto text = [](bool b) { return QString(b ? "true" : "false"); };
    return {key,
            plural,
            flag,
            true,
            [key, text](const Ctx& c, const YAML::Node& n) { return text(boolean(c, n, key)); },
            [member](RunConfig& r, const QString& v) { r.*member = v == "true"; },
            [member, text](const RunConfig& r) { return text(r.*member); },
            [on, off](const QString& v) { return v == "true" ? on : off; }};
}

std::vector<Knob> makeKnobs() {
    return {
        countKnob("batch_size", "batch sizes", "--batch-size", &RunConfig::batchSize, "b"),
        megabytesKnob("bucket_cap_mb", "bucket caps", "--bucket-cap-mb", &RunConfig::bucketCapMb,
                      "cap"),
        megabytesKnob("first_bucket_mb", "first bucket caps", "--first-bucket-mb",
                      &RunConfig::firstBucketMb, "first"),
        switchKnob("gradient_as_bucket_view", "gradient-as-bucket-view settings",
                   "--gradient-as-bucket-view", &RunConfig::gradientAsBucketView, "view", "copy"),
        switchKnob("static_graph", "static-graph settings", "--static-graph",
                   &RunConfig::staticGraph, "static", "dynamic"),
        {"hook", "hooks", "--hook", false,
         [](const Ctx& c, const YAML::Node& n) { return oneOf(c, n, "hook", kHooks); },
         [](RunConfig& r, const QString& v) { r.hook = v; },
         [](const RunConfig& r) { return r.hook; }, [](const QString& v) { return v; }},
        {"link", "links", "", false, readLink, [](RunConfig& r, const QString& v) { r.link = v; },
         [](const RunConfig& r) { return r.link; },
         [](const QString& v) { return v == kLoopback ? v : "link" + idNumber(v); }, true},
        countKnob("ranks_per_host", "ranks per host", "", &RunConfig::ranksPerHost, "rph", true),
    };
}

} // namespace

const std::vector<Knob>& knobs() {
    static const std::vector<Knob> table = makeKnobs();
    return table;
}

const Knob* findKnob(const QString& key) {
    const auto it = std::ranges::find(knobs(), key, &Knob::key);
    return it == knobs().end() ? nullptr : &*it;
}

QStringList knobKeys() {
    return spec::mapped<QStringList>(knobs(), [](const Knob& k) { return k.key; });
}

QStringList knobArguments(const RunConfig& config) {
    QStringList a;
    for (const Knob& k : knobs()) {
        const QString v = k.valueOf(config);
        if (!k.rankFlag.isEmpty() && (!k.isSwitch || v == "true")) {
            a << k.rankFlag << (k.isSwitch ? QStringList() : QStringList{v});
        }
    }
    return a;
}

RunConfig knobsFromJson(const QJsonObject& config) {
    RunConfig r;
    for (const Knob& k : knobs()) {
        const QJsonValue v = config[k.key];
        if (v.isBool()) {
            k.apply(r, v.toBool() ? "true" : "false");
        } else if (v.isDouble()) {
            k.apply(r, number(v.toDouble()));
        } else if (v.isString()) {
            k.apply(r, v.toString());
        }
    }
    return r;
}

KnobList readKnob(const Ctx& c, const Knob& knob, const YAML::Node& n, bool listAllowed,
                  const QString& where) {
    KnobList list{knob.key, {}, {}};
    const auto add = [&](const YAML::Node& v) {
        const QString text = knob.read(c, v);
        for (const QString& earlier : list.values) {
            // One rate written two ways ("1gbit" and "1000mbit") is one value too.
            if (earlier == text || (knob.key == "link" && sameLink(earlier, text))) {
                // Named as written: 0.10000000000000001 is the number 0.1, which the user may
                // not have written.
                const QString written = QString::fromStdString(v.Scalar());
                c.failIf(earlier != text, v, knob.key,
                         QString("%1 is listed twice (it is the rate of the earlier %2)")
                             .arg(written, earlier));
                c.fail(v, knob.key,
                       written == text ? QString("%1 is listed twice").arg(text)
                                       : QString("%1 is listed twice (it reads as %2, as an "
                                                 "earlier value does)")
                                             .arg(written, text));
            }
        }
        list.values.push_back(text);
        list.marks.emplace_back(v.Mark().line + 1, v.Mark().column + 1);
    };
    if (n.IsSequence()) {
        c.failIf(!listAllowed, n, knob.key,
                 QString("a list is allowed in defaults or a model entry, not in %1").arg(where));
        c.failIf(n.size() == 0, n, knob.key, "an empty list: give at least one value");
        for (const YAML::Node& v : n) {
            add(v);
        }
    } else {
        add(n);
    }
    return list;
}

const KnobList* findList(const std::vector<KnobList>& lists, const QString& key) {
    const auto it = std::ranges::find(lists, key, &KnobList::key);
    return it == lists.end() ? nullptr : &*it;
}

} // namespace commprof::matrix
