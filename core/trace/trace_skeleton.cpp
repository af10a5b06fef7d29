// SPDX-License-Identifier: GPL-3.0-or-later
#include "trace_skeleton.h"

#include <simdjson.h>

#include <string_view>

namespace commprof::trace {

namespace od = simdjson::ondemand;
constexpr std::size_t npos = std::string::npos;

void scanKeys(const TopLevel& top, const char* text, std::size_t size, std::size_t p, Skeleton& sk,
              bool stopAtEvents) {
    // The scan ends at the object's '}', or where the text stops being an object of keys.
    for (;;) {
        p = top.skipSpace(p);
        if (p < size && text[p] == ',') {
            p = top.skipSpace(p + 1);
        }
        if (p >= size || text[p] != '"') {
            return;
        }
        const std::size_t keyEnd = top.endOfString(p);
        if (keyEnd == npos) {
            return;
        }
        const std::string_view key(text + p + 1, keyEnd - p - 2);
        p = top.skipSpace(keyEnd);
        if (p >= size || text[p] != ':') {
            return;
        }
        p = top.skipSpace(p + 1);
        if (key == "traceEvents" && stopAtEvents && sk.arrayStart == npos) {
            // Not an array (arrayStart at the value): the caller reports it with the parser's
            // words.
            sk.arrayStart = p < size && text[p] == '[' ? p + 1 : p;
            return;
        }
        const std::size_t valueEnd = top.endOfValue(p);
        if (valueEnd == npos) {
            return;
        }
        if (key == "distributedInfo") {
            sk.distributedInfo = std::string(text + p, valueEnd - p);
        } else if (key == "otherData") {
            sk.otherData = std::string(text + p, valueEnd - p);
        }
        p = valueEnd;
    }
}

bool findEvents(const TopLevel& top, const char* text, std::size_t size, Skeleton& sk) {
    const std::size_t root = top.skipSpace(0);
    if (root >= size) {
        return false;
    }
    if (text[root] == '[') {
        sk.rootIsArray = true;
        sk.arrayStart = root + 1;
        return true;
    }
    if (text[root] != '{') {
        return false;
    }
    scanKeys(top, text, size, root + 1, sk, true);
    return sk.arrayStart != npos && text[sk.arrayStart - 1] == '[';
}

void readTopLevelObjects(const Skeleton& sk, Trace& trace) {
    auto parse = [&](const std::string& text, auto&& use) {
        const simdjson::padded_string copy(text);
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
    auto str = [](od::value& v) {
        return v.type() == od::json_type::string ? std::string(std::string_view(v.get_string()))
                                                 : std::string();
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

} // namespace commprof::trace
