// SPDX-License-Identifier: GPL-3.0-or-later
#include "stack_loader.h"

#include "spec/mapped.h"
#include "spec/rank_contract.h"
#include "trace/read_cancel.h"
#include "trace/trace_error.h"
#include "trace/trace_job.h"

#include <QCollator>
#include <QDir>
#include <QtConcurrent/QtConcurrentMap>

#include <algorithm>

namespace commprof::timeline {

QStringList traceFilesOfCell(const QString& cellDir) {
    QStringList files = QDir(cellDir).entryList({QString::fromStdString(spec::files::kTrace.glob()),
                                                 QString(spec::files::kTrace.prefix) + "*.json"},
                                                QDir::Files);
    QCollator numeric;
    numeric.setNumericMode(true);
    std::sort(files.begin(), files.end(), numeric);
    for (QString& f : files) {
        f = QDir(cellDir).filePath(f);
    }
    return files;
}

TimelineStack loadStack(const QStringList& files, const std::function<bool()>& cancelled,
                        int parallel) {
    const auto paths = spec::mapped<std::vector<std::string>>(
        files, [](const QString& f) { return f.toStdString(); });
    // Parsing, the larger part, one file per core; then each rank's lanes, rows and levels.
    trace::ReadOptions options = trace::ReadOptions::fromEnvironment();
    options.cancelled = cancelled;
    std::vector<trace::LoadedTrace> read =
        trace::readTraces(paths, options, std::size_t(std::max(0, parallel)));
    // A stopped read is neither a warning nor an error: nobody wants this stack any more.
    const auto stopIfCancelled = [&] {
        if (std::ranges::any_of(read, &trace::ReadOutcome::cancelled) ||
            trace::isCancelled(cancelled)) {
            throw trace::ReadCancelled(0, 0);
        }
    };
    stopIfCancelled();
    std::vector<QString> warnings;
    std::vector<int> ok;
    for (int i = 0; i < int(read.size()); ++i) {
        if (read[std::size_t(i)].trace) {
            ok.push_back(i);
        } else {
            warnings.push_back(QString::fromStdString(read[std::size_t(i)].error));
        }
    }
    if (ok.empty()) {
        QStringList all(warnings.begin(), warnings.end());
        throw trace::TraceError(all.isEmpty() ? std::string("no trace files given")
                                              : all.join("\n").toStdString());
    }
    std::vector<std::shared_ptr<const RankTimeline>> ranks(ok.size());
    QtConcurrent::blockingMap(ok, [&](int i) {
        if (trace::isCancelled(cancelled)) {
            return;
        }
        trace::Trace& t = *read[std::size_t(i)].trace;
        const int rank = trace::rankOf(t).value_or(i);
        const auto slot = std::size_t(std::find(ok.begin(), ok.end(), i) - ok.begin());
        ranks[slot] =
            std::make_shared<const RankTimeline>(buildRankTimeline(std::move(t), rank, files[i]));
    });
    stopIfCancelled();
    std::erase(ranks, nullptr);
    // What the parser kept warnings about (a damaged file) goes with the stack too.
    for (const auto& r : ranks) {
        for (const auto& w : r->trace.warnings) {
            warnings.push_back(QString("%1: %2").arg(r->path, QString::fromStdString(w)));
        }
    }
    TimelineStack stack = stackRanks(std::move(ranks));
    stack.warnings = std::move(warnings);
    return stack;
}

} // namespace commprof::timeline
