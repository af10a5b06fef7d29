// SPDX-License-Identifier: GPL-3.0-or-later
#include "event_collector.h"

#include "json_scan.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>

namespace commprof::trace {

class EventCollector {
public:
    // base: where this collector's text starts in the whole decompressed text, so event
    // offsets are file-wide. origin: the start of the buffer the parser reads.
    EventCollector(Fragment& out, const char* origin, std::uint64_t base)
        : out_(out), origin_(origin), base_(base) {}

    // One element of traceEvents. Throws simdjson_error on malformed JSON; then nothing of
    // this element was added.
    void add(simdjson::ondemand::value element);

private:
    struct Element; // one element's fields, read before its ph says what it is
    // The phases of add(): its fields, then what its ph makes of them.
    void readFields(simdjson::ondemand::object obj, Element& el);
    void readTs(simdjson::ondemand::value& value, Element& el);
    void keepComplete(Element& el); // ph "X"
    void keepMeta(Element& el);     // ph "M"
    void readArgs(simdjson::ondemand::object args, TraceEvent& e, MetaRecord& meta, bool& hasMeta);
    // The last id read from one field, by its JSON token: most events repeat their
    // neighbours' pid and tid, and the same bytes always read as the same id.
    struct LastId {
        std::string_view token;
        std::int64_t id = 0;
    };
    std::int64_t readId(simdjson::ondemand::value& value, LastId& last);
    std::int64_t readId(simdjson::ondemand::value& value);

