// SPDX-License-Identifier: GPL-3.0-or-later
#include "trace_windows.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <map>
#include <numeric>

namespace commprof::trace {
std::optional<HandlerName> handlerName(const std::string& path) {
    std::string name = std::filesystem::path(path).filename().string();
    for (const char* tail : {".pt.trace.json.gz", ".pt.trace.json"}) {
        if (name.ends_with(tail)) {
            name.resize(name.size() - std::string(tail).size());
            const std::size_t dot = name.rfind('.');
            if (dot == std::string::npos || dot == 0 || dot + 1 == name.size()) {
                return std::nullopt;
            }
            const std::string digits = name.substr(dot + 1);
            if (!std::ranges::all_of(digits, [](unsigned char c) { return std::isdigit(c); }) ||
                digits.size() > 19) {
                return std::nullopt;
            }
            return HandlerName{name.substr(0, dot), std::stoull(digits)};
        }
    }
    return std::nullopt;
}

WindowChoice latestCompleteWindows(const std::vector<std::string>& files,
                                   const std::function<std::optional<int>(std::size_t)>& steps) {
    WindowChoice out;
    std::map<std::string, std::vector<std::pair<unsigned long long, std::size_t>>> workers;
    std::vector<bool> keep(files.size(), true);
    for (std::size_t i = 0; i < files.size(); ++i) {
        if (const auto h = handlerName(files[i])) {
            workers[h->worker].emplace_back(h->time, i);
        }
    }
    std::size_t cycles = 0;
    bool several = false;
    for (auto& [worker, w] : workers) {
        std::sort(w.begin(), w.end());
        cycles = std::max(cycles, w.size());
        several = several || w.size() > 1;
    }
    if (!several) {
        out.keep.resize(files.size());
        std::iota(out.keep.begin(), out.keep.end(), 0);
        return out;
    }
    // The fullest window of each worker: what a complete cycle holds.
    std::map<std::string, int> fullest;
    for (const auto& [worker, w] : workers) {
        for (const auto& [time, i] : w) {
            fullest[worker] = std::max(fullest[worker], steps(i).value_or(-1));
        }
    }
    // The latest cycle complete on every worker that has it.
    std::optional<std::size_t> chosen;
    for (std::size_t k = cycles; k-- > 0 && !chosen;) {
        if (std::ranges::all_of(workers, [&](const auto& worker) {
                const auto& [name, w] = worker;
                return k < w.size() && steps(w[k].second).value_or(-1) >= fullest[name] &&
                       fullest[name] >= 0;
            })) {
            chosen = k;
        }
    }
    const std::size_t k = chosen.value_or(cycles - 1);
    std::string left;
    for (const auto& [worker, w] : workers) {
        // Without a cycle complete everywhere, each worker's latest fullest window.
        std::size_t mine = std::min(k, w.size() - 1);
        if (!chosen) {
            for (std::size_t c = 0; c < w.size(); ++c) {
                if (steps(w[c].second).value_or(-1) == fullest[worker]) {
                    mine = c;
                }
            }
        }
        for (std::size_t c = 0; c < w.size(); ++c) {
            if (c != mine) {
                keep[w[c].second] = false;
                left += (left.empty() ? "" : ", ") +
                        std::filesystem::path(files[w[c].second]).filename().string();
            }
        }
    }
    for (std::size_t i = 0; i < files.size(); ++i) {
        if (keep[i]) {
            out.keep.push_back(i);
        }
    }
    out.note = "tensorboard_trace_handler folder: " + std::to_string(workers.size()) +
               " worker(s) with up to " + std::to_string(cycles) + " windows each; read window " +
               std::to_string(k + 1) + " of " + std::to_string(cycles) +
               (chosen ? ", the latest complete one"
                       : " (no cycle is complete on every worker: each worker's latest fullest)") +
               "; left out: " + left;
    return out;
}

} // namespace commprof::trace
