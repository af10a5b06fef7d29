#include "trace_reader.h"

#include "classification.h"
#include "file_bytes.h"

#include <simdjson.h>

#include <cctype>
#include <charconv>
#include <cmath>
#include <cstring>
#include <map>
#include <utility>

namespace commprof::trace {
namespace {

namespace od = simdjson::ondemand;

// A timestamp beyond this (about 3,000 years in microseconds) is not a real clock reading.
constexpr double kAbsurdUs = 1e17;

struct PendingBegin {
    double ts;
    std::uint32_t name;
    std::uint32_t category;
    bool onStream;
};

class EventCollector {
public:
    explicit EventCollector(Trace& trace) : trace_(trace) {}

    void add(od::object obj) {
        char ph = 0;
        double ts = NAN;
        double dur = NAN;
        std::uint32_t name = 0;
        std::uint32_t cat = 0;
        std::int64_t pid = 0;
        std::int64_t tid = 0;
        bool onStream = false;
        for (auto field : obj) {
            // Raw keys: comparing in place avoids copying every key into simdjson's string
            // buffer, which would grow with the file.
            const od::raw_json_string key = field.key();
            od::value value = field.value();
            switch (*key.raw()) {
            case 'p':
                if (key == "ph") {
                    const char* raw = value.get_raw_json_string().value().raw();
                    ph = *raw == '"' ? 0 : *raw;
                } else if (key == "pid") {
                    pid = readId(value);
                }
                break;
            case 'n':
                if (key == "name") {
                    name = readString(value);
                }
                break;
            case 'c':
                if (key == "cat") {
                    cat = readString(value);
                }
                break;
            case 't':
                if (key == "ts") {
                    ts = readNumber(value);
                } else if (key == "tid") {
                    tid = readId(value);
                }
                break;
            case 'd':
                if (key == "dur") {
                    dur = readNumber(value);
                }
                break;
            case 'a':
                if (key == "args" && value.type() == od::json_type::object) {
                    for (auto arg : value.get_object()) {
                        if (arg.key().value() == "stream") {
                            onStream = true;
                        }
                    }
                }
                break;
            default:
                break;
            }
        }
        if (ph == 'X') {
            addComplete(ts, dur, name, cat, pid, tid, onStream);
        } else if (ph == 'B') {
            if (validTime(ts)) {
                stacks_[{pid, tid}].push_back({ts, name, cat, onStream});
            }
        } else if (ph == 'E') {
            closeBegin(ts, pid, tid);
        }
    }

    void finish() {
        std::size_t unclosed = 0;
        for (auto& [key, stack] : stacks_) {
            unclosed += stack.size();
        }
        if (unclosed) {
            warn(std::to_string(unclosed) + " 'B' events without a matching 'E' were dropped");
        }
        if (unmatchedEnds_) {
            warn(std::to_string(unmatchedEnds_) +
                 " 'E' events without a matching 'B' were ignored");
        }
        if (negative_) {
            warn(std::to_string(negative_) + " events with a negative duration were dropped");
        }
        if (badTime_) {
            warn(std::to_string(badTime_) +
                 " events with a missing, non-numeric or absurd timestamp were dropped");
        }
    }

private:
    static bool validTime(double v) { return std::isfinite(v) && std::fabs(v) < kAbsurdUs; }

    void addComplete(double ts, double dur, std::uint32_t name, std::uint32_t cat, std::int64_t pid,
                     std::int64_t tid, bool onStream) {
        if (!validTime(ts) || !std::isfinite(dur) || dur > kAbsurdUs) {
            ++badTime_;
            return;
        }
        if (dur < 0) {
            ++negative_;
            return;
        }
        TraceEvent e;
        e.startUs = ts;
        e.endUs = ts + dur;
        e.name = name;
        e.category = cat;
        e.pid = pid;
        e.tid = tid;
        e.onStream = onStream;
        trace_.events.push_back(e);
    }

    void closeBegin(double ts, std::int64_t pid, std::int64_t tid) {
        auto it = stacks_.find({pid, tid});
        if (it == stacks_.end() || it->second.empty()) {
            ++unmatchedEnds_;
            return;
        }
        const PendingBegin b = it->second.back();
        it->second.pop_back();
        if (!validTime(ts)) {
            ++badTime_;
            return;
        }
        addComplete(b.ts, ts - b.ts, b.name, b.category, pid, tid, b.onStream);
    }

    std::uint32_t readString(od::value& value) {
        if (value.type() != od::json_type::string) {
            return 0;
        }
        return trace_.strings.intern(value.get_string().value());
    }

    double readNumber(od::value& value) {
        switch (value.type()) {
        case od::json_type::number:
            return value.get_double();
        case od::json_type::string: {
            // Some producers quote large timestamps to dodge float precision loss.
            const std::string_view s = value.get_string();
            double out = NAN;
            const auto res = std::from_chars(s.data(), s.data() + s.size(), out);
            return res.ec == std::errc() ? out : NAN;
        }
        default:
            return NAN;
        }
    }

    std::int64_t readId(od::value& value) {
        if (value.type() == od::json_type::number) {
            std::int64_t out = 0;
            if (value.get_int64().get(out) == simdjson::SUCCESS) {
                return out;
            }
            return static_cast<std::int64_t>(value.get_double().value());
        }
        if (value.type() == od::json_type::string) {
            return -static_cast<std::int64_t>(trace_.strings.intern(value.get_string().value())) -
                   1;
        }
        return 0;
    }

    void warn(std::string text) { trace_.warnings.push_back(std::move(text)); }

