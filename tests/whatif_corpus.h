// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The stored what-if validation corpus (tests/data/whatif_corpus, recorded by
// tests/bench/record_whatif_corpus.py): its manifest read into value types, what a complete
// corpus holds, and `commprof trace whatif --json` run on one stored variant's traces the way a
// user would (legacy 1.13 traces with their params.json, Kineto 2.x traces with only the cap the
// job ran). Shared by tests/bench/whatif_validation (the figures) and tst_whatif_corpus (the
// deterministic checks), so both read the corpus alike.

#include "cli_runner.h"
#include "link_helpers.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSet>
#include <QString>
#include <QStringList>

#include <algorithm>
#include <cmath>
#include <vector>

namespace whatif_corpus {

inline QString defaultDir() {
    return COMMPROF_TEST_DATA "/whatif_corpus";
}

// Every cap and hook the corpus's jobs ran; each what-if is asked for all of them.
inline const QList<double> kCaps{0.25, 1, 4, 10, 25};
inline const QStringList kHooks{"allreduce", "fp16_compress"};
inline const QStringList kLinks{"loopback", "2gbit", "500mbit"};
constexpr int kFamilies = 8;
constexpr int kKinetoFamilies = 2;

using links_test::median; // the median of timings, as the measured tests take it

struct Variant {
    QString label;
    double capMb = 0;
    QString hook;
    double medianMs = 0; // as the manifest states it
    std::vector<double> samplesMs;
};

struct Job {
    QString dir; // relative to the corpus
    QString family, half, link, torch;
    bool kineto = false;
    qint64 params = 0; // the model's parameter count, as torch counted it
    QString repeatOf;  // a repetition (timed steps only, no traces): the job it repeats
    std::vector<Variant> variants;
    QJsonObject files; // relative path -> bytes
    QString loadAverage;
};

struct Corpus {
    QString root;
    QJsonObject manifest;
    std::vector<Job> jobs;
    QString error; // why the manifest could not be read
};

inline Corpus read(const QString& root = defaultDir()) {
    Corpus c;
    c.root = root;
    QFile f(root + "/manifest.json");
    if (!f.open(QIODevice::ReadOnly)) {
        c.error = f.fileName() + ": " + f.errorString();
        return c;
    }
    QJsonParseError pe;
    const QJsonDocument doc = QJsonDocument::fromJson(f.readAll(), &pe);
    if (pe.error != QJsonParseError::NoError) {
        c.error = f.fileName() + ": " + pe.errorString();
        return c;
    }
    c.manifest = doc.object();
    for (const QJsonValue j : c.manifest["jobs"].toArray()) {
        Job job;
        job.dir = j["dir"].toString();
        job.family = j["family"].toString();
        job.half = j["half"].toString();
        job.link = j["link"].toString();
        job.torch = j["torch"].toString();
        job.kineto = j["kineto"].toBool();
        job.files = j["files"].toObject();
        job.repeatOf = j["repeat_of"].toString();
        QStringList load;
        for (const QJsonValue l : j["load_average_1min"].toArray()) {
            load << QString::number(l.toDouble(), 'f', 1);
        }
        job.loadAverage = load.join(' ');
        job.params = j["params"].toInteger();
        for (const QJsonValue v : j["variants"].toArray()) {
            Variant var{v["label"].toString(),
                        v["bucket_cap_mb"].toDouble(),
                        v["hook"].toString(),
                        v["unprofiled_median_ms"].toDouble(),
                        {}};
            for (const QJsonValue s : v["unprofiled_ms"].toArray()) {
                var.samplesMs.push_back(s.toDouble());
            }
            job.variants.push_back(var);
        }
        c.jobs.push_back(job);
    }
    return c;
}

// What a complete corpus holds, each gap named: 8 families, each over the 3 links with torch
// 1.13 (params.json beside each trace), at least 2 with Kineto traces (none with params.json);
// every job with the 5 caps (allreduce) and fp16_compress, each variant's stated median the
// median of its samples; every listed file present at its listed size; the split declared and
// covering the families once, half in each.
inline QStringList problems(const Corpus& c) {
    QStringList out;
    if (!c.error.isEmpty()) {
        return {c.error};
    }
    const QStringList families = [&] {
        QStringList f;
        for (const QJsonValue v : c.manifest["families"].toArray()) {
            f << v.toString();
        }
        return f;
    }();
    if (families.size() < kFamilies) {
        out << QString("manifest: %1 families, expected %2").arg(families.size()).arg(kFamilies);
    }
    QStringList develop, judge;
    for (const QJsonValue v : c.manifest["split"]["develop"].toArray()) {
        develop << v.toString();
    }
    for (const QJsonValue v : c.manifest["split"]["judge"].toArray()) {
        judge << v.toString();
    }
    if (c.manifest["split_why"].toString().isEmpty()) {
        out << "manifest: split_why is empty";
    }
    for (const QString& f : families) {
        if (develop.contains(f) == judge.contains(f)) {
            out << "split: family " + f + " is in " +
                       (develop.contains(f) ? "both halves" : "neither half");
        }
    }
    if (develop.size() != judge.size()) {
        out << QString("split: %1 develop against %2 judge").arg(develop.size()).arg(judge.size());
    }
    QSet<QString> legacy, kineto;
    for (const Job& j : c.jobs) {
        const QString where = "job " + j.dir;
        if (!families.contains(j.family)) {
            out << where + ": family " + j.family + " is not declared";
        }
        if (j.half != (develop.contains(j.family) ? "develop" : "judge")) {
            out << where + ": half " + j.half + " is not the split's";
        }
        const bool repeat = !j.repeatOf.isEmpty();
        if (repeat && std::none_of(c.jobs.begin(), c.jobs.end(),
                                   [&](const Job& o) { return o.dir == j.repeatOf; })) {
            out << where + ": repeats " + j.repeatOf + ", which is not in the corpus";
        }
        if (!repeat) {
            (j.kineto ? kineto : legacy).insert(j.family + "@" + j.link);
        }
        for (const double cap : kCaps) {
            for (const QString& hook : kHooks) {
                const bool wanted = hook == "allreduce" || cap == 25;
                const bool has =
                    std::any_of(j.variants.begin(), j.variants.end(),
                                [&](const Variant& v) { return v.capMb == cap && v.hook == hook; });
                if (wanted && !has) {
                    out << where + QString(": no variant %1 MiB %2").arg(cap).arg(hook);
                }
            }
        }
        for (const Variant& v : j.variants) {
            if (v.samplesMs.size() < 3 || std::abs(median(v.samplesMs) - v.medianMs) > 1e-9) {
                out << where + ": " + v.label +
                           QString(": stated median %1 ms, its %2 samples' median %3 ms")
                               .arg(v.medianMs)
                               .arg(v.samplesMs.size())
                               .arg(median(v.samplesMs));
            }
            const QString traces = j.dir + "/" + v.label;
            if (repeat) {
                continue; // timed steps only
            }
            for (const QString& name : QStringList{"trace_rank0.json.gz", "trace_rank1.json.gz"}) {
                if (!j.files.contains(traces + "/" + name)) {
                    out << where + ": " + traces + "/" + name + " is not listed";
                }
            }
            if (j.files.contains(traces + "/params.json") == j.kineto) {
                out << where + ": " + v.label +
                           (j.kineto ? ": a Kineto trace with params.json"
                                     : ": a legacy trace without params.json");
            }
        }
        for (auto it = j.files.begin(); it != j.files.end(); ++it) {
            const QFileInfo fi(c.root + "/" + it.key());
            if (!fi.exists() || fi.size() != it.value().toInteger()) {
                out << where + ": " + it.key() +
                           QString(" listed at %1 bytes, found %2")
                               .arg(it.value().toInteger())
                               .arg(fi.exists() ? QString::number(fi.size()) : "none");
            }
        }
    }
    for (const QString& f : families) {
        for (const QString& link : kLinks) {
            if (!legacy.contains(f + "@" + link)) {
                out << "no torch 1.13 job of " + f + " over " + link;
            }
        }
    }
    if (kineto.size() < kKinetoFamilies) {
        out << QString("%1 Kineto (torch 2.x) jobs, expected %2")
                   .arg(kineto.size())
                   .arg(kKinetoFamilies);
    }
    return out;
}

inline QString traceDir(const Corpus& c, const Job& j, const Variant& v) {
    return c.root + "/" + j.dir + "/" + v.label;
}

// The arguments of `trace whatif` on one variant's traces over every cap and hook of the corpus.
// A legacy trace is read with its params.json; a Kineto trace with nothing but the cap the job
// ran (a user knows it; its sizes come from the collectives' Input Dims).
inline QStringList whatIfArgs(const QString& traces, const Job& j, const Variant& v,
                              const QStringList& extra = {}) {
    QStringList caps;
    for (const double cap : kCaps) {
        caps << QString::number(cap);
    }
    QStringList args{"trace",        "whatif", traces,           "--bucket-cap-mb",
                     caps.join(','), "--hook", kHooks.join(','), "--json"};
    if (j.kineto) {
        args << "--recorded-bucket-cap-mb" << QString::number(v.capMb);
    } else {
        args << "--params" << traces + "/params.json";
    }
    return args + extra;
}

// Every what-if of the corpus reads the hook calibration measured on the machine that recorded
// it (`commprof calibrate hooks`, right after the recording, at a like load): what a user's
// stored calibration is to their jobs.
inline CliResult whatIf(const Corpus& c, const Job& j, const Variant& v,
                        const QStringList& extra = {}) {
    return runCli("commprof",
                  whatIfArgs(traceDir(c, j, v), j, v,
                             QStringList{"--hook-calibration", c.root + "/hook-calibration.json"} +
                                 extra),
                  300000);
}

inline QJsonObject scenarioFor(const QJsonObject& whatif, double capMb, const QString& hook) {
    for (const QJsonValue s : whatif["scenarios"].toArray()) {
        if (s["bucket_cap_mb"].toDouble() == capMb && s["hook"].toString() == hook) {
            return s.toObject();
        }
    }
    return {};
}

} // namespace whatif_corpus
