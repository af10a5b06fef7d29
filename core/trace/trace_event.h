// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Compact value types for one parsed Chrome trace: a flat event array plus the interned
// strings, lane names, launch links and collective arguments that point into it. Everything
// derived from a trace starts from these.
//
// Memory: a TraceEvent is 64 bytes and holds no per-event heap data, so a parsed trace stays
// well under the size of its text. An event's full `args` are not kept: `offset` is where its
// JSON object starts in the (decompressed) text, and event_details.h re-reads that one object
// on demand (for a details panel), from the file the trace was read from.

#include <cstdint>
#include <deque>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

namespace commprof::trace {

enum class EventClass : std::uint8_t { NotCounted, Compute, Communication, Bookkeeping, Memory };
enum class Regime : std::uint8_t { Host, Device };

const char* toString(EventClass cls);
const char* toString(Regime regime);

// Strings are stored once; events refer to them by index. Index 0 is the empty string.
class StringTable {
public:
    StringTable();
    StringTable(const StringTable& other);
    StringTable& operator=(const StringTable& other);
    StringTable(StringTable&&) noexcept = default;
    StringTable& operator=(StringTable&&) noexcept = default;

    std::uint32_t intern(std::string_view text);
    // The id of text if it was interned, without adding it.
    std::optional<std::uint32_t> find(std::string_view text) const;
    const std::string& at(std::uint32_t id) const { return strings_[id]; }
    std::size_t size() const { return strings_.size(); }

private:
    std::deque<std::string> strings_; // a deque never moves its elements, so views stay valid
    std::unordered_map<std::string_view, std::uint32_t> index_;
};

// String pids, tids and flow ids are interned; their string ids are stored from this base up,
// so numeric ids (negative ones included) stay as written.
inline constexpr std::int64_t kStringIdBase = std::numeric_limits<std::int64_t>::min() / 2;
inline constexpr std::int64_t stringIdValue(std::uint32_t id) {
    return kStringIdBase + std::int64_t(id);
}
inline constexpr bool isStringIdValue(std::int64_t v) {
    return v >= kStringIdBase && v - kStringIdBase < (std::int64_t(1) << 32);
}

// Bits of TraceEvent::flags.
enum EventFlag : std::uint8_t {
    // Written as ph "X" with a `dur` and a `cat` other than "Trace": a row of HTA's event table.
    kHtaRow = 1u << 0,
    // The device work categories of docs/trace-semantics.md (kernels, copies, memsets, other
    // accelerators' work on a stream).
    kDeviceWork = 1u << 1,
    // Carried the message arguments of a collective (PyTorch 2.x: "Collective name", ...).
    kHasCommArgs = 1u << 2,
};

struct TraceEvent {
    // The first seven fields keep the order of earlier versions, so brace-initialised events
    // in other code still mean the same thing.
    double startUs = 0.0; // microseconds; doubles keep ns resolution for 2^53 ns and beyond
    double endUs = 0.0;
    std::uint32_t name = 0;
    std::uint32_t category = 0;
    std::int64_t pid = 0; // string pids/tids: see kStringIdBase
    std::int64_t tid = 0;
    bool onStream = false; // args.stream present at all (device lanes; ROCm runtime calls)
    EventClass cls = EventClass::NotCounted;
    std::uint8_t flags = 0;        // EventFlag bits
    std::int32_t stream = -1;      // args.stream as HTA normalises it: a number, else -1
    std::uint64_t offset = 0;      // where the event's JSON object starts in the decompressed text
    std::int64_t correlation = -1; // args.correlation: runtime call <-> device activity; -1 none