    Trace& trace_;
    std::map<std::pair<std::int64_t, std::int64_t>, std::vector<PendingBegin>> stacks_;
    std::size_t unmatchedEnds_ = 0;
    std::size_t negative_ = 0;
    std::size_t badTime_ = 0;
};

void collectArray(od::array events, EventCollector& collector, std::size_t& skippedNonObjects) {
    for (auto element : events) {
        od::value v = element.value();
        if (v.type() != od::json_type::object) {
            ++skippedNonObjects;
            continue;
        }
        collector.add(v.get_object());
    }
}

// One pass of the on-demand parser over buf into trace. Throws simdjson_error for malformed
// JSON and TraceError for JSON that is not a trace.
void parseEvents(Trace& trace, PaddedBuffer& buf, const std::string& source) {
    od::parser parser;
    EventCollector collector(trace);
    std::size_t skippedNonObjects = 0;
    od::document doc;
    bool started = false;
    try {
        doc = parser.iterate(simdjson::padded_string_view(
            buf.data.get(), buf.size, buf.capacity + simdjson::SIMDJSON_PADDING));
        started = true;
        const od::json_type rootType = doc.type();
        if (rootType == od::json_type::array) {
            collectArray(doc.get_array(), collector, skippedNonObjects);
        } else if (rootType == od::json_type::object) {
            bool found = false;
            for (auto field : doc.get_object()) {
                if (field.unescaped_key().value() != "traceEvents") {
                    continue;
                }
                found = true;
                od::value v = field.value();
                if (v.type() != od::json_type::array) {
                    throw TraceError(source + ": field 'traceEvents' is not an array");
                }
                collectArray(v.get_array(), collector, skippedNonObjects);
            }
            if (!found) {
                throw TraceError(source +
                                 ": JSON object has no 'traceEvents' field; not a Chrome trace");
            }
        } else {
            throw TraceError(source + ": top-level JSON is neither an object nor an array");
        }
    } catch (const simdjson::simdjson_error& err) {
        if (trace.events.empty()) {
            throw;
        }
        std::string where;
        const char* loc = nullptr;
        if (started && doc.current_location().get(loc) == simdjson::SUCCESS && loc) {
            where = " at byte " + std::to_string(loc - buf.data.get());
        }
        trace.warnings.push_back("JSON breaks" + where + " (" + err.what() + "); kept the " +
                                 std::to_string(trace.events.size()) + " events read before it");
    }
    collector.finish();
    if (skippedNonObjects) {
        trace.warnings.push_back(std::to_string(skippedNonObjects) +
                                 " entries of traceEvents are not objects and were skipped");
    }
}

// A trace cut off mid-write (a profiler killed while exporting, a partial copy) fails the
// parser's first pass as a whole. Cut it back after one of the last complete objects and close
// the brackets; the events before the cut are kept and a warning says so.
bool parseTruncated(Trace& trace, PaddedBuffer& buf, const std::string& source,
                    std::size_t rootAt) {
    constexpr int kAttempts = 16;
    const std::string closing = buf.data[rootAt] == '{' ? "]}" : "]";
    const std::size_t originalSize = buf.size;
    std::size_t pos = originalSize;
    for (int attempt = 0; attempt < kAttempts; ++attempt) {
        while (pos > rootAt + 1 && buf.data[pos - 1] != '}') {
            --pos;
        }
        if (pos <= rootAt + 1 || pos + closing.size() > buf.capacity) {
            return false;
        }
        const std::size_t cut = pos; // just after a '}'
        --pos;
        std::memcpy(buf.data.get() + cut, closing.data(), closing.size());
        buf.size = cut + closing.size();
        Trace candidate;
        candidate.source = source;
        try {
            parseEvents(candidate, buf, source);
        } catch (const simdjson::simdjson_error&) {
            continue;
        } catch (const TraceError&) {
            continue;
        }
        if (candidate.events.empty()) {
            continue;
        }
        trace.events = std::move(candidate.events);
        trace.strings = std::move(candidate.strings);
        trace.warnings.push_back("input ends early: kept the " +
                                 std::to_string(trace.events.size()) + " events in its first " +
                                 std::to_string(cut) + " of " + std::to_string(originalSize) +
                                 " bytes; the rest was cut off");
        for (auto& w : candidate.warnings) {
            trace.warnings.push_back(std::move(w));
        }
        return true;
    }
    return false;
}

Trace parsePadded(PaddedBuffer& buf, const std::string& source) {
    Trace trace;
    trace.source = source;
    if (!buf.damage.empty()) {
        trace.warnings.push_back(buf.damage);
    }
    std::size_t firstNonSpace = 0;
    while (firstNonSpace < buf.size &&
           std::isspace(static_cast<unsigned char>(buf.data[firstNonSpace]))) {
        ++firstNonSpace;
    }
    if (firstNonSpace == buf.size) {
        throw TraceError(source + ": empty file, expected a Chrome trace (JSON object or array)");
    }
    try {
        parseEvents(trace, buf, source);
    } catch (const simdjson::simdjson_error& err) {
        const auto code = err.error();
        const bool truncated =
            code == simdjson::INCOMPLETE_ARRAY_OR_OBJECT || code == simdjson::UNCLOSED_STRING;
        if (!truncated || !parseTruncated(trace, buf, source, firstNonSpace)) {
            throw TraceError(source + ": not valid JSON: " + err.what() +
                             (buf.damage.empty() ? std::string() : " (" + buf.damage + ")"));
        }
    }
    classify(trace);
    return trace;
}

} // namespace

Trace readTraceFile(const std::string& path) {
    PaddedBuffer buf = readMaybeGzip(path);
    return parsePadded(buf, path);
}

Trace parseTraceText(std::string_view text, const std::string& sourceName) {
    PaddedBuffer buf = copyToPadded(text.data(), text.size());
    return parsePadded(buf, sourceName);
}

} // namespace commprof::trace
