// SPDX-License-Identifier: GPL-3.0-or-later
#include "hta_figures.h"

#include "id_table.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <string_view>

namespace commprof::trace {
namespace {

bool contains(std::string_view s, std::string_view p) {
    return s.find(p) != std::string_view::npos;
}

bool isProfilerStepSymbol(std::string_view s) {
    constexpr std::string_view prefix = "ProfilerStep#";
    return s.starts_with(prefix) && s.size() > prefix.size() &&
           std::isdigit(static_cast<unsigned char>(s[prefix.size()]));
}

// ComputeKernelGroupingPattern, matched at the start of the name as Python's re.match does.
bool htaNotCompute(std::string_view n) {
    if (n.starts_with("cuda") && n.find("LaunchKernel", 4) != std::string_view::npos) {
        return true;
    }
    for (std::string_view prefix :
         {"nccl", "Stream Wait Event", "runFunction", "hip", "job_exe", "packet", "pe_exe",
          "cpum_exe_subgraph", "hccl", "collective_subgraph_execution"}) {
        if (n.starts_with(prefix)) {
            return true;
        }
    }
    return contains(n, "Memcpy") || contains(n, "Memset") || contains(n, "dma") ||
           contains(n, "Sync");
}

bool htaMemoryName(std::string_view n) {
    return n.starts_with("Memcpy") || n.starts_with("hipMemcpy") || n.starts_with("Memset") ||
           n.starts_with("hipMemset") || n.starts_with("dma");
}

// HTA's kernel types, by name (hta/common/types.py, hta/utils/utils.py: get_kernel_type).
enum class HtaKernelType { Communication, Memory, Computation, Other };

HtaKernelType htaKernelType(std::string_view name) {
    if (name.starts_with("nccl") || name.starts_with("hip") || name.starts_with("hccl") ||
        contains(name, "ncclKernel")) {
        return HtaKernelType::Communication;
    }
    if (htaMemoryName(name)) {
        return HtaKernelType::Memory;
    }
    if (!htaNotCompute(name)) {
        return HtaKernelType::Computation;
    }
    return HtaKernelType::Other;
}

// One row of HTA's event table, after its loader: times rounded inwards when the ts column is
// float, stream normalised.
struct Row {
    double ts = 0;
    double end = 0;
    std::uint32_t name = 0;
    std::uint32_t category = 0;
    std::int32_t stream = -1;
    std::int64_t correlation = -1;
    std::int64_t tid = 0;
};

// HTA's merge_kernel_intervals: sort by start, open a new group when a start lies after the
// running maximum of all earlier ends. Groups keep spans that rounding made negative.
std::vector<Span> htaMerge(std::vector<Span> spans) {
    std::ranges::stable_sort(spans, {}, &Span::start);
    std::vector<Span> out;
    double runningEnd = -std::numeric_limits<double>::infinity();
    for (const Span& s : spans) {
        if (out.empty() || s.start > runningEnd) {
            out.push_back(s);
        } else {
            out.back().end = std::max(out.back().end, s.end);
        }
        runningEnd = std::max(runningEnd, s.end);
    }
    return out;
}

double runTime(const std::vector<Span>& groups) {
    return std::accumulate(groups.begin(), groups.end(), 0.0,
                           [](double t, const Span& s) { return t + (s.end - s.start); });
}

// get_comm_comp_overlap's sweep: +1/-1 at communication starts/ends, +2/-2 at computation
// ones; time spent with the running sum at 3 is overlap.
double htaOverlap(const std::vector<Span>& comm, const std::vector<Span>& comp) {
    struct Mark {
        double time;
        int status;
    };
    std::vector<Mark> marks;
    marks.reserve(2 * (comm.size() + comp.size()));
    // Every start of a kind before its ends, communication first: ties keep this order.
    for (const auto& [spans, status] : {std::pair(&comm, 1), std::pair(&comp, 2)}) {
        for (const Span& s : *spans) {
            marks.push_back({s.start, status});
        }
        for (const Span& s : *spans) {
            marks.push_back({s.end, -status});
        }
    }
    std::ranges::stable_sort(marks, {}, &Mark::time);
    double overlap = 0;
    int running = 0;
    for (std::size_t i = 0; i + 1 < marks.size(); ++i) {
        running += marks[i].status;
        if (running == 3) {
            overlap += marks[i + 1].time - marks[i].time;
        }
    }
    return overlap;
}

class HtaTable {
    static std::uint32_t idOf(const Trace& trace, std::string_view name) {
        return trace.strings.find(name).value_or(~std::uint32_t(0));
    }

public:
    explicit HtaTable(const Trace& trace)
        : trace_(trace), symbol_(trace.strings.size(), 0), step_(trace.strings.size(), 0),
          eventSync_(idOf(trace, "Event Sync")), contextSync_(idOf(trace, "Context Sync")) {
        const bool round = trace.htaFacts.tsColumnIsFloat;
        rows_.reserve(trace.events.size());
        for (const auto& e : trace.events) {
            if (!e.htaRow()) {
                continue;
            }
            rows_.push_back({round ? std::ceil(e.startUs) : e.startUs,
                             round ? std::floor(e.endUs) : e.endUs, e.name, e.category, e.stream,
                             e.correlation, e.tid});
            symbol_[e.name] = 1;
            symbol_[e.category] = 1;
        }
        for (std::uint32_t id = 0; id < symbol_.size(); ++id) {
            if (symbol_[id] && isProfilerStepSymbol(trace.strings.at(id))) {
                step_[id] = 1;
                ++stepSymbols_;
            }
        }
    }

