// SPDX-License-Identifier: GPL-3.0-or-later
#include "event_details.h"

#include "json_scan.h"
#include "trace_error.h"

#include <simdjson.h>

namespace commprof::trace {

std::string EventDetails::objectJson(std::uint64_t offset) {
    if (!text_) {
        text_ = readTraceText(path_, options_);
    }
    const char* text = text_->data.get();
    const std::size_t size = text_->size;
    const TopLevel scan(text, size);
    const std::size_t end =
        offset < size && text[offset] == '{' ? scan.endOfValue(offset) : TopLevel::npos;
    if (end == TopLevel::npos) {
        throw TraceError(path_ + ": no event object at byte " + std::to_string(offset) +
                         " (the file changed since it was read?)");
    }
    return std::string(text + offset, end - offset);
}

std::vector<std::pair<std::string, std::string>> EventDetails::args(std::uint64_t offset) {
    const simdjson::padded_string object(objectJson(offset));
    simdjson::dom::parser parser;
    std::vector<std::pair<std::string, std::string>> out;
    simdjson::dom::element element;
    if (parser.parse(object).get(element) != simdjson::SUCCESS) {
        throw TraceError(path_ + ": the event at byte " + std::to_string(offset) +
                         " is not valid JSON");
    }
    simdjson::dom::object args;
    if (element["args"].get_object().get(args) != simdjson::SUCCESS) {
        return out;
    }
    for (auto field : args) {
        out.emplace_back(std::string(field.key), simdjson::minify(field.value));
    }
    return out;
}

} // namespace commprof::trace
