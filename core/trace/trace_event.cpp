// SPDX-License-Identifier: GPL-3.0-or-later
#include "trace_event.h"

namespace commprof::trace {

const char* toString(EventClass cls) {
    constexpr const char* kNames[] = {"not_counted", "compute", "communication", "bookkeeping",
                                      "memory"}; // in EventClass's order
    return kNames[std::size_t(cls)];
}

const char* toString(Regime regime) {
    return regime == Regime::Device ? "device" : "host";
}

StringTable::StringTable() {
    intern({});
}

// The index holds views into strings_, so a copy rebuilds it over its own strings.
StringTable::StringTable(const StringTable& other) : strings_(other.strings_) {
    index_.reserve(strings_.size());
    for (std::uint32_t id = 0; id < strings_.size(); ++id) {
        index_.emplace(strings_[id], id);
    }
}

StringTable& StringTable::operator=(const StringTable& other) {
    if (this != &other) {
        *this = StringTable(other);
    }
    return *this;
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

std::optional<std::uint32_t> StringTable::find(std::string_view text) const {
    if (auto it = index_.find(text); it != index_.end()) {
        return it->second;
    }
    return std::nullopt;
}

std::string Trace::idText(std::int64_t id) const {
    if (isStringIdValue(id) && std::uint64_t(id - kStringIdBase) < strings.size()) {
        return strings.at(std::uint32_t(id - kStringIdBase));
    }
    return std::to_string(id);
}

std::string Trace::laneName(std::int64_t pid, std::int64_t tid) const {
    const auto p = processes.find(pid);
    std::string process =
        p != processes.end() && !p->second.name.empty() ? p->second.name : "process " + idText(pid);
    if (p != processes.end() && !p->second.labels.empty()) {
        process += " (" + p->second.labels + ")"; // Kineto: "python3.10 (GPU 0)"
    }
    std::string thread;
    if (auto t = threads.find({pid, tid}); t != threads.end() && !t->second.name.empty()) {
        thread = t->second.name;
        thread.erase(thread.find_last_not_of(' ') + 1); // Kineto writes "stream 7 "; npos + 1 is 0
    } else {
        thread = "thread " + idText(tid);
    }
    return process + " / " + thread;
}

} // namespace commprof::trace