    Fragment& out_;
    const char* origin_;
    std::uint64_t base_;
    CommArgs comm_; // scratch for the element being read
    // The element is an op whose input shapes are kept (ShapeArgs), and what its args said.
    bool wantShape_ = false;
    std::optional<ShapeArgs> shape_;
    LastId lastPid_, lastTid_;
};

namespace {

namespace od = simdjson::ondemand;

// A timestamp beyond this (about 3,000 years in microseconds) is not a real clock reading.
constexpr double kAbsurdUs = 1e17;

// The field itself, not copies of its key and value: a copied value is stored part by part and
// loaded back whole, which the processor cannot forward from the stores; those stalls were
// half of the walk's time (docs/performance.md).
od::field&& unwrap(simdjson::simdjson_result<od::field>&& result) {
    if (const simdjson::error_code error = result.error()) {
        throw simdjson::simdjson_error(error);
    }
    return std::move(result).value_unsafe();
}

// A string value as a view into the JSON text when it has no escapes (no copy), else
// unescaped into simdjson's buffer.
std::string_view stringView(od::value& value) {
    std::string_view tok = value.raw_json_token();
    while (!tok.empty() && tok.back() != '"') {
        tok.remove_suffix(1); // raw tokens may carry the whitespace that follows them
    }
    if (tok.size() >= 2 && tok.substr(1, tok.size() - 2).find('\\') == std::string_view::npos) {
        return tok.substr(1, tok.size() - 2);
    }
    return value.get_string();
}

bool validTime(double v) {
    return std::isfinite(v) && std::fabs(v) < kAbsurdUs;
}

std::optional<double> parseNumberText(std::string_view s) {
    const std::size_t first = std::min(s.find_first_not_of(' '), s.size());
    s = s.substr(first, s.find_last_not_of(' ') + 1 - first); // all blank: empty, at the end
    double out = NAN;
    const auto res = std::from_chars(s.data(), s.data() + s.size(), out);
    if (s.empty() || res.ec != std::errc() || res.ptr != s.data() + s.size()) {
        return std::nullopt;
    }
    return out;
}

// A number, or a string that holds one (as pandas' to_numeric reads it); nullopt otherwise.
std::optional<double> numberOf(od::value& value) {
    switch (value.type()) {
    case od::json_type::number:
        return double(value.get_double());
    case od::json_type::string:
        return parseNumberText(stringView(value));
    default:
        return std::nullopt;
    }
}

// A '.', 'e' or 'E' before the number's end: the token may run on past it.
bool isFloatLiteral(std::string_view token) {
    const std::size_t at = token.find_first_of(".eE,} \n");
    return at < token.size() && (token[at] == '.' || token[at] == 'e' || token[at] == 'E');
}

std::optional<std::int64_t> integerOf(od::value& value) {
    std::int64_t out = 0;
    if (value.get_int64().get(out) == simdjson::SUCCESS) {
        return out;
    }
    const auto d = numberOf(value);
    if (!d || !std::isfinite(*d) || std::fabs(*d) > 9.0e18) {
        return std::nullopt;
    }
    return std::int64_t(*d);
}

// HTA's stream normalisation: to_numeric(errors="coerce"), NaN -> -1, then astype(int).
std::int32_t htaStream(od::value& value) {
    const auto d = numberOf(value);
    if (!d || !std::isfinite(*d)) {
        return -1;
    }
    const double t = std::trunc(*d);
    constexpr double lo = std::numeric_limits<std::int32_t>::min();
    constexpr double hi = std::numeric_limits<std::int32_t>::max();
    return std::int32_t(std::clamp(t, lo, hi));
}

std::string stringOf(od::value& value) {
    if (value.type() == od::json_type::string) {
        return std::string(stringView(value));
    }
    // Some producers write numbers where others write strings ("Process Group Name": 0).
    const std::string_view raw = value.raw_json_token();
    return std::string(raw.substr(0, raw.find_last_not_of(" \n\r\t") + 1)); // npos + 1 is 0
}

// The first entry of an array of strings ("Input type": ["TensorList", "", "Scalar"]), or empty.
std::string firstString(od::value& value) {
    if (value.type() != od::json_type::array) {
        return {};
    }
    for (auto entry : value.get_array()) {
        od::value v = entry.value();
        return v.type() == od::json_type::string ? std::string(stringView(v)) : std::string();
    }
    return {};
}

// The element count of the first input in "Input Dims": [[d0, d1, ...], ...] for a tensor (their
// product), [[[d0, ...], [d0, ...]], ...] for a TensorList (its tensors' counts summed); nullopt
// for anything else or a count beyond 2^53.
std::optional<std::int64_t> firstInputElements(od::value& value) {
    if (value.type() != od::json_type::array) {
        return std::nullopt;
    }
    const auto product = [](od::array dims) -> std::optional<double> {
        double n = 1;
        for (auto d : dims) {
            std::int64_t k = 0;
            if (d.value().get_int64().get(k) != simdjson::SUCCESS || k < 0) {
                return std::nullopt;
            }
            n *= double(k);
        }
        return n;
    };
    for (auto first : value.get_array()) {
        od::value input = first.value();
        if (input.type() != od::json_type::array) {
            return std::nullopt;
        }
        // One pass: numbers are a tensor's dims, arrays a TensorList's tensors.
        double dims = 1, tensors = 0;
        bool list = false, scalar = false;
        for (auto entry : input.get_array()) {
            od::value v = entry.value();
            std::int64_t k = 0;
            if (v.type() == od::json_type::array) {
                list = true;
                const auto n = product(v.get_array());
                if (!n) {
                    return std::nullopt;
                }
                tensors += *n;
            } else if (v.get_int64().get(k) == simdjson::SUCCESS && k >= 0) {
                scalar = true;
                dims *= double(k);
            } else {
                return std::nullopt;
            }
        }
        if (list && scalar) {
            return std::nullopt;
        }
        const double total = list ? tensors : dims;
        if (total > 9.0e15) {
            return std::nullopt;
        }
        return std::int64_t(total);
    }
    return std::nullopt;
}

} // namespace

std::int64_t EventCollector::readId(od::value& value, LastId& last) {
    const std::string_view token = value.raw_json_token();
    if (token != last.token) {
        last = {token, readId(value)};
    }
    return last.id;
}

std::int64_t EventCollector::readId(od::value& value) {
    if (value.type() == od::json_type::string) {
        return stringIdValue(out_.strings.intern(stringView(value)));
    }
    return integerOf(value).value_or(0);
}

void EventCollector::readArgs(od::object args, TraceEvent& e, MetaRecord& meta, bool& hasMeta) {
    bool comm = false;
    for (auto result : args) {
        od::field&& field = unwrap(std::move(result));
        const od::raw_json_string key = field.key();
        od::value& value = field.value();
        switch (*key.raw()) {
        case 's':
            if (key == "stream") {
                e.onStream = true;
                e.stream = htaStream(value);
            } else if (key == "sort_index") { // ph "M"; ph may come after args
                if (const auto n = integerOf(value)) {
                    meta.number = *n;
                    hasMeta = true;
                }
            }
            break;
        case 'c':
            if (key == "correlation") {
                e.correlation = integerOf(value).value_or(-1);
            }
            break;
        case 'n':
        case 'l':
            if (key == "name" || key == "labels") {
                meta.text = stringOf(value);
                hasMeta = true;
            }
            break;
        case 'C':
            if (key == "Collective name") {
                comm_.collective = stringOf(value);
                comm = true;
            }
            break;
        case 'd':
            if (key == "dtype") {
                comm_.dtype = stringOf(value);
            }
            break;
        case 'I':
            if (key == "In msg nelems") {
                comm_.inNelems = integerOf(value);
            } else if (wantShape_ && key == "Input Dims") {
                if (const auto n = firstInputElements(value)) {
                    (shape_ ? *shape_ : shape_.emplace()).elements = *n;
                }
            } else if (wantShape_ && key == "Input type") {
                (shape_ ? *shape_ : shape_.emplace()).type = firstString(value);
            }
            break;
        case 'O':
            if (key == "Out msg nelems") {
                comm_.outNelems = integerOf(value);
            }
            break;
        case 'G':
            if (key == "Group size") {
                comm_.groupSize = integerOf(value);
            }
            break;
        case 'S':
            if (key == "Seq") {
                comm_.seq = integerOf(value);
            }
            break;
        case 'P':
            if (key == "Process Group Name") {
                comm_.processGroup = stringOf(value);
            } else if (key == "Process Group Description") {
                comm_.processGroupDesc = stringOf(value);
            }
            break;
        default:
            break;
        }
    }
    if (comm) {
        e.flags |= kHasCommArgs;
    }
}

// What one element's fields said. Its ph, which may come after any of them, decides once the
// whole object is read what the element is.
struct EventCollector::Element {
    TraceEvent e;
    MetaRecord meta;
    bool hasMeta = false;
    char ph = 0;
    double ts = NAN;
    double dur = NAN;
    bool hasTs = false, tsFloat = false, tsString = false, hasDur = false, hasCat = false;
    bool traceCat = false;
    std::int64_t flowId = 0;
    bool hasFlowId = false;
    std::string_view metaName;
    bool argsSeen = false;
};

void EventCollector::add(od::value element) {
    if (element.type() != od::json_type::object) {
        ++out_.nonObjects;
        return;
    }
    Element el;
    el.e.offset = base_ + std::uint64_t(element.raw_json_token().data() - origin_);
    comm_ = CommArgs{};
    wantShape_ = false;
    shape_.reset();
    readFields(element.get_object(), el);
    // Everything below runs only once the whole object was read without error.
    ++out_.elements;
    out_.tsFloatOrMissing = out_.tsFloatOrMissing || !el.hasTs || el.tsFloat;
    out_.tsString = out_.tsString || el.tsString;
    switch (el.ph) {
    case 'X':
        keepComplete(el);
        return;
    case 'B':
    case 'E':
        el.e.startUs = el.ts;
        el.e.flags &= std::uint8_t(~kHasCommArgs);
        out_.stackOps.push_back({el.ph == 'B', el.e});
        return;
    case 'M':
        keepMeta(el);
        return;
    case 's':
    case 'f':
    case 't':
        if (el.hasFlowId && validTime(el.ts) && out_.strings.at(el.e.category) == "ac2g") {
            out_.flows.push_back({el.flowId, el.e.pid, el.e.tid, el.ts, el.ph == 's'});
        }
        return;
    default:
        return;
    }
}

void EventCollector::readFields(od::object obj, Element& el) {
    TraceEvent& e = el.e;
    for (auto result : obj) {
        od::field&& field = unwrap(std::move(result));
        // Raw keys: comparing in place avoids copying every key into simdjson's string buffer.
        const od::raw_json_string key = field.key();
        od::value& value = field.value();
        switch (*key.raw()) {
        case 'p':
            if (key == "ph") {
                const char* raw = value.get_raw_json_string().value().raw();
                el.ph = *raw == '"' ? 0 : *raw;
            } else if (key == "pid") {
                e.pid = readId(value, lastPid_);
            }
            break;
        case 'n':
            if (key == "name" && value.type() == od::json_type::string) {
                el.metaName = stringView(value);
                wantShape_ = el.metaName == "c10d::allreduce_" ||
                             el.metaName == "torch::autograd::AccumulateGrad";
                e.name = out_.strings.intern(el.metaName);
            }
            break;
        case 'c':
            if (key == "cat") {
                if (value.type() == od::json_type::string) {
                    const std::string_view c = stringView(value);
                    el.traceCat = c == "Trace";
                    e.category = out_.strings.intern(c);
                    el.hasCat = true;
                } else {
                    el.hasCat = !value.is_null();
                }
            }
            break;
        case 't':
            if (key == "ts") {
                readTs(value, el);
            } else if (key == "tid") {
                e.tid = readId(value, lastTid_);
            }
            break;
        case 'd':
            if (key == "dur") {
                if (value.get_double().get(el.dur) == simdjson::SUCCESS) {
                    el.hasDur = true;
                } else {
                    el.hasDur = !value.is_null();
                    el.dur = numberOf(value).value_or(NAN);
                }
            }
            break;
        case 'a':
            if (key == "args" && value.type() == od::json_type::object) {
                el.argsSeen = true;
                readArgs(value.get_object(), e, el.meta, el.hasMeta);
            }
            break;
        case 'i':
            if (key == "id") {
                el.flowId = readId(value);
                el.hasFlowId = true;
            }
            break;
        default:
            break;
        }
    }
}

void EventCollector::readTs(od::value& value, Element& el) {
    el.hasTs = true;
    if (value.get_double().get(el.ts) == simdjson::SUCCESS) {
        // Written with a fraction or an exponent? Only asked until one is found.
        el.tsFloat = !out_.tsFloatOrMissing && isFloatLiteral(value.raw_json_token());
    } else if (value.type() == od::json_type::string) {
        el.tsString = true; // some producers quote large timestamps
        el.ts = numberOf(value).value_or(NAN);
    } else {
        el.tsFloat = value.is_null();
        el.ts = NAN;
    }
}

void EventCollector::keepComplete(Element& el) {
    TraceEvent& e = el.e;
    if (!validTime(el.ts) || !std::isfinite(el.dur) || el.dur > kAbsurdUs) {
        ++out_.badTime;
        return;
    }
    if (el.dur < 0) {
        ++out_.negative;
        return;
    }
    e.startUs = el.ts;
    e.endUs = el.ts + el.dur;
    if (el.hasDur && el.hasCat && !el.traceCat) {
        e.flags |= kHtaRow;
    }
    if (e.flags & kHasCommArgs) {
        comm_.event = std::uint32_t(out_.events.size());
        out_.comms.push_back(std::move(comm_));
    }
    if (shape_ && shape_->elements > 0) {
        shape_->event = std::uint32_t(out_.events.size());
        out_.shapes.push_back(std::move(*shape_));
    }
    out_.events.push_back(e);
}

void EventCollector::keepMeta(Element& el) {
    if (!el.argsSeen || !el.hasMeta) {
        return;
    }
    MetaRecord& meta = el.meta;
    // In MetaRecord::Kind's order.
    constexpr std::string_view kNames[] = {"process_name", "process_labels", "process_sort_index",
                                           "thread_name", "thread_sort_index"};
    const auto* name = std::find(std::begin(kNames), std::end(kNames), el.metaName);
    if (name == std::end(kNames)) {
        return;
    }
    meta.kind = MetaRecord::Kind(name - std::begin(kNames));
    meta.pid = el.e.pid;
    meta.tid = el.e.tid;
    out_.meta.push_back(std::move(meta));
}

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

} // namespace commprof::trace