    // _filter_irrelevant_gpu_kernels: with two or more step names, keep only the device events
    // that some host event started before the last step launched.
    void cutLastStep() {
        if (stepSymbols_ < 2) {
            return;
        }
        if (isMtia()) {
            cutMtia();
        } else {
            cutByCorrelation();
        }
    }

    void keepWindow(Span w) {
        std::erase_if(rows_, [&](const Row& r) { return !(r.ts >= w.start && r.end <= w.end); });
    }

    HtaFigures figures() const {
        HtaFigures out;
        std::vector<Span> all, compute, comm;
        // Decided once per name: a trace has a few hundred kernel names for its many kernels.
        std::vector<std::int8_t> kinds(trace_.strings.size(), -1);
        auto kindOf = [&](std::uint32_t name) {
            if (kinds[name] < 0) {
                kinds[name] = std::int8_t(htaKernelType(trace_.strings.at(name)));
            }
            return HtaKernelType(kinds[name]);
        };
        for (const Row& r : rows_) {
            if (r.stream == -1) {
                continue;
            }
            const Span s{r.ts, r.end};
            all.push_back(s);
            if (const HtaKernelType kind = kindOf(r.name); kind == HtaKernelType::Computation) {
                compute.push_back(s);
            } else if (kind == HtaKernelType::Communication) {
                comm.push_back(s);
            }
        }
        out.deviceEvents = all.size();
        if (all.empty()) {
            out.warnings.push_back("no device events (a number other than -1 in args.stream): "
                                   "HTA has no figures for this trace");
            return out;
        }
        const std::vector<Span> groups = htaMerge(std::move(all));
        const double kernelTime = groups.back().end - groups.front().start;
        const double idle = kernelTime - runTime(groups);
        const std::vector<Span> computeGroups = htaMerge(std::move(compute));
        const std::vector<Span> commGroups = htaMerge(std::move(comm));
        const double computeTime = runTime(computeGroups);
        const double nonCompute = kernelTime - computeTime - idle;
        const std::string numbers =
            "idle " + std::to_string(idle) + ", compute " + std::to_string(computeTime) +
            ", non-compute " + std::to_string(nonCompute) + " of " + std::to_string(kernelTime) +
            " us, after rounding sub-microsecond events inwards";
        if (!(idle <= kernelTime && computeTime <= kernelTime && nonCompute >= 0)) {
            out.warnings.push_back("HTA 0.6.1's own checks fail on this trace (" + numbers +
                                   "): it has no figures for it");
            return out;
        }
        // HTA would print these; a negative time is no figure (docs/trace-semantics.md).
        if (idle < 0 || computeTime < 0 || kernelTime < 0) {
            out.warnings.push_back("HTA's rules give a negative time on this trace (" + numbers +
                                   "): no figures");
            return out;
        }
        out.kernelTimeUs = kernelTime;
        out.idleTimeUs = idle;
        out.computeTimeUs = computeTime;
        out.nonComputeTimeUs = nonCompute;
        const double commTime = runTime(commGroups);
        if (commTime > 0) {
            const double ratio = htaOverlap(commGroups, computeGroups) / commTime;
            out.compCommOverlapPctg = std::round(100.0 * ratio * 100.0) / 100.0;
        }
        return out;
    }

private:
    bool isStep(const Row& r) const { return step_[r.name] != 0; }

    // infer_gpu_type: MTIA by the backend, else by the launch call names.
    bool isMtia() const {
        if (trace_.distributed.backend.find("mtia:hccl") != std::string::npos) {
            return true;
        }
        auto has = [&](std::string_view s) {
            const auto id = trace_.strings.find(s);
            return id && symbol_[*id];
        };
        return !has("cudaLaunchKernel") && !has("hipLaunchKernel") &&
               has("runFunction - job_prep_and_submit_for_execution");
    }

