// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The comm hooks commprof-rank runs over c10d::GradBucket: the one table that the matrix's
// `hook:` choices, the bucket schedule's wire model, the verdict of the hook against the trace
// and the sweep's prediction read. Plain C++17, header-only, beside layers.h.

#include "spec/names.h"

#include <array>
#include <string_view>

namespace commprof::spec {

// What a hook sends for a bucket.
enum class HookWire {
    Gradient, // one all-reduce of the bucket's float32 bytes
    Half,     // one all-reduce of the bucket cast to 16 bits
    LowRank,  // PowerSGD: the uncompressed tensors, every P, every Q (bucket_schedule.h)
    Nothing,  // no collective at all
};

struct CommHook {
    std::string_view name;
    HookWire wire;
    // The hook's span of a bucket is its collective (a cast or a division beside it at most), so
    // the trace's backend spans measure the same work.
    bool spanIsCollective;
};

inline constexpr std::array<CommHook, 5> kCommHooks{{
    {"allreduce", HookWire::Gradient, true},
    {"fp16_compress", HookWire::Half, true},
    {"bf16_compress", HookWire::Half, true},
    {"powersgd", HookWire::LowRank, false},
    {"local", HookWire::Nothing, false},
}};

// The hook of that name; "timing" (files from before the hooks) and "default" (DDP's own
// all-reduce) are allreduce. nullptr: no such hook.
inline const CommHook* findCommHook(std::string_view name) {
    if (name == "timing" || name == "default") {
        name = "allreduce";
    }
    return rowNamed(kCommHooks, name);
}

// The hook of that name sends nothing (`local`, the no-communication baseline): its buckets cost
// nothing, so no cap or hook is advised from it or for it. false for a name the table lacks.
inline bool sendsNothing(std::string_view name) {
    const CommHook* h = findCommHook(name);
    return h && h->wire == HookWire::Nothing;
}

} // namespace commprof::spec
