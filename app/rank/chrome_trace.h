// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// commprof-rank's own Chrome trace: every ATen op from RecordFunction callbacks, every bucket
// all-reduce, and a ProfilerStep#N span per iteration, for the profiled window only.
// Follows docs/trace-semantics.md (host regime) and loads in Perfetto.

#include <atomic>
#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

namespace commprof::rank {

// A collective's message as gloo hands it to RecordFunction (its input tensors), written as
// the args Kineto puts on record_param_comms spans ("Collective name", "In msg nelems", "Out msg
// nelems", "dtype", "Group size"), so that one rule of the trace reader sizes both.
struct CommMessage {
    std::string collective;   // "all_reduce" of "gloo:all_reduce"; empty: not a collective
    std::int64_t nelems = -1; // elements of its input tensors; -1: none were handed over
    std::string dtype;        // c10's name of their type ("Float")
};

class ChromeTrace {
public:
    static ChromeTrace& instance();

    // Registers the RecordFunction callback; without this call tracing costs nothing.
    void install();
    void setActive(bool active) { active_.store(active, std::memory_order_relaxed); }
    bool active() const { return active_.load(std::memory_order_relaxed); }

    void addSpan(std::string name, const char* category, std::int64_t startNs, std::int64_t endNs,
                 int iteration = -1, CommMessage comm = {});
    // An op span opened while the trace was active is recorded when it closes, active or not:
    // gloo closes its span on its worker thread after completing the future the step waits
    // on, so the loop may already have switched the trace off.
    void opOpened() { open_.fetch_add(1, std::memory_order_acq_rel); }
    void addClosedOp(std::string name, std::int64_t startNs, std::int64_t endNs, CommMessage comm);
    // Writes gzip JSON atomically (temp file, then rename), once the op spans still open have
    // closed (for at most a second). Returns false with a message on error.
    // `worldSize` is every collective's "Group size".
    bool write(const std::string& path, int rank, int worldSize, std::string& error) const;

private:
    struct Span {
        std::string name;
        const char* category;
        std::int64_t startNs;
        std::int64_t endNs;
        long tid;
        int iteration;
        CommMessage comm;
    };
    std::atomic<bool> active_{false};
    std::atomic<int> open_{0}; // op spans opened and not yet closed
    mutable std::mutex mutex_;
    std::vector<Span> spans_;
};

} // namespace commprof::rank
