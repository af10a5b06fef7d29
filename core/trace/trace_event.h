#pragma once
// Compact value types for one parsed Chrome trace: a flat event array plus the interned
// strings it points into. Everything derived from a trace starts from these.

#include <cstdint>
#include <deque>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace commprof::trace {

enum class EventClass : std::uint8_t { NotCounted, Compute, Communication, Bookkeeping };
enum class Regime : std::uint8_t { Host, Device };

const char* toString(EventClass cls);
const char* toString(Regime regime);

// Strings are stored once; events refer to them by index. Index 0 is the empty string.
class StringTable {
public:
    StringTable();
    std::uint32_t intern(std::string_view text);
    const std::string& at(std::uint32_t id) const { return strings_[id]; }
    std::size_t size() const { return strings_.size(); }

private:
    std::deque<std::string> strings_; // a deque never moves its elements, so views stay valid
    std::unordered_map<std::string_view, std::uint32_t> index_;
};

struct TraceEvent {
    double startUs = 0.0; // microseconds; doubles keep ns resolution for 2^53 ns and beyond
    double endUs = 0.0;
    std::uint32_t name = 0;
    std::uint32_t category = 0;
    std::int64_t pid = 0; // string pids/tids are interned and stored as -(id + 1)
    std::int64_t tid = 0;
    bool onStream = false; // args.stream present: a device-side event (kernel, memcpy, ...)
    EventClass cls = EventClass::NotCounted;

    double durationUs() const { return endUs - startUs; }
};

struct Trace {
    std::string source; // the file it came from, for messages
    StringTable strings;
    std::vector<TraceEvent> events; // duration events only, in file order
    std::vector<std::string> warnings;
    Regime regime = Regime::Host;

    const std::string& name(const TraceEvent& e) const { return strings.at(e.name); }
    const std::string& category(const TraceEvent& e) const { return strings.at(e.category); }
};

} // namespace commprof::trace
