// SPDX-License-Identifier: GPL-3.0-or-later
#include "trace_args.h"

#include "trace/trace_error.h"

namespace commprof::cli {

TraceArgs traceArgs(const Args& args) {
    TraceArgs out;
    out.paths = args.operands();
    out.format = formatOf(args);
    out.hta = args.has("--hta");
    out.read = trace::ReadOptions::fromEnvironment();
    if (out.hta) {
        out.reduceFlags << "--hta";
    }
    if (args.has("--window")) {
        const QString v = args.value("--window");
        const QStringList parts = v.split(':');
        bool okStart = false, okEnd = false;
        const double start = parts.size() == 2 ? parts[0].toDouble(&okStart) : 0;
        const double end = parts.size() == 2 ? parts[1].toDouble(&okEnd) : 0;
        if (!okStart || !okEnd || !(end > start)) {
            throw trace::TraceError("--window: expected START:END in the trace's "
                                    "microseconds with START < END, got '" +
                                    v.toStdString() + "'");
        }
        out.window = trace::Span{start, end};
        out.reduceFlags << "--window" << v;
    }
    if (args.has(trace::kMaxTraceSizeFlag)) {
        const QString v = args.value(trace::kMaxTraceSizeFlag);
        const auto size = trace::parseByteSize(v.toStdString());
        if (!size) {
            throw trace::TraceError(std::string(trace::kMaxTraceSizeFlag) +
                                    ": expected a size such as 4G, 512M or 1073741824, got '" +
                                    v.toStdString() + "'");
        }
        out.read.maxTextBytes = *size;
        out.reduceFlags << trace::kMaxTraceSizeFlag << v;
    }
    out.slurm = launcherOf(args) == matrix::LauncherKind::Slurm;
    out.partition = args.value("--partition");
    out.reducedDir = args.value("--reduced");
    out.out = args.value("--out");
    if (!out.slurm && (args.has("--partition") || args.has("--reduced"))) {
        throw trace::TraceError(std::string(args.has("--partition") ? "--partition" : "--reduced") +
                                ": only with --launcher slurm");
    }
    return out;
}

int guarded(const Args& args, const std::function<int(const TraceArgs&)>& command) {
    const QString name = QString::fromStdString(args.command().name);
    std::uint64_t limit = trace::kDefaultMaxTraceBytes;
    try {
        const TraceArgs parsed = traceArgs(args);
        limit = parsed.read.maxTextBytes;
        return command(parsed);
    } catch (const trace::TraceError& e) {
        printError(QString::fromStdString(e.what()));
    } catch (const std::bad_alloc&) {
        // The text may grow to the limit, and its events beside it: say which limit let it in.
        printError(QString("%1: out of memory within the trace size limit of %2 (%3 or %4); a "
                           "smaller limit refuses such traces up front")
                       .arg(name, QString::fromStdString(trace::formatByteSize(limit)),
                            trace::kMaxTraceSizeFlag, trace::kMaxTraceSizeEnv));
    } catch (const std::exception& e) {
        printError(name + ": " + QString::fromStdString(e.what()));
    }
    return BadInput;
}

} // namespace commprof::cli
