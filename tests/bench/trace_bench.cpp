// SPDX-License-Identifier: GPL-3.0-or-later
// Reading a large trace against `zcat` of the same file, the floor for anything that must
// read every byte, side by side in one loop so both see the same machine load:
//   - zcat FILE > /dev/null
//   - inflating alone into memory, with libdeflate and with ISA-L (why ISA-L reads the files)
//   - summarize: read + classify + collectives + per-step figures + HTA figures, in-process,
//     on the machine's threads and on one (what a busy machine's second core gives it), and
//     asked between pieces whether to stop, as the workbench reads (it never says so here)
//   - the command itself: commprof trace summarize FILE --json --hta > /dev/null
//   - a job's 8 rank traces: read one after another, and in parallel as `summarize DIR` does
//   - CPU time (user + system) beside zcat's: the command `summarize FILE --json` (both
//     threads), and in-process `summarize --json`'s work on one thread
// and the peak RSS of a fresh process that summarizes the file once, against its
// uncompressed size. Usage: trace_bench [TRACE] [REPEATS]
//
// trace_bench --job-rss [TRACE] [REPEATS]: `commprof trace summarize DIR --json` over job
// folders of 1, 8, 32 and 64 links to TRACE (under /tmp), its peak RSS and CPU time per rank
// count, interleaved, and 256 ranks of 0.5 GB traces extrapolated from them.

#include "trace/trace_job.h"
#include "trace/trace_reader.h"
#include "trace/trace_report.h"

#include <fcntl.h>
#include <isa-l/igzip_lib.h>
#include <libdeflate.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;

double seconds(Clock::time_point a, Clock::time_point b) {
    return std::chrono::duration<double>(b - a).count();
}

template <class F> double timed(F&& f) {
    const auto t0 = Clock::now();
    f();
    return seconds(t0, Clock::now());
}

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

std::vector<unsigned char> fileBytes(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), {}};
}

std::size_t gzipSize(const std::vector<unsigned char>& gz) {
    const std::size_t n = gz.size();
    return gz[n - 4] | (gz[n - 3] << 8) | (gz[n - 2] << 16) | (std::size_t(gz[n - 1]) << 24);
}

// Inflating into a fresh buffer, as a reader must (page faults included).
void libdeflateInflate(const std::vector<unsigned char>& gz) {
    const std::size_t size = gzipSize(gz);
    std::unique_ptr<char[]> out(new char[size]);
    libdeflate_decompressor* d = libdeflate_alloc_decompressor();
    std::size_t got = 0;
    if (libdeflate_gzip_decompress(d, gz.data(), gz.size(), out.get(), size, &got) !=
        LIBDEFLATE_SUCCESS) {
        std::fprintf(stderr, "libdeflate failed\n");
    }
    libdeflate_free_decompressor(d);
}

void isalInflate(const std::vector<unsigned char>& gz) {
    const std::size_t size = gzipSize(gz);
    std::unique_ptr<char[]> out(new char[size]);
    auto state = std::make_unique<inflate_state>();
    isal_inflate_init(state.get());
    state->crc_flag = ISAL_GZIP;
    state->next_in = const_cast<unsigned char*>(gz.data());
    state->avail_in = std::uint32_t(gz.size());
    state->next_out = reinterpret_cast<std::uint8_t*>(out.get());
    state->avail_out = std::uint32_t(size);
    if (isal_inflate(state.get()) != ISAL_DECOMP_OK) {
        std::fprintf(stderr, "ISA-L failed\n");
    }
}

// What `commprof trace summarize --hta` computes for one file; cancellable: asked between
// pieces whether to stop, as the workbench's loads are (it never says so here).
void summarizeOnce(const std::string& path, int threads = 0, bool cancellable = false) {
    commprof::trace::ReadOptions options = commprof::trace::ReadOptions::fromEnvironment();
    options.threads = threads;
    std::atomic<bool> stop{false};
    if (cancellable) {
        options.cancelled = [&stop] { return stop.load(std::memory_order_relaxed); };
    }
    const auto trace = commprof::trace::readTraceFile(path, options);
    const auto report = commprof::trace::reportOf(trace, std::nullopt, true);
    if (report.summary.steps.empty() || !report.hta->kernelTimeUs) {
        std::fprintf(stderr, "unexpected: no steps or no HTA figures\n");
    }
}

