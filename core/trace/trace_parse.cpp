// SPDX-License-Identifier: GPL-3.0-or-later
#include "trace_parse.h"

#include "event_collector.h"
#include "fragment_join.h"
#include "json_scan.h"
#include "parallel_for.h"
#include "trace_damage.h"
#include "trace_error.h"
#include "trace_skeleton.h"

#include <simdjson.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <memory>
#include <optional>
#include <vector>

namespace commprof::trace {
namespace {

namespace od = simdjson::ondemand;

constexpr std::size_t npos = std::string::npos;
constexpr std::size_t kInitialSlack = std::size_t(64) << 10;
// How far past a chunk boundary to look for the next element before giving the boundary up.
constexpr std::size_t kGuessWindow = std::size_t(1) << 20;

struct ChunkResult {
    Fragment fragment;
    Stretch end;
};

// Reads elements of traceEvents from `start` (an element start) out of a private copy of
// text[start, cut), where cut lies past `stopAt` after a newline, so a chunk never shares
// bytes with another thread's copy.
class ChunkReader {
public:
    ChunkReader(const char* text, std::size_t size) : text_(text), size_(size) {}

    void read(std::size_t start, std::size_t stopAt, ChunkResult& out) {
        std::size_t slack = kInitialSlack;
        std::size_t from = start;
        for (;;) {
            const std::size_t cut = cutAfter(stopAt, slack);
            copy(from, cut);
            out.end = readStretch(parser_, buf_.get(), len_, bufSize_, from, stopAt, out.fragment);
            // The element that straddles the chunk's end did not fit in the slack: take more.
            if (out.end.kind == Stretch::Broken && out.end.atEnd && cut < size_ &&
                out.end.elementStart < stopAt) {
                from = out.end.elementStart;
                slack *= 4;
                continue;
            }
            return;
        }
    }

private:
    // A cut after a newline at or beyond stopAt + slack (or the end of the text).
    std::size_t cutAfter(std::size_t stopAt, std::size_t slack) const {
        if (stopAt >= size_ || size_ - stopAt <= slack) {
            return size_;
        }
        const void* nl = std::memchr(text_ + stopAt + slack, '\n', size_ - stopAt - slack);
        return nl ? std::size_t(static_cast<const char*>(nl) - text_) + 1 : size_;
    }

    void copy(std::size_t from, std::size_t to) {
        const std::size_t n = to - from;
        if (bufSize_ < n + 2 + simdjson::SIMDJSON_PADDING) {
            bufSize_ = n + 2 + simdjson::SIMDJSON_PADDING + n / 4;
            buf_.reset(new char[bufSize_]); // not zero-filled: every byte used is written
        }
        buf_[0] = '[';
        std::memcpy(buf_.get() + 1, text_ + from, n);
        buf_[n + 1] = ']';
        std::memset(buf_.get() + n + 2, 0, simdjson::SIMDJSON_PADDING);
        len_ = n + 2;
    }

