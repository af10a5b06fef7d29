// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// A large host trace built in memory, shaped like a profiled training loop: on each thread,
// back-to-back steps (depth 0), each holding ops (depth 1) with two children (depth 2) and a
// grandchild each (depth 3), named from a fixed list, with a gloo all-reduce among the ops.
// For frame-time benchmarks and level-of-detail tests; no file is involved.

#include "trace/trace_event.h"
#include "trace/trace_reader.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <string>

namespace synthetic {

inline constexpr int kOpsPerStep = 100;
inline constexpr double kStepUs = 10000.0;
inline constexpr double kOpUs = kStepUs / kOpsPerStep; // 100 µs per op slot
inline constexpr int kEventsPerStep = 1 + kOpsPerStep * 5;

// About `events` events on `threads` threads; pid is the rank.
inline commprof::trace::Trace nestedTrace(std::size_t events, int threads = 4, int pid = 1) {
    using commprof::trace::TraceEvent;
    static const std::array<const char*, 12> ops{
        "aten::linear",
        "aten::addmm",
        "aten::relu",
        "aten::mm",
        "aten::add_",
        "aten::mul",
        "aten::copy_",
        "aten::sum",
        "autograd::engine::evaluate_function: AddmmBackward0",
        "Optimizer.step#SGD.step",
        "aten::empty",
        "aten::threshold_backward"};
    static const std::array<const char*, 4> children{"aten::empty_strided", "aten::as_strided",
                                                     "aten::fill_", "aten::resize_"};
    commprof::trace::Trace t;
    t.source = "synthetic";
    const auto gloo = t.strings.intern("gloo:all_reduce");
    const auto cat = t.strings.intern("cpu_op");
    std::uint32_t opNames[ops.size()];
    for (std::size_t i = 0; i < ops.size(); ++i) {
        opNames[i] = t.strings.intern(ops[i]);
    }
    std::uint32_t childNames[children.size()];
    for (std::size_t i = 0; i < children.size(); ++i) {
        childNames[i] = t.strings.intern(children[i]);
    }
    const std::size_t steps = std::max<std::size_t>(1, events / kEventsPerStep / threads);
    std::uint32_t seed = 12345;
    auto next = [&seed] {
        seed = seed * 1664525u + 1013904223u;
        return seed >> 8;
    };
    for (int thread = 0; thread < threads; ++thread) {
        for (std::size_t s = 0; s < steps; ++s) {
            const double step0 = double(s) * kStepUs;
            const auto stepName = t.strings.intern("ProfilerStep#" + std::to_string(s));
            t.events.push_back({step0, step0 + kStepUs * 0.98, stepName, cat, pid, thread, false});
            for (int op = 0; op < kOpsPerStep; ++op) {
                const double o = step0 + op * kOpUs + 1;
                const auto name = op % 25 == 24 ? gloo : opNames[next() % ops.size()];
                t.events.push_back({o, o + kOpUs * 0.9, name, cat, pid, thread, false});
                for (int c = 0; c < 2; ++c) {
                    const double c0 = o + 2 + c * 44;
                    const auto child = childNames[next() % children.size()];
                    t.events.push_back({c0, c0 + 40, child, cat, pid, thread, false});
                    t.events.push_back({c0 + 5, c0 + 15, childNames[next() % children.size()], cat,
                                        pid, thread, false});
                }
            }
        }
    }
    commprof::trace::finishTrace(t);
    return t;
}

} // namespace synthetic