    // GPUKernelFilter: a numbered stream and a correlation, or a device-wide sync.
    bool isGpuRow(const Row& r) const {
        return (r.stream >= 0 && r.correlation >= 0) || r.name == eventSync_ ||
               r.name == contextSync_;
    }

    void cutByCorrelation() {
        double lastStepStart = -std::numeric_limits<double>::infinity();
        double firstCpu = std::numeric_limits<double>::infinity();
        bool anyCpu = false, anyStep = false;
        for (const Row& r : rows_) {
            if (isGpuRow(r)) {
                continue;
            }
            anyCpu = true;
            firstCpu = std::min(firstCpu, r.ts);
            if (isStep(r)) {
                anyStep = true;
                lastStepStart = std::max(lastStepStart, r.ts);
            }
        }
        if (!anyCpu) {
            return;
        }
        const double cut = anyStep ? lastStepStart : firstCpu;
        IdTable<bool> launched(rows_.size() / 2);
        for (const Row& r : rows_) {
            if (!isGpuRow(r) && r.ts < cut) {
                launched.at(r.correlation, true);
            }
        }
        std::erase_if(rows_, [&](const Row& r) {
            return isGpuRow(r) ? !launched.find(r.correlation) : !(r.ts < cut);
        });
    }

    static bool cpuCategory(std::string_view c) {
        // CPU_EVENTS_CATEGORY_PATTERN with re.match: (cpu_op)|(user_annotation)|(^(.+)_runtime)
        return c.starts_with("cpu_op") || c.starts_with("user_annotation") ||
               c.find("_runtime", 1) != std::string_view::npos;
    }
    static bool kernelCategory(std::string_view c) {
        // KERNEL_CATEGORY_PATTERN with re.match: (kernel)|(gpu_mem.+)|(mtia_ccp_events)
        return c.starts_with("kernel") || (c.starts_with("gpu_mem") && c.size() > 7) ||
               c.starts_with("mtia_ccp_events");
    }

    // filter_mtia_kernels_for_one_rank, with _fix_mtia_memory_kernels.
    void cutMtia() {
        double tStart = std::numeric_limits<double>::infinity();
        double tEnd = -std::numeric_limits<double>::infinity();
        std::vector<Span> steps;
        for (const Row& r : rows_) {
            if (isStep(r)) {
                steps.push_back({r.ts, r.end});
                if (cpuCategory(trace_.strings.at(r.category))) {
                    tStart = std::min(tStart, r.ts);
                    tEnd = std::max(tEnd, r.end);
                }
            }
        }
        std::vector<bool> keep(rows_.size(), false);
        IdTable<bool> ids;
        for (std::size_t i = 0; i < rows_.size(); ++i) {
            const Row& r = rows_[i];
            if (cpuCategory(trace_.strings.at(r.category)) && r.ts >= tStart && r.end <= tEnd) {
                keep[i] = true;
                if (r.correlation != -1) {
                    ids.at(r.correlation, true);
                }
            }
        }
        for (std::size_t i = 0; i < rows_.size(); ++i) {
            Row& r = rows_[i];
            if (kernelCategory(trace_.strings.at(r.category)) && ids.find(r.correlation)) {
                keep[i] = true;
            }
            if (htaMemoryName(trace_.strings.at(r.name))) {
                for (const Span& s : steps) {
                    if (r.ts >= s.start && r.ts <= s.end) {
                        keep[i] = true;
                        if (r.stream == -1) {
                            r.stream = std::int32_t(r.tid);
                        }
                        break;
                    }
                }
            }
        }
        std::size_t k = 0;
        std::erase_if(rows_, [&](const Row&) { return !keep[k++]; });
    }

    const Trace& trace_;
    std::vector<Row> rows_;
    // Per interned string: whether it names a row or its category (HTA's symbol table), and
    // whether it is a ProfilerStep#N symbol.
    std::vector<std::uint8_t> symbol_;
    std::vector<std::uint8_t> step_;
    std::size_t stepSymbols_ = 0;
    // The string ids of the device-wide syncs' names; no event's name when not interned.
    std::uint32_t eventSync_;
    std::uint32_t contextSync_;
};

} // namespace

HtaFigures htaFigures(const Trace& trace, std::optional<Span> window) {
    HtaTable table(trace);
    table.cutLastStep();
    if (window) {
        table.keepWindow(*window);
    }
    HtaFigures out = table.figures();
    if (trace.htaFacts.rootIsArray && out.kernelTimeUs) {
        out.warnings.push_back("HTA 0.6.1 cannot read a trace that is a bare array of events "
                               "(it expects an object with traceEvents); these figures apply "
                               "its rules as if it could");
    }
    return out;
}

} // namespace commprof::trace