// The machine's 1-, 5- and 15-minute load averages: the figures only mean something next to
// them on a shared machine.
std::string loadAverage() {
    std::ifstream in("/proc/loadavg");
    double one = 0, five = 0, fifteen = 0;
    in >> one >> five >> fifteen;
    char text[64];
    std::snprintf(text, sizeof text, "%.2f %.2f %.2f", one, five, fifteen);
    return text;
}

void run(const std::string& cmd) {
    if (std::system(cmd.c_str()) != 0) {
        std::fprintf(stderr, "command failed: %s\n", cmd.c_str());
    }
}

// CPU seconds (user + system) of this process so far.
double selfCpu() {
    rusage u{};
    getrusage(RUSAGE_SELF, &u);
    return double(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
           double(u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e6;
}

// What `commprof trace summarize FILE --json` computes, on one thread, in CPU seconds.
double summarizeJsonCpu(const std::string& path) {
    commprof::trace::ReadOptions options = commprof::trace::ReadOptions::fromEnvironment();
    options.threads = 1;
    const double t0 = selfCpu();
    const auto trace = commprof::trace::readTraceFile(path, options);
    const auto report = commprof::trace::reportOf(trace, std::nullopt, false);
    if (report.summary.steps.empty()) {
        std::fprintf(stderr, "unexpected: no steps\n");
    }
    return selfCpu() - t0;
}

struct ChildUsage {
    double wall = 0, cpu = 0, peakBytes = 0;
};

// Runs argv with stdout to /dev/null and measures it alone (wait4: its own usage, not the
// other children's).
ChildUsage runMeasured(const std::vector<std::string>& argv) {
    std::vector<char*> args;
    for (const auto& a : argv) {
        args.push_back(const_cast<char*>(a.c_str()));
    }
    args.push_back(nullptr);
    const auto t0 = Clock::now();
    const pid_t pid = fork();
    if (pid == 0) {
        const int null = open("/dev/null", O_WRONLY);
        dup2(null, 1);
        execvp(args[0], args.data());
        _exit(127);
    }
    int status = 0;
    rusage u{};
    wait4(pid, &status, 0, &u);
    ChildUsage out;
    out.wall = seconds(t0, Clock::now());
    out.cpu = double(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
              double(u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e6;
    out.peakBytes = double(u.ru_maxrss) * 1024.0;
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        std::fprintf(stderr, "failed: %s\n", argv[0].c_str());
    }
    return out;
}

// A job folder of `ranks` links to one trace, named rank0.json.gz, rank1.json.gz, ...
std::string jobFolder(const std::string& trace, int ranks) {
    namespace fs = std::filesystem;
    const fs::path dir =
        fs::temp_directory_path() / ("commprof_trace_bench_job" + std::to_string(ranks));
    fs::remove_all(dir);
    fs::create_directories(dir);
    const fs::path target = fs::absolute(trace);
    for (int r = 0; r < ranks; ++r) {
        fs::create_symlink(target, dir / ("rank" + std::to_string(r) + ".json.gz"));
    }
    return dir.string();
}

// Peak RSS and CPU time of `summarize DIR --json` for growing jobs of the same trace.
int jobRss(const std::string& path, int repeats) {
    const std::string cli = COMMPROF_BIN_DIR "/commprof";
    const std::vector<int> sizes = {1, 8, 32, 64};
    std::map<int, std::string> folders;
    for (int n : sizes) {
        folders[n] = jobFolder(path, n);
    }
    std::map<int, std::vector<double>> peak, cpu, wall;
    const std::string loadBefore = loadAverage();
    for (int i = 0; i < repeats; ++i) {
        for (int n : sizes) {
            const ChildUsage u = runMeasured({cli, "trace", "summarize", folders[n], "--json"});
            peak[n].push_back(u.peakBytes);
            cpu[n].push_back(u.cpu);
            wall[n].push_back(u.wall);
        }
    }
    const double uncompressed = double(gzipSize(fileBytes(path)));
    std::printf("job of N links to %s (%.1f MiB uncompressed); medians of %d interleaved runs; "
                "load average %s before, %s after:\n",
                path.c_str(), uncompressed / 1048576.0, repeats, loadBefore.c_str(),
                loadAverage().c_str());
    const double peak1 = median(peak[1]), cpu1 = median(cpu[1]);
    for (int n : sizes) {
        std::printf("  %3d ranks: peak RSS %7.1f MiB (%5.2fx one rank), CPU %7.3f s (%6.2fx one "
                    "rank, %.3f s per rank), wall %.3f s\n",
                    n, median(peak[n]) / 1048576.0, median(peak[n]) / peak1, median(cpu[n]),
                    median(cpu[n]) / cpu1, median(cpu[n]) / n, median(wall[n]));
    }
    // Peak = fixed + per rank x N, fitted through 8 and 64 ranks (32 checks the line); both
    // parts scale with a trace's size (its working set; its collectives and steps).
    const double perRank = (median(peak[64]) - median(peak[8])) / 56.0;
    const double fixed = median(peak[8]) - 8 * perRank;
    const double predicted32 = fixed + 32 * perRank;
    const double scale = 0.5e9 / uncompressed;
    const double at256 = scale * (fixed + 256 * perRank);
    std::printf("fit: %.1f MiB + %.3f MiB per rank (32 ranks predicted %.1f MiB, measured "
                "%.1f MiB)\n",
                fixed / 1048576.0, perRank / 1048576.0, predicted32 / 1048576.0,
                median(peak[32]) / 1048576.0);
    std::printf("256 ranks of 0.5 GB traces (x%.2f the size): %.2f GiB extrapolated (goal <= 2 "
                "GiB); 64 ranks / one rank: %.2fx (goal <= 2x)\n",
                scale, at256 / 1073741824.0, median(peak[64]) / peak1);
    for (int n : sizes) {
        std::filesystem::remove_all(folders[n]);
    }
    return 0;
}

// Peak RSS of a fresh process (this program again, with --once) that summarizes the file once.
double childPeakBytes(const char* self, const std::string& path) {
    std::string cmd = "'";
    cmd += self;
    cmd += "' --once '" + path + "'";
    FILE* p = popen(cmd.c_str(), "r");
    double bytes = 0;
    if (!p || std::fscanf(p, "%lf", &bytes) != 1) {
        bytes = 0;
    }
    if (p) {
        pclose(p);
    }
    return bytes;
}

} // namespace

int main(int argc, char** argv) {
    if (argc == 3 && std::string(argv[1]) == "--once") {
        summarizeOnce(argv[2]);
        rusage usage{};
        getrusage(RUSAGE_SELF, &usage);
        std::printf("%.0f\n", double(usage.ru_maxrss) * 1024.0);
        return 0;
    }
    const std::string fixture =
        COMMPROF_SHARED_FIXTURES "/traces/kineto_nccl_ddp_ws2_large_rank1.json.gz";
    if (argc >= 2 && std::string(argv[1]) == "--job-rss") {
        return jobRss(argc > 2 ? argv[2] : fixture, argc > 3 ? std::atoi(argv[3]) : 2);
    }
    const std::string path = argc > 1 ? argv[1] : fixture;
    const int repeats = argc > 2 ? std::atoi(argv[2]) : 7;
    const std::string cli = COMMPROF_BIN_DIR "/commprof";
    const std::vector<unsigned char> gz = fileBytes(path);
    if (gz.empty() || repeats < 1) {
        // Medians of nothing, and a missing file read as empty, ended in a segfault.
        std::fprintf(stderr, "usage: trace_bench [TRACE] [REPEATS >= 1]: '%s' cannot be read\n",
                     path.c_str());
        return 2;
    }
    const std::vector<std::string> job(8, path);
    const std::string zcatCommand = "zcat '" + path + "' > /dev/null";
    std::string command = "'" + cli;
    command += "' trace summarize '" + path;
    command += "' --json --hta > /dev/null";
    std::map<std::string, std::vector<double>> t;
    const std::string loadBefore = loadAverage();
    for (int i = 0; i < repeats; ++i) {
        // Interleaved, so every variant sees the same machine load.
        t["zcat"].push_back(timed([&] { run(zcatCommand); }));
        t["libdeflate"].push_back(timed([&] { libdeflateInflate(gz); }));
        t["isal"].push_back(timed([&] { isalInflate(gz); }));
        t["summarize"].push_back(timed([&] { summarizeOnce(path); }));
        t["summarize, one thread"].push_back(timed([&] { summarizeOnce(path, 1); }));
        t["summarize, cancellable"].push_back(timed([&] { summarizeOnce(path, 0, true); }));
        t["command"].push_back(timed([&] { run(command); }));
        t["zcat cpu"].push_back(runMeasured({"zcat", path}).cpu);
        t["command json cpu"].push_back(
            runMeasured({cli, "trace", "summarize", path, "--json"}).cpu);
        t["one thread json cpu"].push_back(summarizeJsonCpu(path));
        if (i < 3) {
            t["8 one by one"].push_back(timed([&] {
                commprof::trace::ReadOptions oneThread;
                oneThread.threads = 1;
                for (const auto& p : job) {
                    commprof::trace::readTraceFile(p, oneThread);
                }
            }));
            t["8 in parallel"].push_back(
                timed([&] { commprof::trace::readTraces(job, commprof::trace::ReadOptions()); }));
        }
    }
    const double zcat = median(t["zcat"]);
    const double uncompressed = double(gzipSize(gz));
    std::printf("trace: %s (%.1f MiB compressed, %.1f MiB uncompressed)\n", path.c_str(),
                double(gz.size()) / 1048576.0, uncompressed / 1048576.0);
    std::printf("medians of %d interleaved runs; load average %s before, %s after:\n", repeats,
                loadBefore.c_str(), loadAverage().c_str());
    const std::vector<std::pair<const char*, const char*>> rows = {
        {"zcat", "zcat > /dev/null"},
        {"libdeflate", "inflate only, libdeflate"},
        {"isal", "inflate only, ISA-L"},
        {"summarize", "summarize (in-process)"},
        {"summarize, one thread", "summarize on one thread"},
        {"summarize, cancellable", "summarize, asked to stop"},
        {"command", "commprof trace summarize --hta"}};
    for (const auto& [key, label] : rows) {
        std::printf("  %-31s %.3f s  %.2fx zcat\n", label, median(t[key]), median(t[key]) / zcat);
    }
    std::printf("8 rank traces: %.3f s in parallel, %.3f s one by one on one thread (%.2fx)\n",
                median(t["8 in parallel"]), median(t["8 one by one"]),
                median(t["8 in parallel"]) / median(t["8 one by one"]));
    std::printf("summarize / zcat: %.2fx (goal <= 0.6x)\n", median(t["summarize"]) / zcat);
    const double zcatCpu = median(t["zcat cpu"]);
    std::printf("CPU time: zcat %.3f s; `summarize FILE --json` as a process %.3f s (%.2fx zcat); "
                "its work on one thread in-process %.3f s (%.2fx zcat, goal <= 0.7x)\n",
                zcatCpu, median(t["command json cpu"]), median(t["command json cpu"]) / zcatCpu,
                median(t["one thread json cpu"]), median(t["one thread json cpu"]) / zcatCpu);
    const double peak = childPeakBytes(argv[0], path);
    std::printf("peak RSS: %.1f MiB, %.2fx the uncompressed size (goal <= 2x)\n", peak / 1048576.0,
                peak / uncompressed);
    return 0;
}
