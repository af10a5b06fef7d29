// SPDX-License-Identifier: GPL-3.0-or-later
#include "divergence.h"

#include "results/json_kind.h"
#include "spec/mapped.h"

#include <QMap>

#include <algorithm>
#include <stdexcept>

namespace commprof::determinism {
namespace {

// Each verdict's name, in the order the report lists a rank's verdicts (the origin first).
constexpr std::pair<Verdict, const char*> kVerdicts[] = {{Verdict::Origin, "origin"},
                                                         {Verdict::ControlFlow, "control_flow"},
                                                         {Verdict::Receiver, "receiver"},
                                                         {Verdict::Clean, "clean"}};

int order(Verdict v) {
    return int(std::ranges::find(kVerdicts, v, &std::pair<Verdict, const char*>::first) -
               std::begin(kVerdicts));
}

QString joined(const QList<int>& ranks) {
    return spec::mapped<QStringList>(ranks, [](int r) { return QString::number(r); }).join(",");
}

// Ops whose outputs hold whatever bytes the allocator had: their digests are probe artifacts.
bool producesUninitialized(const QString& name) {
    return name.startsWith("aten::empty") || name.startsWith("aten::new_empty") ||
           name == "aten::resize_" || name == "aten::resize_as_";
}

// A difference between two records of the same op that is not a known probe artifact
// (uninitialized memory, a buffer in flight).
bool outputsDiffer(const FpRecord& a, const FpRecord& b) {
    return a.artifact.isEmpty() && !producesUninitialized(a.name) && a.outputs != b.outputs;
}

// The rank's first record whose inputs matched and whose outputs did not: that op made a
// different value from the same inputs. Before any such record, a record whose inputs differ
// can only be reading bytes no op wrote (an allocation inside a kernel, reused memory): no
// difference can flow without an origin first. If no such record exists but something
// differed, the rank received the difference from outside what was traced.
RankDivergence firstDivergence(const FpStream& a, const FpStream& b) {
    RankDivergence d;
    d.rank = a.rank;
    std::optional<std::pair<FpRecord, FpRecord>> firstDiffering;
    for (const FpRecord& ra : a.records) {
        const FpRecord* rb = b.find(ra.key());
        if (!rb) {
            if (b.truncated && ra.seq >= qint64(b.records.size())) {
                d.note = "run B's stream was truncated by its record budget here";
                break;
            }
            d.verdict = Verdict::ControlFlow;
            d.first = ra;
            d.note = "run B has no record " + ra.key();
            return d;
        }
        if (!outputsDiffer(ra, *rb)) {
            continue;
        }
        if (ra.inputs == rb->inputs) {
            d.first = ra;
            d.other = *rb;
            d.inputsMatched = true;
            d.verdict = Verdict::Origin;
            return d;
        }
        if (!firstDiffering) {
            firstDiffering = std::make_pair(ra, *rb);
        }
    }
    // Records only B has: its control flow took another path.
    for (const FpRecord& rb : b.records) {
        if (!a.byKey.contains(rb.key()) && !(a.truncated && rb.seq >= qint64(a.records.size()))) {
            d.verdict = Verdict::ControlFlow;
            d.first = rb;
            d.note = "run A has no record " + rb.key();
            return d;
        }
    }
    if (firstDiffering && a.truncated == b.truncated) {
        // Differences with no origin: either unwritten bytes, or a difference that entered from
        // outside the trace. Only the latter reaches the end of the stream: compare the last
        // semantic state (parameters after the step) to tell them apart.
        bool endsDifferent = false;
        for (auto it = a.records.rbegin(); it != a.records.rend(); ++it) {
            const FpRecord* rb = b.find(it->key());
            if (rb && outputsDiffer(*it, *rb)) {
                endsDifferent = true;
                break;
            }
            if (rb && it->layer == "semantic") {
                break; // the last semantic record matched: the runs end in the same state
            }
        }
        if (endsDifferent) {
            d.verdict = Verdict::Receiver;
            d.first = firstDiffering->first;
            d.other = firstDiffering->second;
            d.note = "its inputs differed first: the difference came from outside the traced ranks "
                     "or iterations";
        }
    }
    return d;
}

// QMap's const operator[] returns a copy: streams are looked up by reference instead.
const FpStream& streamOf(const QMap<int, FpStream>& runs, int rank) {
    return *runs.constFind(rank);
}

// A collective's output depends on every rank's input: with its local input unchanged, an
// origin at a collective received the difference, unless every rank's input matched (then the
// collective itself is nondeterministic).
void settleCollectiveOrigin(RankDivergence& d, const QList<int>& tracedRanks, bool allTraced,
                            const QMap<int, FpStream>& a, const QMap<int, FpStream>& b) {
    if (!(d.verdict == Verdict::Origin && d.first && d.first->collective)) {
        return;
    }
    QList<int> changedInputs;
    for (int other : tracedRanks) {
        const FpRecord* ra = streamOf(a, other).find(d.first->key());
        const FpRecord* rb = streamOf(b, other).find(d.first->key());
        if (ra && rb && ra->inputs != rb->inputs) {
            changedInputs << other;
        }
    }
    if (!changedInputs.isEmpty() || !allTraced) {
        d.verdict = Verdict::Receiver;
        d.inputsMatched = false;
        d.note = changedInputs.isEmpty()
                     ? "collective: its inputs from untraced ranks are unknown"
                     : "collective: the input of rank(s) " + joined(changedInputs) + " differed";
    } else {
        d.note = "collective with identical inputs on every rank gave different outputs";
    }
}

// The job's pattern from the ranks' verdicts: no divergence, only receivers, one op that is
// an origin on several ranks, or an origin on one rank only.
void describePattern(DiffReport& r) {
    QMap<QString, QList<int>> originsByOp;
    bool anyDivergence = false;
    for (const auto& d : r.ranks) {
        anyDivergence = anyDivergence || d.verdict != Verdict::Clean;
        if (d.verdict == Verdict::Origin) {
            originsByOp[d.first->name] << d.rank;
        }
    }
    if (!anyDivergence) {
        r.pattern = "none";
        r.summary = QString("no divergence in ranks %1").arg(joined(r.tracedRanks));
        return;
    }
    if (originsByOp.isEmpty()) {
        r.pattern = "outside_window";
        r.summary = QString("divergence found, but no origin in the traced ranks (%1) or "
                            "iterations: only receivers; widen the traced ranks or iterations")
                        .arg(joined(r.tracedRanks));
        return;
    }
    const auto top =
        std::max_element(originsByOp.begin(), originsByOp.end(),
                         [](const auto& x, const auto& y) { return x.size() < y.size(); });
    const int most = int(top->size());
    const QString op = top.key();
    if (most >= 2) {
        r.pattern = "op_nondeterministic";
        r.summary = QString("%1 ranks are origins at %2: the op itself is nondeterministic")
                        .arg(most)
                        .arg(op);
    } else {
        r.pattern = "input_distribution";
        r.summary = QString("origin on rank %1 at %2 only: suspect the input distribution "
                            "(reduction order or placement)")
                        .arg(originsByOp.first().first())
                        .arg(originsByOp.firstKey());
    }
}

// Discriminators: records of the first origin's op name, grouped by shapes and dtypes, each
// group counted clean or divergent.
void addDiscriminators(DiffReport& r, const QMap<int, FpStream>& a, const QMap<int, FpStream>& b) {
    const auto firstOrigin = std::ranges::find(r.ranks, Verdict::Origin, &RankDivergence::verdict);
    if (firstOrigin == r.ranks.end()) {
        return;
    }
    QMap<QString, Discriminator> groups;
    const FpStream& sa = streamOf(a, firstOrigin->rank);
    const FpStream& sb = streamOf(b, firstOrigin->rank);
    for (const FpRecord& ra : sa.records) {
        if (ra.name != firstOrigin->first->name) {
            continue;
        }
        Discriminator& g = groups[ra.signature()];
        g.signature = ra.signature();
        const FpRecord* rb = sb.find(ra.key());
        (rb && ra.outputs == rb->outputs ? g.clean : g.divergent)++;
    }
    r.discriminators.assign(groups.begin(), groups.end());
}

// What a run's header lines say of it, the same in every one of its files: each field by its
// key, and how a difference in it between two runs is said.
constexpr const char* kShapeKeys[] = {"world_size", "layers", "digest"};
constexpr const char* kShapeDiffers[] = {
    "world size %1 against %2", "fingerprint layers '%1' against '%2'", "digest '%1' against '%2'"};

QStringList shapeOf(const FpStream& s) {
    return {QString::number(s.worldSize), s.layers, s.digest};
}

// The run's shape; a file whose header says otherwise than the first's is refused.
QStringList shapeOf(const QString& dir, const QMap<int, FpStream>& streams) {
    if (streams.isEmpty()) {
        throw std::runtime_error(
            (dir + ": no fp_rank*.jsonl (run commprof-rank with --fingerprint)").toStdString());
    }
    QStringList shape = shapeOf(streams.first());
    for (const FpStream& s : streams) {
        const QStringList own = shapeOf(s);
        for (int i = 0; i < shape.size(); ++i) {
            if (own[i] != shape[i]) {
                throw std::runtime_error(
                    QString("%1: %2 %3, but %4 says %5: files of two runs")
                        .arg(s.path, kShapeKeys[i], own[i], streams.first().path, shape[i])
                        .toStdString());
            }
        }
    }
    return shape;
}

// Differences between runs mean something only for runs of the same world size, recorded the
// same way (the method's first check: same seed, data, world size and configuration): a
// world-size-1 run against a world-size-2 run differs at the first all-reduce, which is no op's
// fault.
void requireComparable(const LoadedRuns& runs, const QStringList& a, const QStringList& b) {
    QStringList differ;
    for (int i = 0; i < a.size(); ++i) {
        if (a[i] != b[i]) {
            differ << QString(kShapeDiffers[i]).arg(a[i], b[i]);
        }
    }
    if (!differ.isEmpty()) {
        throw std::runtime_error(
            QString("the runs are not comparable: %1 (%2 against %3); commprof diff compares runs "
                    "of the same seed, data, world size and configuration")
                .arg(differ.join("; "), runs.a.first().path, runs.b.first().path)
                .toStdString());
    }
}

} // namespace

const char* toString(Verdict v) {
    const int i = order(v);
    return i < int(std::size(kVerdicts)) ? kVerdicts[i].second : "unknown";
}

DiffReport diff(const LoadedRuns& runs) {
    const QMap<int, FpStream>& a = runs.a;
    const QMap<int, FpStream>& b = runs.b;
    DiffReport r;
    r.worldSize = runs.worldSize;
    for (auto it = a.begin(); it != a.end(); ++it) {
        if (b.contains(it.key())) {
            r.tracedRanks << it.key();
        }
    }
    const bool allTraced = r.worldSize > 0 && r.tracedRanks.size() == r.worldSize;
    for (int rank : r.tracedRanks) {
        RankDivergence d = firstDivergence(streamOf(a, rank), streamOf(b, rank));
        settleCollectiveOrigin(d, r.tracedRanks, allTraced, a, b);
        r.ranks.push_back(d);
    }
    std::ranges::stable_sort(r.ranks, {}, [](const RankDivergence& d) { return order(d.verdict); });
    describePattern(r);
    addDiscriminators(r, a, b);
    return r;
}

LoadedRuns loadRuns(const QString& dirA, const QString& dirB) {
    LoadedRuns runs{loadFingerprints(dirA), loadFingerprints(dirB), 0};
    const QStringList a = shapeOf(dirA, runs.a);
    requireComparable(runs, a, shapeOf(dirB, runs.b));
    runs.worldSize = runs.a.first().worldSize;
    return runs;
}

DiffReport diffDirs(const QString& dirA, const QString& dirB) {
    return diff(loadRuns(dirA, dirB));
}

QJsonObject toJson(const FpRecord& r) {
    return QJsonObject{{"id", r.id},
                       {"seq", r.seq},
                       {"iteration", r.iteration},
                       {"layer", r.layer},
                       {"name", r.name},
                       {"collective", r.collective},
                       {"artifact", r.artifact},
                       {"inputs", r.inputs},
                       {"outputs", r.outputs}};
}

QJsonObject toJson(const DiffReport& r) {
    QJsonArray ranks;
    for (const auto& d : r.ranks) {
        QJsonObject o{{"rank", d.rank}, {"verdict", toString(d.verdict)}};
        if (d.first) {
            o["first"] = QJsonObject{{"id", d.first->id},
                                     {"seq", d.first->seq},
                                     {"iteration", d.first->iteration},
                                     {"layer", d.first->layer},
                                     {"name", d.first->name},
                                     {"inputs_matched", d.inputsMatched}};
            o["a"] = toJson(*d.first);
        }
        if (d.other) {
            o["b"] = toJson(*d.other);
        }
        if (!d.note.isEmpty()) {
            o["note"] = d.note;
        }
        ranks.append(o);
    }
    const QJsonArray traced = results::jsonArray(r.tracedRanks);
    const QJsonArray disc = results::jsonArray(r.discriminators, [](const Discriminator& g) {
        return QJsonObject{
            {"signature", g.signature}, {"clean", g.clean}, {"divergent", g.divergent}};
    });
    return QJsonObject{{"ranks", ranks},         {"pattern", r.pattern},
                       {"traced_ranks", traced}, {"world_size", r.worldSize},
                       {"summary", r.summary},   {"discriminators", disc}};
}

} // namespace commprof::determinism