    const char* text_;
    std::size_t size_;
    std::unique_ptr<char[]> buf_;
    std::size_t bufSize_ = 0;
    std::size_t len_ = 0;
    od::parser parser_;
};

// The first element start after `from`: past a newline, a '{' whose previous non-space
// character is ','. A guess, checked by the previous chunk.
std::size_t guessElementStart(const char* text, std::size_t size, std::size_t from) {
    const std::size_t limit = std::min(size, from + kGuessWindow);
    const void* nl = std::memchr(text + from, '\n', limit - from);
    if (!nl) {
        return npos;
    }
    for (std::size_t p = std::size_t(static_cast<const char*>(nl) - text) + 1; p < limit; ++p) {
        if (text[p] == '{' && commaBefore(text, from, p) != npos) {
            return p;
        }
    }
    return npos;
}

struct SerialResult {
    Fragment fragment;
    std::size_t arrayEnd = npos;
    std::vector<std::string> warnings;
};

std::string endsEarly(std::size_t elements, std::size_t kept, std::size_t size) {
    return "input " + std::string(kEndsEarly) + ": kept the " + std::to_string(elements) +
           " elements in its first " + std::to_string(kept) + " of " + std::to_string(size) +
           " bytes; the rest was cut off";
}

// One sequential pass from `start` to the end, in place. A text that ends inside an element
// keeps the elements before it; one that simdjson refuses as a whole (a string never closed)
// is cut back after complete objects until it parses.
SerialResult readSerial(PaddedBuffer& buf, std::size_t start, std::size_t elementsBefore,
                        const std::string& source) {
    char* text = buf.data.get();
    const std::size_t size = buf.size;
    // The byte before an element start is a separator or the array's '[', and the byte after
    // the text is padding: bracket the stretch in place so simdjson sees one array.
    const std::size_t docBegin = start - 1;
    const char savedBefore = text[docBegin];
    text[docBegin] = '[';
    od::parser parser;
    SerialResult result;
    std::string firstError;
    std::size_t end = size;
    constexpr int kAttempts = 16;
    for (int attempt = 0; attempt < kAttempts; ++attempt) {
        Fragment fragment;
        const char savedEnd = text[end];
        text[end] = ']';
        const Stretch s = readStretch(parser, text + docBegin, end + 1 - docBegin,
                                      buf.capacity + simdjson::SIMDJSON_PADDING - docBegin, start,
                                      npos, fragment);
        text[end] = savedEnd;
        const std::size_t elements = elementsBefore + fragment.elements;
        const bool readSomething = elements > 0;
        if (s.kind == Stretch::Closed) {
            result.fragment = std::move(fragment);
            if (s.closedByUs || end != size) {
                result.warnings.push_back(endsEarly(elements, end, size));
            } else {
                result.arrayEnd = s.arrayEnd;
            }
            break;
        }
        if (firstError.empty()) {
            firstError = s.error;
        }
        if (!s.atEnd && !s.refused) {
            if (!readSomething) {
                break; // broken before anything could be read: not valid JSON
            }
            result.fragment = std::move(fragment);
            // Nothing read here: the break is where this pass began (a chunk handed it over).
            const std::size_t at = s.nothingRead ? start : s.elementStart;
            result.warnings.push_back(std::string(kJsonBreaks) + " " + std::to_string(at) + " (" +
                                      s.error + "); kept the " + std::to_string(elements) +
                                      " elements read before it");
            break;
        }
        if (!s.nothingRead) {
            result.fragment = std::move(fragment);
            result.warnings.push_back(endsEarly(elements, s.elementStart, size));
            break;
        }
        // Nothing read in this stretch: cut back after the last '}' before the end, if any.
        std::size_t p = end - 1;
        while (p > start && text[p - 1] != '}') {
            --p;
        }
        if (p <= start) {
            if (elementsBefore > 0) {
                result.warnings.push_back(endsEarly(elementsBefore, start, size));
                firstError.clear();
            }
            break;
        }
        end = p;
    }
    text[docBegin] = savedBefore;
    if (result.warnings.empty() && result.arrayEnd == npos && elementsBefore > 0) {
        result.warnings.push_back(endsEarly(elementsBefore, start, size)); // attempts ran out
    }
    const bool anything = elementsBefore > 0 || result.fragment.elements > 0 ||
                          result.arrayEnd != npos || !result.warnings.empty();
    if (!anything && !firstError.empty()) {
        throw TraceError(source + ": not valid JSON: " + firstError +
                         (buf.damage.empty() ? std::string() : " (" + buf.damage + ")"));
    }
    return result;
}

// Why a document that is not a Chrome trace is refused, in the parser's words.
[[noreturn]] void refuse(PaddedBuffer& buf, const std::string& source) {
    od::parser parser;
    try {
        od::document doc = parser.iterate(simdjson::padded_string_view(
            buf.data.get(), buf.size, buf.capacity + simdjson::SIMDJSON_PADDING));
        const od::json_type type = doc.type();
        if (type == od::json_type::object) {
            for (auto field : doc.get_object()) {
                if (field.unescaped_key().value() == "traceEvents") {
                    throw TraceError(source + ": field 'traceEvents' is not an array");
                }
                (void)field.value();
            }
            throw NotATraceError(source +
                                 ": JSON object has no 'traceEvents' field; not a Chrome trace");
        }
        if (type != od::json_type::array) {
            throw NotATraceError(source + ": top-level JSON is neither an object nor an array");
        }
    } catch (const simdjson::simdjson_error& err) {
        throw TraceError(source + ": not valid JSON: " + err.what() +
                         (buf.damage.empty() ? std::string() : " (" + buf.damage + ")"));
    }
    throw TraceError(source + ": not valid JSON");
}

// The chunks' guessed element starts; the first, `first`, is checked.
std::vector<std::size_t> planChunks(const char* text, std::size_t size, std::size_t first,
                                    std::size_t chunkBytes) {
    std::vector<std::size_t> starts{first};
    if (chunkBytes == 0 || size <= first) {
        return starts;
    }
    for (std::size_t b = first + chunkBytes; b + chunkBytes / 2 < size;) {
        const std::size_t g = guessElementStart(text, size, b);
        if (g == npos) {
            b += chunkBytes;
            continue;
        }
        if (g > starts.back()) {
            starts.push_back(g);
        }
        b = std::max(g, b) + chunkBytes;
    }
    return starts;
}

// The parallel pass over every planned chunk: each ends where the next is planned to start
// (the last at the end of the text), and whether that start was a real element is checked
// when they are joined. Empty for a plan of one chunk (the serial pass reads it).
std::vector<ChunkResult> readChunks(const char* text, std::size_t size,
                                    const std::vector<std::size_t>& starts, int threads,
                                    const CancelCheck& cancelled) {
    const std::size_t chunks = starts.size();
    std::vector<ChunkResult> results(chunks > 1 ? chunks : 0);
    if (chunks <= 1) {
        return results;
    }
    std::atomic<bool> stopped{false};
    std::atomic<std::size_t> parsed{0};
    // One reader per thread, its copy buffer and simdjson parser reused from chunk to chunk.
    std::vector<std::optional<ChunkReader>> readers(
        std::min<std::size_t>(std::size_t(threads), chunks));
    parallelFor(chunks, threads, [&](std::size_t i, std::size_t worker) {
        if (stopped.load(std::memory_order_relaxed) || isCancelled(cancelled)) {
            stopped = true;
            return;
        }
        std::optional<ChunkReader>& reader = readers[worker];
        if (!reader) {
            reader.emplace(text, size);
        }
        const std::size_t stopAt = i + 1 < chunks ? starts[i + 1] : size;
        reader->read(starts[i], stopAt, results[i]);
        ++parsed;
    });
    readers.clear(); // their buffers are not needed for the joins
    if (stopped) {
        throw ReadCancelled(size, parsed);
    }
    return results;
}

// Where the chunks' join left the text: read to its array's end, or to be read on serially.
struct Joined {
    std::size_t arrayEnd = npos;
    std::size_t serialFrom = 0;
    bool needSerial = true;
    std::size_t checked = 0; // chunks whose starts proved to be element starts
    std::size_t elements = 0;
};

// Joins, in file order, the chunks whose starts are checked: chunk i's start is where chunk
// i-1 stopped. None where any of them is damaged.
Joined joinChunks(std::vector<ChunkResult>& results, const std::vector<std::size_t>& starts,
                  std::size_t first, std::size_t size, FragmentJoiner& joiner) {
    Joined j;
    j.serialFrom = first;
    std::size_t parallelEvents = 0;
    for (const auto& r : results) {
        parallelEvents += r.fragment.events.size();
    }
    joiner.reserve(parallelEvents);
    j.checked = results.empty() ? 0 : 1;
    while (j.checked < results.size() && results[j.checked - 1].end.kind == Stretch::Stopped &&
           results[j.checked - 1].end.next == starts[j.checked]) {
        ++j.checked;
    }
    // Damage anywhere: one pass over the whole text decides what is kept and what the warnings
    // say (a text simdjson refuses as a whole is cut back from its end), so chunks never
    // change the answer for a damaged file, only the time a sound one takes.
    const bool damaged =
        std::any_of(results.begin(), results.begin() + std::ptrdiff_t(j.checked),
                    [](const ChunkResult& r) { return r.end.kind == Stretch::Broken; });
    for (std::size_t i = 0; i < j.checked && !damaged; ++i) {
        ChunkResult& r = results[i];
        j.elements += r.fragment.elements;
        joiner.add(r.fragment);
        if (r.end.kind == Stretch::Stopped) {
            j.serialFrom = r.end.next; // read on sequentially from the last checked position
            continue;
        }
        if (!r.end.closedByUs) {
            j.arrayEnd = r.end.arrayEnd;
            j.needSerial = false;
        } else {
            j.serialFrom = size; // the text ended first: the pass over nothing says so
        }
        break;
    }
    return j;
}

} // namespace

Trace parseTraceBuffer(PaddedBuffer& buf, const std::string& source, const ParseOptions& options,
                       const CancelCheck& cancelled) {
    Trace trace;
    trace.source = source;
    trace.textBytes = buf.size;
    // The damage the buffer's reader already found.
    for (const std::string* w : {&buf.damage, &buf.note}) {
        if (!w->empty()) {
            trace.warnings.push_back(*w);
        }
    }
    const char* text = buf.data.get();
    const std::size_t size = buf.size;
    const TopLevel top(text, size);
    const std::size_t root = top.skipSpace(0);
    if (root >= size) {
        throw TraceError(source + ": empty file, expected a Chrome trace (JSON object or array)");
    }
    Skeleton sk;
    if (!findEvents(top, text, size, sk)) {
        refuse(buf, source);
    }
    trace.htaFacts.rootIsArray = sk.rootIsArray;

    const std::size_t first = top.skipSpace(sk.arrayStart);
    // Large texts are read in chunks even on one thread: simdjson's index then stays the size
    // of a chunk, not of the whole text.
    const int threads = std::max(1, options.threads);
    const std::vector<std::size_t> starts = (size - first) / 2 >= options.chunkBytes
                                                ? planChunks(text, size, first, options.chunkBytes)
                                                : std::vector<std::size_t>{first};
    std::vector<ChunkResult> results = readChunks(text, size, starts, threads, cancelled);

    FragmentJoiner joiner(trace);
    const Joined j = joinChunks(results, starts, first, size, joiner);
    std::size_t arrayEnd = j.arrayEnd;
    if (j.needSerial) {
        if (isCancelled(cancelled)) {
            throw ReadCancelled(size, j.checked);
        }
        SerialResult s = readSerial(buf, j.serialFrom, j.elements, source);
        joiner.add(s.fragment);
        arrayEnd = s.arrayEnd;
        std::ranges::move(s.warnings, std::back_inserter(trace.warnings));
    }
    if (!sk.rootIsArray && arrayEnd != npos && arrayEnd + 1 < size) {
        scanKeys(top, text, size, arrayEnd + 1, sk, false);
    }
    readTopLevelObjects(sk, trace);
    joiner.finish();
    return trace;
}

} // namespace commprof::trace
