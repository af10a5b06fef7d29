// Parses a large trace (default: the 54 MB benchmark trace) and compares the wall time with
// `zcat` of the same file, the floor for anything that must read every byte. Also reports
// peak RSS against the uncompressed size. Usage: trace_bench [TRACE] [REPEATS]

#include "trace/hta_figures.h"
#include "trace/step_metrics.h"
#include "trace/trace_reader.h"

#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace {

double seconds(std::chrono::steady_clock::time_point a, std::chrono::steady_clock::time_point b) {
    return std::chrono::duration<double>(b - a).count();
}

double timeCommand(const std::string& cmd) {
    const auto t0 = std::chrono::steady_clock::now();
    if (std::system(cmd.c_str()) != 0) {
        std::fprintf(stderr, "command failed: %s\n", cmd.c_str());
    }
    return seconds(t0, std::chrono::steady_clock::now());
}

} // namespace

int main(int argc, char** argv) {
    const std::string path = argc > 1 ? argv[1]
                                      : COMMPROF_SHARED_FIXTURES
                                 "/traces/kineto_nccl_ddp_ws2_large_rank1.json.gz";
    const int repeats = argc > 2 ? std::atoi(argv[2]) : 5;
    std::vector<double> ours, zcat;
    std::size_t events = 0;
    for (int i = 0; i < repeats; ++i) {
        // Interleave so both see the same machine load.
        zcat.push_back(timeCommand("zcat '" + path + "' > /dev/null"));
        const auto t0 = std::chrono::steady_clock::now();
        const auto trace = commprof::trace::readTraceFile(path);
        const auto summary = commprof::trace::summarize(trace);
        const auto hta = commprof::trace::htaFigures(trace);
        ours.push_back(seconds(t0, std::chrono::steady_clock::now()));
        events = trace.events.size();
        if (summary.steps.empty() || hta.kernelTimeUs < 0) {
            return 1;
        }
    }
    std::sort(ours.begin(), ours.end());
    std::sort(zcat.begin(), zcat.end());
    const double uncompressed = [&] {
        FILE* p = popen(("zcat '" + path + "' | wc -c").c_str(), "r");
        double n = 0;
        if (p && std::fscanf(p, "%lf", &n) != 1) {
            n = 0;
        }
        if (p) {
            pclose(p);
        }
        return n;
    }();
    rusage usage{};
    getrusage(RUSAGE_SELF, &usage);
    const double peakBytes = double(usage.ru_maxrss) * 1024.0;
    std::printf("trace: %s\nevents: %zu\n", path.c_str(), events);
    std::printf("median parse+summarize+hta: %.3f s\nmedian zcat:               %.3f s\n",
                ours[ours.size() / 2], zcat[zcat.size() / 2]);
    std::printf("ratio to zcat: %.2fx (goal <= 1.5x)\n",
                ours[ours.size() / 2] / zcat[zcat.size() / 2]);
    std::printf("peak RSS: %.1f MiB, uncompressed %.1f MiB, ratio %.2fx (goal < 2.5x)\n",
                peakBytes / 1048576.0, uncompressed / 1048576.0, peakBytes / uncompressed);
    return 0;
}
