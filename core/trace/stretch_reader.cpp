// SPDX-License-Identifier: GPL-3.0-or-later
#include "stretch_reader.h"

#include "json_scan.h"

namespace commprof::trace {

namespace od = simdjson::ondemand;

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
