#include "trace_parse.h"

#include "event_collector.h"
#include "json_scan.h"
#include "trace_error.h"

#include <simdjson.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cmath>
#include <cstring>
#include <map>
#include <memory>
#include <optional>
#include <thread>
#include <unordered_map>

namespace commprof::trace {
namespace {

namespace od = simdjson::ondemand;

constexpr std::size_t npos = std::string::npos;
constexpr std::size_t kInitialSlack = std::size_t(64) << 10;
// How far past a chunk boundary to look for the next element before giving the boundary up.
constexpr std::size_t kGuessWindow = std::size_t(1) << 20;

struct Range {
    std::size_t begin = 0;
    std::size_t end = 0;
};

// What the top level of an object document holds around traceEvents.
struct Skeleton {
    bool rootIsArray = false;
    std::size_t arrayStart = npos; // just after the '[' of the events
    std::optional<Range> distributedInfo;
    std::optional<Range> otherData;
    bool malformed = false;
};

// Reads "key": value pairs of the root object from p until traceEvents (stop=true) or the end.
// Returns the position after the last pair read.
std::size_t scanKeys(const TopLevel& top, const char* text, std::size_t size, std::size_t p,
                     Skeleton& sk, bool stopAtEvents) {
    for (;;) {
        p = top.skipSpace(p);
        if (p >= size) {
            sk.malformed = true;
            return p;
        }
        if (text[p] == ',') {
            p = top.skipSpace(p + 1);
        }
        if (p < size && text[p] == '}') {
            return p + 1;
        }
        if (p >= size || text[p] != '"') {
            sk.malformed = true;
            return p;
        }
        const std::size_t keyEnd = top.endOfString(p);
        if (keyEnd == npos) {
            sk.malformed = true;
            return p;
        }
        const std::string_view key(text + p + 1, keyEnd - p - 2);
        p = top.skipSpace(keyEnd);
        if (p >= size || text[p] != ':') {
            sk.malformed = true;
            return p;
        }
        p = top.skipSpace(p + 1);
        if (key == "traceEvents" && stopAtEvents && sk.arrayStart == npos) {
            if (p < size && text[p] == '[') {
                sk.arrayStart = p + 1;
                return p;
            }
            // Not an array: the caller reports it with the parser's words.
            sk.arrayStart = p;
            return p;
        }
        const std::size_t valueEnd = top.endOfValue(p);
        if (valueEnd == npos) {
            sk.malformed = true;
            return p;
        }
        if (key == "distributedInfo") {
            sk.distributedInfo = Range{p, valueEnd};
        } else if (key == "otherData") {
            sk.otherData = Range{p, valueEnd};
        }
        p = valueEnd;
    }
}

// ---- Parsing a stretch of elements.

// How reading a bracketed stretch of traceEvents ended.
struct Stretch {
    enum Kind { Stopped, Closed, Broken } kind = Broken;
    std::size_t next = npos;         // Stopped: the first element at or after stopAt
    std::size_t arrayEnd = npos;     // Closed: the position of traceEvents' ']'
    bool closedByUs = false;         // Closed by the bracket we appended: the text ended first
    std::size_t elementStart = npos; // Broken: where the unreadable element starts
    bool atEnd = false;              // Broken by running into the end of the stretch
    bool refused = false;            // simdjson refused the stretch as a whole (stage 1)
    bool nothingRead = true;         // no element was read (a refused stretch, or one that breaks
                                     // in its first element)
    std::string error;
};

// doc holds '[' + text[from, to) + ']' at `copy`; copy + 1 corresponds to text + from.
// Elements starting at or after stopAt are left unread.
Stretch readStretch(od::parser& parser, char* copy, std::size_t copyLen, std::size_t copyCapacity,
                    std::size_t from, std::size_t stopAt, Fragment& fragment) {
    Stretch out;
    const char* origin = copy + 1;
    EventCollector collector(fragment, origin, from);
    std::size_t elementStart = from;
    bool inElement = false;
    od::document doc;
    bool started = false;
    try {
        doc = parser.iterate(simdjson::padded_string_view(copy, copyLen, copyCapacity));
        started = true;
        od::array arr = doc.get_array();
        for (auto item : arr) {
            od::value v = item.value();
            elementStart = from + std::size_t(v.raw_json_token().data() - origin);
            if (elementStart >= stopAt) {
                out.kind = Stretch::Stopped;
                out.next = elementStart;
                return out;
            }
            inElement = true;
            collector.add(v);
            inElement = false;
            out.nothingRead = false;
        }
    } catch (const simdjson::simdjson_error& err) {
        out.kind = Stretch::Broken;
        out.error = err.what();
        out.elementStart = elementStart;
        if (!inElement && !out.nothingRead) {
            // Broken between elements: the break is where the last whole element ends, so
            // that reading on from there never reads that element twice.
            const TopLevel scan(copy, copyLen);
            const std::size_t end = scan.endOfValue(elementStart - from + 1);
            if (end != TopLevel::npos) {
                out.elementStart = from + end - 1;
            }
        }
        const char* loc = nullptr;
        out.refused = !started;
        out.atEnd = started && (doc.current_location().get(loc) != simdjson::SUCCESS || !loc ||
                                std::size_t(loc - copy) + 1 >= copyLen);
        return out;
    }
    // The array closed: find its ']' (the structural just before where the parser stands).
    out.kind = Stretch::Closed;
    std::size_t close = copyLen - 1;
    const char* loc = nullptr;
    if (doc.current_location().get(loc) == simdjson::SUCCESS && loc && loc > copy &&
        std::size_t(loc - copy) < copyLen) {
        close = std::size_t(loc - copy) - 1;
        while (close > 0 && copy[close] != ']') {
            --close;
        }
    }
    out.closedByUs = close + 1 >= copyLen;
    out.arrayEnd = from + close - 1;
    return out;
}

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
        if (text[p] != '{') {
            continue;
        }
        std::size_t q = p;
        while (q > from && isJsonSpace(text[q - 1])) {
            --q;
        }
        if (q > from && text[q - 1] == ',') {
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
    return "input ends early: kept the " + std::to_string(elements) + " elements in its first " +
           std::to_string(kept) + " of " + std::to_string(size) + " bytes; the rest was cut off";
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
            result.warnings.push_back("JSON breaks at byte " + std::to_string(at) + " (" + s.error +
                                      "); kept the " + std::to_string(elements) +
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

// ---- Joining fragments into a Trace.

class Joiner {
public:
    explicit Joiner(Trace& trace) : trace_(trace) {}

    void reserve(std::size_t events) { trace_.events.reserve(events); }

    void add(Fragment& f) {
        std::vector<std::uint32_t> map(f.strings.size());
        for (std::uint32_t i = 0; i < map.size(); ++i) {
            map[i] = trace_.strings.intern(f.strings.at(i));
        }
        auto id = [&](std::int64_t v) {
            if (isStringIdValue(v) && std::uint64_t(v - kStringIdBase) < map.size()) {
                return stringIdValue(map[std::size_t(v - kStringIdBase)]);
            }
            return v;
        };
        const auto base = std::uint32_t(trace_.events.size());
        for (TraceEvent e : f.events) {
            e.name = map[e.name];
            e.category = map[e.category];
            e.pid = id(e.pid);
            e.tid = id(e.tid);
            trace_.events.push_back(e);
        }
        // Each fragment's events are freed as soon as they are joined, so a large trace never
        // holds two copies of its events.
        std::vector<TraceEvent>().swap(f.events);
        for (CommArgs& c : f.comms) {
            c.event += base;
            trace_.comms.push_back(std::move(c));
        }
        for (StackOp op : f.stackOps) {
            op.event.name = map[op.event.name];
            op.event.category = map[op.event.category];
            op.event.pid = id(op.event.pid);
            op.event.tid = id(op.event.tid);
            stackOps_.push_back(op);
        }
        for (MetaRecord& m : f.meta) {
            m.pid = id(m.pid);
            m.tid = id(m.tid);
            meta_.push_back(std::move(m));
        }
        for (FlowRecord fl : f.flows) {
            fl.pid = id(fl.pid);
            fl.tid = id(fl.tid);
            fl.id = id(fl.id);
            flows_.push_back(fl);
        }
        negative_ += f.negative;
        badTime_ += f.badTime;
        nonObjects_ += f.nonObjects;
        tsFloatOrMissing_ = tsFloatOrMissing_ || f.tsFloatOrMissing;
        tsString_ = tsString_ || f.tsString;
    }

    void finish() {
        pairBeginEnd();
        applyMeta();
        resolveFlows();
        trace_.htaFacts.tsColumnIsFloat = tsFloatOrMissing_ && !tsString_;
        auto warn = [&](std::size_t n, const char* what) {
            if (n) {
                trace_.warnings.push_back(std::to_string(n) + what);
            }
        };
        warn(negative_, " events with a negative duration were dropped");
        warn(badTime_, " events with a missing, non-numeric or absurd timestamp were dropped");
        warn(nonObjects_, " entries of traceEvents are not objects and were skipped");
    }

private:
    void pairBeginEnd() {
        std::map<std::pair<std::int64_t, std::int64_t>, std::vector<TraceEvent>> stacks;
        std::size_t unmatchedEnds = 0;
        for (const StackOp& op : stackOps_) {
            auto& stack = stacks[{op.event.pid, op.event.tid}];
            if (op.begin) {
                if (std::isfinite(op.event.startUs) && std::fabs(op.event.startUs) < 1e17) {
                    stack.push_back(op.event);
                } else {
                    ++badTime_;
                }
                continue;
            }
            if (stack.empty()) {
                ++unmatchedEnds;
                continue;
            }
            TraceEvent e = stack.back();
            stack.pop_back();
            const double end = op.event.startUs;
            if (!std::isfinite(end) || std::fabs(end) >= 1e17) {
                ++badTime_;
            } else if (end < e.startUs) {
                ++negative_;
            } else {
                e.endUs = end;
                trace_.events.push_back(e);
            }
        }
        std::size_t unclosed = 0;
        for (const auto& [key, stack] : stacks) {
            unclosed += stack.size();
        }
        if (unclosed) {
            trace_.warnings.push_back(std::to_string(unclosed) +
                                      " 'B' events without a matching 'E' were dropped");
        }
        if (unmatchedEnds) {
            trace_.warnings.push_back(std::to_string(unmatchedEnds) +
                                      " 'E' events without a matching 'B' were ignored");
        }
    }

    void applyMeta() {
        for (MetaRecord& m : meta_) {
            switch (m.kind) {
            case MetaRecord::ProcessName:
                trace_.processes[m.pid].name = std::move(m.text);
                break;
            case MetaRecord::ProcessLabels:
                trace_.processes[m.pid].labels = std::move(m.text);
                break;
            case MetaRecord::ProcessSortIndex:
                trace_.processes[m.pid].sortIndex = m.number;
                break;
            case MetaRecord::ThreadName:
                trace_.threads[{m.pid, m.tid}].name = std::move(m.text);
                break;
            case MetaRecord::ThreadSortIndex:
                trace_.threads[{m.pid, m.tid}].sortIndex = m.number;
                break;
            }
        }
    }

    // Each flow end binds to the event on its thread that starts at its timestamp (Kineto
    // writes them so), or else to the innermost one that encloses it. Kineto numbers its ac2g
    // flows with the correlation of the two events they join, so those are found by id and
    // only checked against the timestamps; any other flow is looked up by time.
    void resolveFlows() {
        if (flows_.empty()) {
            return;
        }
        // (correlation, on a stream, event), sorted: the first event per key is the one.
        struct Keyed {
            std::int64_t correlation;
            bool onStream;
            std::uint32_t event;
            bool operator<(const Keyed& o) const {
                return std::tie(correlation, onStream, event) <
                       std::tie(o.correlation, o.onStream, o.event);
            }
        };
        std::vector<Keyed> byCorrelation;
        for (std::uint32_t i = 0; i < trace_.events.size(); ++i) {
            const TraceEvent& e = trace_.events[i];
            if (e.correlation >= 0) {
                byCorrelation.push_back({e.correlation, e.onStream, i});
            }
        }
        std::sort(byCorrelation.begin(), byCorrelation.end());
        auto matching = [&](const FlowRecord& f) -> std::optional<std::uint32_t> {
            for (bool onStream : {false, true}) {
                const auto it = std::lower_bound(byCorrelation.begin(), byCorrelation.end(),
                                                 Keyed{f.id, onStream, 0});
                if (it != byCorrelation.end() && it->correlation == f.id &&
                    it->onStream == onStream) {
                    const TraceEvent& e = trace_.events[it->event];
                    if (e.pid == f.pid && e.tid == f.tid && e.startUs == f.ts) {
                        return it->event;
                    }
                }
            }
            return std::nullopt;
        };
        std::vector<FlowEnd> ends;
        ends.reserve(flows_.size());
        std::vector<const FlowRecord*> unresolved;
        for (const FlowRecord& f : flows_) {
            if (const auto hit = matching(f)) {
                ends.push_back({f.id, *hit, f.start});
            } else {
                unresolved.push_back(&f);
            }
        }
        if (!unresolved.empty()) {
            bindByTime(unresolved, ends);
        }
        // Per flow id, its (last) start and (last) finish make the link.
        std::stable_sort(ends.begin(), ends.end(),
                         [](const FlowEnd& x, const FlowEnd& y) { return x.id < y.id; });
        std::vector<FlowLink> links;
        for (std::size_t i = 0; i < ends.size();) {
            std::optional<std::uint32_t> launch, device;
            std::size_t j = i;
            for (; j < ends.size() && ends[j].id == ends[i].id; ++j) {
                (ends[j].start ? launch : device) = ends[j].event;
            }
            if (launch && device && *launch != *device) {
                links.push_back({*launch, *device});
            }
            i = j;
        }
        std::sort(links.begin(), links.end(),
                  [](const FlowLink& x, const FlowLink& y) { return x.launch < y.launch; });
        trace_.flows.insert(trace_.flows.end(), links.begin(), links.end());
    }

    struct FlowEnd {
        std::int64_t id;
        std::uint32_t event;
        bool start;
    };

    void bindByTime(const std::vector<const FlowRecord*>& flows, std::vector<FlowEnd>& ends) {
        std::map<std::pair<std::int64_t, std::int64_t>, std::vector<std::uint32_t>> lanes;
        for (const FlowRecord* f : flows) {
            lanes.try_emplace({f->pid, f->tid});
        }
        for (std::uint32_t i = 0; i < trace_.events.size(); ++i) {
            const TraceEvent& e = trace_.events[i];
            if (auto it = lanes.find({e.pid, e.tid}); it != lanes.end()) {
                it->second.push_back(i);
            }
        }
        for (auto& [key, idx] : lanes) {
            std::stable_sort(idx.begin(), idx.end(), [&](std::uint32_t a, std::uint32_t b) {
                return trace_.events[a].startUs < trace_.events[b].startUs;
            });
        }
        for (const FlowRecord* f : flows) {
            const auto& idx = lanes[{f->pid, f->tid}];
            auto it =
                std::upper_bound(idx.begin(), idx.end(), f->ts, [&](double t, std::uint32_t i) {
                    return t < trace_.events[i].startUs;
                });
            // The latest event starting at or before ts that still covers it: among the few
            // just before (nesting is shallow), prefer the innermost.
            std::optional<std::uint32_t> hit;
            for (int back = 0; back < 16 && it != idx.begin(); ++back) {
                --it;
                const TraceEvent& e = trace_.events[*it];
                if (e.startUs <= f->ts && f->ts <= e.endUs) {
                    hit = *it;
                    break;
                }
            }
            if (hit) {
                ends.push_back({f->id, *hit, f->start});
            }
        }
    }

    Trace& trace_;
    std::vector<StackOp> stackOps_;
    std::vector<MetaRecord> meta_;
    std::vector<FlowRecord> flows_;
    std::size_t negative_ = 0, badTime_ = 0, nonObjects_ = 0;
    bool tsFloatOrMissing_ = false, tsString_ = false;
};

// ---- Top-level fields.

void readTopLevelObjects(const char* text, const Skeleton& sk, Trace& trace) {
    auto parse = [&](const Range& r, auto&& use) {
        const simdjson::padded_string copy(text + r.begin, r.end - r.begin);
        od::parser parser;
        try {
            od::document doc = parser.iterate(copy);
            od::object obj = doc.get_object();
            for (auto field : obj) {
                const std::string_view key = field.unescaped_key();
                od::value v = field.value();
                use(key, v);
            }
        } catch (const simdjson::simdjson_error&) {
            // A malformed optional field does not make the trace unreadable.
        }
    };
    auto integer = [](od::value& v) -> std::optional<std::int64_t> {
        std::int64_t out = 0;
        if (v.type() == od::json_type::number && v.get_int64().get(out) == simdjson::SUCCESS) {
            return out;
        }
        return std::nullopt;
    };
    auto str = [](od::value& v) -> std::string {
        if (v.type() == od::json_type::string) {
            return std::string(std::string_view(v.get_string()));
        }
        return {};
    };
    if (sk.distributedInfo) {
        trace.distributed.present = true;
        parse(*sk.distributedInfo, [&](std::string_view key, od::value& v) {
            if (key == "rank") {
                trace.distributed.rank = integer(v);
            } else if (key == "world_size") {
                trace.distributed.worldSize = integer(v);
            } else if (key == "backend") {
                trace.distributed.backend = str(v);
            } else if (key == "nccl_version") {
                trace.distributed.ncclVersion = str(v);
            }
        });
    }
    if (sk.otherData) {
        parse(*sk.otherData, [&](std::string_view key, od::value& v) {
            if (key == "rank") {
                trace.producerRank = integer(v);
            }
        });
    }
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

struct Plan {
    std::vector<std::size_t> starts; // guessed element starts; starts[0] is checked
};

Plan planChunks(const char* text, std::size_t size, std::size_t first, std::size_t chunkBytes) {
    Plan plan;
    plan.starts.push_back(first);
    if (chunkBytes == 0 || size <= first) {
        return plan;
    }
    for (std::size_t b = first + chunkBytes; b + chunkBytes / 2 < size;) {
        const std::size_t g = guessElementStart(text, size, b);
        if (g == npos) {
            b += chunkBytes;
            continue;
        }
        if (g > plan.starts.back()) {
            plan.starts.push_back(g);
        }
        b = std::max(g, b) + chunkBytes;
    }
    return plan;
}

} // namespace

Trace parseTraceBuffer(PaddedBuffer& buf, const std::string& source, const ParseOptions& options) {
    Trace trace;
    trace.source = source;
    trace.textBytes = buf.size;
    if (!buf.damage.empty()) {
        trace.warnings.push_back(buf.damage);
    }
    if (!buf.note.empty()) {
        trace.warnings.push_back(buf.note);
    }
    const char* text = buf.data.get();
    const std::size_t size = buf.size;
    const TopLevel top(text, size);
    const std::size_t root = top.skipSpace(0);
    if (root >= size) {
        throw TraceError(source + ": empty file, expected a Chrome trace (JSON object or array)");
    }
    Skeleton sk;
    if (text[root] == '[') {
        sk.rootIsArray = true;
        sk.arrayStart = root + 1;
        trace.htaFacts.rootIsArray = true;
    } else if (text[root] == '{') {
        scanKeys(top, text, size, root + 1, sk, true);
        if (sk.arrayStart == npos || text[sk.arrayStart - 1] != '[') {
            refuse(buf, source);
        }
    } else {
        refuse(buf, source);
    }

    const std::size_t first = top.skipSpace(sk.arrayStart);
    // Large texts are read in chunks even on one thread: simdjson's index then stays the size
    // of a chunk, not of the whole text.
    const int threads = std::max(1, options.threads);
    Plan plan;
    if (options.chunkBytes > 0 && (size - first) / 2 >= options.chunkBytes) {
        plan = planChunks(text, size, first, options.chunkBytes);
    } else {
        plan.starts.push_back(first);
    }

    // Parallel pass over every planned chunk but the serial tail's.
    const std::size_t chunks = plan.starts.size();
    std::vector<ChunkResult> results(chunks > 1 ? chunks : 0);
    if (chunks > 1) {
        std::atomic<std::size_t> nextChunk{0};
        auto work = [&] {
            ChunkReader reader(text, size);
            for (std::size_t i = nextChunk++; i < chunks; i = nextChunk++) {
                const std::size_t stopAt = i + 1 < chunks ? plan.starts[i + 1] : size;
                reader.read(plan.starts[i], stopAt, results[i]);
            }
        };
        std::vector<std::thread> pool;
        const int extra = std::min<int>(threads, int(chunks)) - 1;
        pool.reserve(std::size_t(std::max(extra, 0)));
        for (int t = 0; t < extra; ++t) {
            pool.emplace_back(work);
        }
        work();
        for (auto& t : pool) {
            t.join();
        }
    }

    Joiner joiner(trace);
    std::size_t parallelEvents = 0;
    for (const auto& r : results) {
        parallelEvents += r.fragment.events.size();
    }
    joiner.reserve(parallelEvents);
    std::size_t arrayEnd = npos;
    std::size_t serialFrom = first;
    bool needSerial = true;
    // The chunks whose starts are checked: chunk i's start is where chunk i-1 stopped.
    std::size_t checked = results.empty() ? 0 : 1;
    while (checked < results.size() && results[checked - 1].end.kind == Stretch::Stopped &&
           results[checked - 1].end.next == plan.starts[checked]) {
        ++checked;
    }
    // Damage anywhere: one pass over the whole text decides what is kept and what the warnings
    // say (a text simdjson refuses as a whole is cut back from its end), so chunks never
    // change the answer for a damaged file, only the time a sound one takes.
    const bool damaged =
        std::any_of(results.begin(), results.begin() + std::ptrdiff_t(checked),
                    [](const ChunkResult& r) { return r.end.kind == Stretch::Broken; });
    std::size_t joinedElements = 0;
    for (std::size_t i = 0; i < checked && !damaged; ++i) {
        ChunkResult& r = results[i];
        joinedElements += r.fragment.elements;
        joiner.add(r.fragment);
        if (r.end.kind == Stretch::Stopped) {
            serialFrom = r.end.next; // read on sequentially from the last checked position
            continue;
        }
        if (!r.end.closedByUs) {
            arrayEnd = r.end.arrayEnd;
            needSerial = false;
        } else {
            serialFrom = size; // the text ended first: the pass over nothing says so
        }
        break;
    }
    if (needSerial) {
        SerialResult s = readSerial(buf, serialFrom, joinedElements, source);
        joiner.add(s.fragment);
        arrayEnd = s.arrayEnd;
        for (auto& w : s.warnings) {
            trace.warnings.push_back(std::move(w));
        }
    }
    if (!sk.rootIsArray && arrayEnd != npos && arrayEnd + 1 < size) {
        scanKeys(top, text, size, arrayEnd + 1, sk, false);
    }
    readTopLevelObjects(text, sk, trace);
    joiner.finish();
    return trace;
}

} // namespace commprof::trace
