#include "stack_loader.h"

#include "trace/trace_error.h"
#include "trace/trace_reader.h"

#include <QCollator>
#include <QDir>

#include <algorithm>
#include <atomic>
#include <mutex>
#include <thread>

namespace commprof::timeline {

QStringList traceFilesOfCell(const QString& cellDir) {
    QStringList files =
        QDir(cellDir).entryList({"trace_rank*.json.gz", "trace_rank*.json"}, QDir::Files);
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
    const int n = int(files.size());
    std::vector<std::shared_ptr<const RankTimeline>> built(static_cast<std::size_t>(n));
    std::vector<QString> errors(static_cast<std::size_t>(n));
    trace::ReadOptions options = trace::ReadOptions::fromEnvironment();
    if (n > 1) {
        options.threads = 1; // the files are the parallelism
    }
    std::atomic<int> next{0};
    auto work = [&] {
        for (int i = next++; i < n; i = next++) {
            if (cancelled && cancelled()) {
                return;
            }
            const std::string path = files[i].toStdString();
            try {
                trace::Trace t = trace::readTraceFile(path, options);
                const int rank = rankOfTrace(t, files[i], i);
                built[std::size_t(i)] = std::make_shared<const RankTimeline>(
                    buildRankTimeline(std::move(t), rank, files[i]));
            } catch (const std::exception& e) {
                errors[std::size_t(i)] = QString::fromUtf8(e.what());
            }
        }
    };
    const int workers = std::clamp(
        parallel > 0 ? parallel : int(std::thread::hardware_concurrency()), 1, std::max(1, n));
    std::vector<std::thread> threads;
    for (int w = 1; w < workers; ++w) {
        threads.emplace_back(work);
    }
    work();
    for (auto& t : threads) {
        t.join();
    }
    std::vector<std::shared_ptr<const RankTimeline>> ranks;
    std::vector<QString> warnings;
    for (int i = 0; i < n; ++i) {
        if (built[std::size_t(i)]) {
            ranks.push_back(built[std::size_t(i)]);
        } else if (!errors[std::size_t(i)].isEmpty()) {
            warnings.push_back(errors[std::size_t(i)]);
        }
    }
    if (ranks.empty() && !(cancelled && cancelled())) {
        QStringList all(warnings.begin(), warnings.end());
        throw trace::TraceError(all.isEmpty() ? std::string("no trace files given")
                                              : all.join("\n").toStdString());
    }
    // Warnings the parser kept about a damaged file (input ends early) go with the stack too.
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