    double durationUs() const { return endUs - startUs; }
    bool deviceWork() const { return flags & kDeviceWork; }
    bool htaRow() const { return flags & kHtaRow; }
};
static_assert(sizeof(TraceEvent) == 64, "a parsed trace must stay well under its text's size");

// `ph:"M"` metadata: how the trace itself labels its processes and threads (device lanes are
// threads named "stream N" in processes named "GPU N").
struct ProcessInfo {
    std::string name;
    std::string labels;
    std::optional<std::int64_t> sortIndex;
};
struct ThreadInfo {
    std::string name;
    std::optional<std::int64_t> sortIndex;
};

// An `ac2g` flow resolved to the two events it joins: the runtime call that launched device
// work, and that device event. Indices into Trace::events.
struct FlowLink {
    std::uint32_t launch = 0;
    std::uint32_t device = 0;
};

// The message of one collective as PyTorch 2.x writes it on NCCL kernels and on host
// `record_param_comms` spans. Fields the producer did not write are empty.
struct CommArgs {
    std::uint32_t event = 0; // index into Trace::events
    std::string collective;  // "Collective name", e.g. "allreduce", "_allgather_base"
    std::string dtype;       // "dtype", e.g. "Float", "BFloat16"
    std::optional<std::int64_t> inNelems;
    std::optional<std::int64_t> outNelems;
    std::optional<std::int64_t> groupSize;
    std::optional<std::int64_t> seq; // "Seq" (PyTorch 2.4+): the collective's number in its group
    std::string processGroup;        // "Process Group Name"
    std::string processGroupDesc;    // "Process Group Description"
};

// The first input of an op recorded with torch.profiler's record_shapes: its element count (a
// TensorList's tensors summed) and type as "Input Dims" and "Input type" give them. Kept only
// for the ops DDP's step is read from where no record_param_comms sizes a gloo collective
// (PyTorch 2.x on CPU): c10d::allreduce_ (its bucket, "TensorList") and AccumulateGrad (the
// gradient, "float", "c10::Half", ...).
struct ShapeArgs {
    std::uint32_t event = 0; // index into Trace::events
    std::int64_t elements = 0;
    std::string type;
};

// One collective operation as the trace shows it (collectives.h decides which events these
// are). Bandwidths are in GB/s (1e9 bytes per second, as nccl-tests prints them); every size
// and bandwidth is empty where the trace does not say.
struct CollectiveRecord {
    std::uint32_t event = 0; // the kernel or host span it was read from
    std::string kind;        // all_reduce, all_gather, reduce_scatter, all_to_all, broadcast, ...
    std::string written;     // the name as the trace writes it
    bool onDevice = false;   // a collective kernel, not a host span
    double startUs = 0;
    double durationUs = 0;
    std::string dtype;
    std::optional<std::int64_t> inNelems;
    std::optional<std::int64_t> outNelems;
    std::optional<std::int64_t> groupSize;
    std::optional<std::int64_t> seq;
    std::string processGroup;
    std::string processGroupDesc;
    std::optional<double> bytes; // nccl-tests' "size" for this collective
    std::optional<double> algbwGBps;
    std::optional<double> busbwGBps;
};

// The trace's top-level `distributedInfo` (Kineto), reported as it is.
struct DistributedInfo {
    bool present = false;
    std::optional<std::int64_t> rank;
    std::optional<std::int64_t> worldSize;
    std::string backend;
    std::string ncclVersion;
};

// What HTA 0.6.1's loader decides from the whole file before looking at any event.
struct HtaFileFacts {
    // Some event's `ts` is written with a fraction or exponent, or missing: pandas then holds
    // the column as float64 and HTA rounds every event inwards to whole microseconds.
    bool tsColumnIsFloat = false;
    // The document is a bare array of events: HTA's loader reads only objects.
    bool rootIsArray = false;
};

struct Trace {
    std::string source; // the file it came from, for messages and for re-reading event args
    std::uint64_t textBytes = 0; // size of the (decompressed) text
    StringTable strings;
    // Duration events only: the `X` events in file order, then the `B`/`E` pairs in the order
    // they closed.
    std::vector<TraceEvent> events;
    std::vector<std::string> warnings;
    Regime regime = Regime::Host;

    std::map<std::int64_t, ProcessInfo> processes;
    std::map<std::pair<std::int64_t, std::int64_t>, ThreadInfo> threads;
    std::vector<FlowLink> flows;               // ac2g links, launch -> device
    std::vector<CommArgs> comms;               // one per event with kHasCommArgs, in event order
    std::vector<ShapeArgs> shapes;             // in event order (see ShapeArgs)
    std::vector<CollectiveRecord> collectives; // in start order
    DistributedInfo distributed;
    std::optional<std::int64_t> producerRank; // otherData.rank (commprof-rank's traces)
    HtaFileFacts htaFacts;

    const std::string& name(const TraceEvent& e) const { return strings.at(e.name); }
    const std::string& category(const TraceEvent& e) const { return strings.at(e.category); }
    // "process name (labels) / thread name" as the trace labels the lane, falling back to the
    // numbers: "python3.10 (GPU 0) / stream 7".
    std::string laneName(std::int64_t pid, std::int64_t tid) const;
    // The raw pid or tid as the trace wrote it (string ids are interned, see TraceEvent).
    std::string idText(std::int64_t id) const;
};

} // namespace commprof::trace
