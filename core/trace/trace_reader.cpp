// SPDX-License-Identifier: GPL-3.0-or-later
#include "trace_reader.h"

#include "classification.h"
#include "collectives.h"
#include "trace_stream.h"

#include <algorithm>
#include <thread>

namespace commprof::trace {

void finishTrace(Trace& trace) {
    const NameFacts names(trace);
    markDeviceWork(trace);
    const LaunchIndex launches(trace);
    classify(trace, names, launches);
    trace.collectives = collectiveRecords(trace, names, launches);
}

Trace readTraceFile(const std::string& path, const ReadOptions& options) {
    if (isCancelled(options.cancelled)) {
        throw ReadCancelled(0, 0);
    }
    const int threads = options.threads > 0 ? options.threads
                                            : std::max(1, int(std::thread::hardware_concurrency()));
    StreamOptions stream;
    stream.threads = threads;
    stream.maxTextBytes = options.maxTextBytes;
    std::optional<Trace> trace = readTraceStreamed(path, stream, options.cancelled);
    if (!trace) {
        // Damaged, cut, concatenated or otherwise unusual: read whole, which says what is wrong.
        PaddedBuffer buf = readTraceText(path, options);
        ParseOptions parse;
        parse.threads = threads;
        trace = parseTraceBuffer(buf, path, parse, options.cancelled);
    } // the text is gone before the derived data is built
    if (isCancelled(options.cancelled)) {
        throw ReadCancelled(trace->textBytes, 0); // parsed whole: only the figures are spared
    }
    finishTrace(*trace);
    return std::move(*trace);
}

Trace parseTraceText(std::string_view text, const std::string& sourceName,
                     const ParseOptions& options) {
    PaddedBuffer buf = copyToPadded(text.data(), text.size());
    Trace trace = parseTraceBuffer(buf, sourceName, options);
    finishTrace(trace);
    return trace;
}

} // namespace commprof::trace
