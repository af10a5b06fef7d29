// SPDX-License-Identifier: GPL-3.0-or-later
// commprof trace summarize and trace collectives: per-step figures of Chrome traces (several
// ranks: skew and stragglers), and a record per collective.

#include "cli_common.h"
#include "trace_args.h"

#include "inputs/ddp_job_files.h"
#include "results/json_kind.h"
#include "trace/collectives.h"
#include "trace/hta_figures.h"
#include "trace/job_json.h"
#include "trace/step_metrics.h"
#include "trace/summary_json.h"
#include "trace/trace_job.h"
#include "trace/trace_reader.h"
#include "trace/trace_report.h"
#include "trace/trace_windows.h"

#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>

#include <optional>
#include <set>

namespace commprof::cli {
namespace {

QString figure(double v) {
    return QString::number(v, 'f', 1);
}

// One line of a table: each cell padded to its width (a negative width aligns it left).
QString columns(const std::vector<int>& widths, const QStringList& cells) {
    QStringList padded;
    for (qsizetype i = 0; i < cells.size(); ++i) {
        padded << QString("%1").arg(cells[i], widths[std::size_t(i)]);
    }
    return padded.join(' ') + '\n';
}

// "warning: PREFIXw" per warning, a line each.
QString warningLines(const std::vector<std::string>& warnings, const QString& prefix = {}) {
    QString out;
    for (const auto& w : warnings) {
        out += QString("warning: %1%2\n").arg(prefix, QString::fromStdString(w));
    }
    return out;
}

QString formatSummary(const trace::TraceSummary& s) {
    QString out = QString("regime: %1, %2 step(s)%3\n")
                      .arg(trace::toString(s.regime))
                      .arg(s.steps.size())
                      .arg(s.stepsMarked ? "" : " (no ProfilerStep markers: one window)");
    const std::vector<int> widths{6, 12, 12, 12, 12, 12, 12, 12};
    out += columns(widths, {"step", "step_us", "compute_us", "comm_us", "bookkeep_us", "memory_us",
                            "overlap_us", "exposed_us"});
    auto row = [&](const QString& label, const trace::StepMetrics& m) {
        QStringList cells{label};
        for (const double v : {m.stepUs, m.computeUs, m.commUs, m.bookkeepingUs, m.memoryUs,
                               m.overlapUs, m.exposedCommUs}) {
            cells << figure(v);
        }
        out += columns(widths, cells);
    };
    for (const auto& m : s.steps) {
        row(QString::number(m.step), m);
    }
    row("total", s.totals);
    if (s.windowFigures) {
        row("window", *s.windowFigures);
    }
    return out + warningLines(s.warnings);
}

// One row per step for a spreadsheet; a job adds a row per rank and step. Totals are left to
// the reader, who can sum the columns.
constexpr const char* kStepsCsvHeader =
    "rank,step,start_us,end_us,step_us,compute_us,comm_us,bookkeeping_us,memory_us,overlap_us,"
    "exposed_comm_us,collectives,comm_bytes\n";

QString stepsCsvRows(const std::optional<int>& rank, const trace::TraceSummary& s) {
    QString out;
    for (const auto& m : s.steps) {
        QStringList cells{rank ? QString::number(*rank) : QString(), QString::number(m.step)};
        for (const double v : {m.startUs, m.endUs, m.stepUs, m.computeUs, m.commUs, m.bookkeepingUs,
                               m.memoryUs, m.overlapUs, m.exposedCommUs}) {
            cells << QString::number(v, 'f', 3);
        }
        cells << QString::number(m.collectives)
              << (m.commBytes ? QString::number(*m.commBytes, 'f', 0) : QString());
        out += cells.join(',') + '\n';
    }
    return out;
}

QString formatHta(const trace::HtaFigures& h) {
    QString text = "HTA-compatible figures:\n";
    const QJsonObject doc = trace::toJson(h);
    for (const char* key : {"comp_comm_overlap_pctg", "idle_time_us", "compute_time_us",
                            "non_compute_time_us", "kernel_time_us"}) {
        const QJsonValue v = doc.value(key);
        text += QString("  %1: %2\n")
                    .arg(key, v.isNull() ? "null" : QString::number(v.toDouble(), 'f', 2));
    }
    return text + warningLines(h.warnings, "HTA: ");
}

QString formatKinds(const std::vector<trace::KindSummary>& kinds) {
    if (kinds.empty()) {
        return "collectives: none\n";
    }
    const std::vector<int> widths{-16, 7, 16, 18};
    QString out = columns(widths, {"collective", "count", "total_bytes", "median_busbw_GB/s"});
    for (const auto& k : kinds) {
        out += columns(widths,
                       {QString::fromStdString(k.kind), QString::number(k.count),
                        k.totalBytes ? QString::number(*k.totalBytes, 'f', 0) : "null",
                        k.medianBusbwGBps ? QString::number(*k.medianBusbwGBps, 'f', 3) : "n/a"});
    }
    return out;
}

// One trace's summarize document: trace-semantics figures, collectives by kind, and with
// --hta HTA's five figures at the top level (their warnings join the others).
QJsonObject singleDocument(const trace::RankReduction& r) {
    QJsonObject doc = trace::toJson(r.summary);
    doc.insert("source", QString::fromStdString(r.source));
    doc.insert("distributed", trace::toJson(r.distributed));
    doc.insert("collectives",
               QJsonObject{{"count", qint64(r.collectives)}, {"by_kind", trace::toJson(r.byKind)}});
    if (const auto& hta = r.hta) {
        const QJsonObject h = trace::toJson(*hta);
        for (auto it = h.begin(); it != h.end(); ++it) {
            doc.insert(it.key(), it.value());
        }
        QJsonArray warnings = doc["warnings"].toArray();
        for (const auto& w : hta->warnings) {
            warnings.append("HTA: " + QString::fromStdString(w));
        }
        doc.insert("warnings", warnings);
    }
    return doc;
}

// One trace's output, from its reduction: the same figures a whole trace gives, whether it
// was reduced here or by a Slurm task.
int printOne(const TraceArgs& a, const trace::RankReduction& r) {
    if (a.format == Format::Csv) {
        printText(kStepsCsvHeader + stepsCsvRows(r.rank, r.summary));
    } else if (a.format == Format::Json) {
        printJson(singleDocument(r));
    } else {
        printText(formatSummary(r.summary) + formatKinds(r.byKind) +
                  (r.hta ? formatHta(*r.hta) : QString()));
    }
    return Ok;
}

int summarizeOne(const TraceArgs& a) {
    const std::vector<std::string> file{a.paths.first().toStdString()};
    if (a.slurm) {
        std::vector<trace::LoadedReduction> loaded = reduceOnSlurm(a, file);
        if (!loaded.front().reduction) {
            throw trace::TraceError(loaded.front().error);
        }
        return printOne(a, *loaded.front().reduction);
    }
    heapInHugePages();
    return printOne(
        a, trace::reduceTrace(trace::readTraceFile(file.front(), a.read), a.window, a.hta));
}

QString formatJob(const std::vector<int>& ranks,
                  const std::vector<const trace::RankReduction*>& reductions,
                  const trace::JobAnalysis& job) {
    const std::vector<int> widths{5, 6, 12, 12, 12, 12};
    QString out =
        columns(widths, {"rank", "steps", "step_us", "compute_us", "comm_us", "memory_us"});
    for (std::size_t i = 0; i < ranks.size(); ++i) {
        const trace::TraceSummary& s = reductions[i]->summary;
        const auto& t = s.totals;
        out += columns(widths, {QString::number(ranks[i]), QString::number(s.steps.size()),
                                figure(t.stepUs), figure(t.computeUs), figure(t.commUs),
                                figure(t.memoryUs)});
    }
    out += QString("%1 collectives matched across ranks\n").arg(job.instances.size());
    for (const auto& r : job.ranks) {
        out += QString("rank %1: last at %2 of %3, median lateness %4 us%5\n")
                   .arg(r.rank)
                   .arg(r.lastArrivals)
                   .arg(r.instances)
                   .arg(figure(r.medianLatenessUs))
                   .arg(r.straggler ? "  <- straggler" : "");
    }
    out += QString("straggler: last at two thirds or more of the collectives and median "
                   "lateness above %1 us (%2 of the median step, %3 us)\n")
               .arg(figure(job.thresholdUs))
               .arg(trace::kStragglerStepFraction)
               .arg(figure(job.medianStepUs));
    for (const auto& v : job.steps) {
        out += QString("step %1: slowest rank %2, %3 us of waiting over %4 collectives\n")
                   .arg(v.step)
                   .arg(v.slowestRank ? QString::number(*v.slowestRank) : QString("-"))
                   .arg(figure(v.waitUs))
                   .arg(v.instances);
    }
    return out + warningLines(job.warnings);
}

void writeOut(const QByteArray& bytes) {
    std::fwrite(bytes.constData(), 1, std::size_t(bytes.size()), stdout);
}

// printJson of the job document with its instances, written one at a time: they are its bulk
// (an object per collective and rank), which as one tree and one text took more memory than
// the ranks' reductions. The bytes are printJson's: the document is written with an empty
// array in their place, and each instance as Qt writes an array element, two levels deeper.
void printJobJson(QJsonObject doc, const std::vector<trace::CollectiveInstance>& instances) {
    doc.insert("instances", QJsonArray());
    const QByteArray text = QJsonDocument(doc).toJson(QJsonDocument::Indented);
    const QByteArray empty = "\n    \"instances\": [\n    ]";
    const qsizetype at = text.indexOf(empty);
    if (instances.empty() || at < 0) {
        writeOut(text);
        std::fflush(stdout);
        return;
    }
    writeOut(text.left(at) + "\n    \"instances\": [\n");
    for (std::size_t i = 0; i < instances.size(); ++i) {
        // "[\n    {...}\n]\n": the element one level deep; JSON strings hold no raw newline.
        QByteArray one =
            QJsonDocument(QJsonArray{trace::toJson(instances[i])}).toJson(QJsonDocument::Indented);
        one = one.mid(2, one.size() - 5);
        one.replace("\n", "\n    ");
        writeOut("    " + one + (i + 1 < instances.size() ? ",\n" : "\n"));
    }
    writeOut(text.mid(at + empty.size() - 5));
    std::fflush(stdout);
}

// The reductions the summary covers: a tensorboard_trace_handler folder's latest complete window
// of each worker (trace/trace_windows.h), less the JSON files of a folder that are no traces (a
// results cell holds rank files and a manifest beside its traces). What was left out goes to
// `notes`; a named file that cannot be read is refused.
std::vector<const trace::RankReduction*>
keepTraces(const TraceArgs& a, const inputs::TraceFiles& in,
           const std::vector<trace::LoadedReduction>& loaded, std::vector<std::string>& notes) {
    const trace::WindowChoice windows =
        trace::latestCompleteWindows(in.files, [&](std::size_t i) -> std::optional<int> {
            return loaded[i].reduction
                       ? std::optional<int>(int(loaded[i].reduction->summary.steps.size()))
                       : std::nullopt;
        });
    if (!windows.note.empty()) {
        notes.push_back(windows.note);
    }
    std::vector<const trace::RankReduction*> traces;
    std::string skipped;
    for (const std::size_t i : windows.keep) {
        if (!loaded[i].reduction) {
            if (loaded[i].notATrace && in.fromDirectory[i]) {
                skipped += (skipped.empty() ? "" : ", ") +
                           QFileInfo(QString::fromStdString(in.files[i])).fileName().toStdString();
                continue;
            }
            throw trace::TraceError(loaded[i].error);
        }
        traces.push_back(&*loaded[i].reduction);
    }
    if (!skipped.empty()) {
        notes.push_back("skipped JSON files that are not Chrome traces: " + skipped);
    }
    if (traces.empty()) {
        throw trace::TraceError(a.paths.join(", ").toStdString() +
                                ": no Chrome traces among the files found");
    }
    return traces;
}

// Ranks as the traces say, else their order; a rank claimed twice, or outside [0, world size),
// falls back to order, and `notes` says so.
std::vector<int> numberRanks(const std::vector<const trace::RankReduction*>& traces,
                             std::vector<std::string>& notes) {
    std::vector<int> ranks;
    std::set<int> seen;
    for (std::size_t i = 0; i < traces.size(); ++i) {
        int r = traces[i]->rank.value_or(int(i));
        const auto& world = traces[i]->distributed.worldSize;
        const auto byPosition = [&](const std::string& why) {
            notes.push_back(traces[i]->source + ": rank " + std::to_string(r) + why +
                            "; numbered by position instead");
            r = int(i);
            while (seen.count(r)) {
                r += int(traces.size());
            }
        };
        if (r < 0 || (world && r >= *world)) {
            byPosition(world ? " is outside its world size " + std::to_string(*world)
                             : std::string(" is negative"));
        }
        if (seen.count(r)) {
            byPosition(" appears twice");
        }
        seen.insert(r);
        ranks.push_back(r);
    }
    return ranks;
}

// The job in the format asked: CSV rows per rank and step, the JSON document, or the table.
int printJob(const TraceArgs& a, const std::vector<const trace::RankReduction*>& traces,
             const std::vector<int>& ranks, const trace::JobAnalysis& job) {
    if (a.format == Format::Csv) {
        QString csv = kStepsCsvHeader;
        for (std::size_t i = 0; i < traces.size(); ++i) {
            csv += stepsCsvRows(ranks[i], traces[i]->summary);
        }
        printText(csv);
    } else if (a.format == Format::Json) {
        QJsonArray rankDocs;
        for (std::size_t i = 0; i < traces.size(); ++i) {
            QJsonObject doc = singleDocument(*traces[i]);
            doc.insert("rank", ranks[i]);
            rankDocs.append(doc);
        }
        QJsonObject out = trace::toJson(job, false);
        out.insert("ranks", rankDocs);
        printJobJson(out, job.instances);
    } else {
        printText(formatJob(ranks, traces, job));
    }
    return Ok;
}

int summarizeJob(const TraceArgs& a) {
    const inputs::TraceFiles in = inputs::traceFilesOf(a.paths);
    // Each rank reduced as it is read, its events dropped: memory stays that of one trace per
    // reading thread, whatever the number of ranks.
    keepLargeBlocksOutOfTheHeap();
    const std::vector<trace::LoadedReduction> loaded =
        a.slurm ? reduceOnSlurm(a, in.files)
                : trace::readReductions(in.files, a.read, a.window, a.hta);
    std::vector<std::string> notes;
    const std::vector<const trace::RankReduction*> traces = keepTraces(a, in, loaded, notes);
    const std::vector<int> ranks = numberRanks(traces, notes);
    trace::JobAnalysis job = trace::analyzeJob(traces, ranks);
    job.warnings.insert(job.warnings.end(), notes.begin(), notes.end()); // after its own
    return printJob(a, traces, ranks, job);
}

int collectives(const TraceArgs& a) {
    const trace::Trace t = trace::readTraceFile(a.paths.first().toStdString(), a.read);
    const auto kinds = trace::summarizeByKind(t.collectives);
    if (a.format == Format::Json) {
        const auto record = [](const auto& r) { return trace::toJson(r); };
        printJson(QJsonObject{{"source", QString::fromStdString(t.source)},
                              {"distributed", trace::toJson(t.distributed)},
                              {"collectives", results::jsonArray(t.collectives, record)},
                              {"summary", trace::toJson(kinds)},
                              {"warnings", trace::toJson(t.warnings)}});
        return Ok;
    }
    const std::vector<int> widths{-16, 20, 12, 14, 11, 11};
    QString text =
        columns(widths, {"kind", "start_us", "duration_us", "bytes", "algbw_GB/s", "busbw_GB/s"});
    auto orNull = [](const std::optional<double>& v, int decimals) {
        return v ? QString::number(*v, 'f', decimals) : QString("null");
    };
    for (const auto& r : t.collectives) {
        text += columns(widths, {QString::fromStdString(r.kind), QString::number(r.startUs, 'f', 3),
                                 figure(r.durationUs), orNull(r.bytes, 0), orNull(r.algbwGBps, 3),
                                 r.busbwGBps ? orNull(r.busbwGBps, 3) : "n/a"});
    }
    printText(text + formatKinds(kinds) + warningLines(t.warnings));
    return Ok;
}

} // namespace

int traceSummarizeCommand(const Args& args) {
    return guarded(args, [](const TraceArgs& a) {
        const bool one = a.paths.size() == 1 && !QFileInfo(a.paths.first()).isDir();
        return one ? summarizeOne(a) : summarizeJob(a);
    });
}

int traceCollectivesCommand(const Args& args) {
    return guarded(args, collectives);
}

} // namespace commprof::cli
