// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Collectives as records: which events are the trace's collective operations, their message
// sizes, and bandwidth with nccl-tests' factors (docs/trace-semantics.md, "Collectives and
// bandwidth").

#include "intervals.h"
#include "trace_event.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace commprof::trace {

// all_reduce, all_gather, reduce_scatter, all_to_all, broadcast, reduce, send_recv, send,
// recv, barrier, gather, scatter, or "other", from a collective's name as any producer writes
// it ("allreduce", "_allgather_base", "ncclDevKernel_AllReduce_Sum_f32_RING_LL",
// "gloo:all_reduce", "multimem_all_reduce_kernel").
std::string collectiveKind(std::string_view written);
// Bytes per element of a PyTorch dtype name ("Float" 4, "BFloat16" 2, ...); nullopt if unknown.
std::optional<int> dtypeBytes(std::string_view dtype);
// nccl-tests' bus bandwidth factor for n ranks: all_reduce 2(n-1)/n; all_gather,
// reduce_scatter, all_to_all (n-1)/n; broadcast, reduce, send/recv 1. nullopt for other kinds
// or when n is needed and unknown.
std::optional<double> busBandwidthFactor(std::string_view kind, std::optional<std::int64_t> n);

// The collective records of a classified trace, in start order. One per collective kernel when
// the trace has them (sizes from the kernel's own args, else from the record_param_comms span
// that launched it); otherwise one per outermost host span of a collective, preferring spans
// that carry sizes (record_param_comms), then gloo:/nccl: spans, then c10d:: ones. NAMES and
// LAUNCHES are the trace's own (computed once per trace, see finishTrace).
class NameFacts;
class LaunchIndex;
std::vector<CollectiveRecord> collectiveRecords(const Trace& trace, const NameFacts& names,
                                                const LaunchIndex& launches);

struct KindSummary {
    std::string kind;
    std::int64_t count = 0;
    std::int64_t sized = 0;           // records whose bytes are known
    std::optional<double> totalBytes; // over the sized records; null when none is sized
    std::optional<double> medianBusbwGBps;
    std::optional<double> medianAlgbwGBps;
};
std::vector<KindSummary> summarizeByKind(const std::vector<CollectiveRecord>& records);

// Whether a collective belongs to a --window: it starts inside it (every one does without a
// window). The records, the per-kind summary and the straggler report all count by this rule.
bool startsIn(const CollectiveRecord& record, const std::optional<Span>& window);

} // namespace commprof::trace
