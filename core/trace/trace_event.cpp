#include "trace_event.h"

namespace commprof::trace {

const char* toString(EventClass cls) {
    switch (cls) {
    case EventClass::Compute:
        return "compute";
    case EventClass::Communication:
        return "communication";
    case EventClass::Bookkeeping:
        return "bookkeeping";
    case EventClass::NotCounted:
        break;
    }
    return "not_counted";
}

const char* toString(Regime regime) {
    return regime == Regime::Device ? "device" : "host";
}

StringTable::StringTable() {
    intern({});
}

std::uint32_t StringTable::intern(std::string_view text) {
    if (auto it = index_.find(text); it != index_.end()) {
        return it->second;
    }
    const auto id = static_cast<std::uint32_t>(strings_.size());
    strings_.emplace_back(text);
    index_.emplace(strings_.back(), id);
    return id;
}

} // namespace commprof::trace
