// SPDX-License-Identifier: GPL-3.0-or-later
#include "chrome_trace.h"

#include "bucket_timer.h"
#include "json_writer.h"
#include "spec/rank_contract.h"

#include <ATen/record_function.h>

#include <sys/syscall.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <thread>

namespace commprof::rank {
namespace {

struct OpStart : at::ObserverContext {
    std::int64_t startNs = 0;
    CommMessage comm;
};

// Gloo's spans ("gloo:all_reduce") hand RecordFunction their input tensors whether or not a
// callback asks for inputs (ATen ops do only when asked, which would cost every op a copy of
// its arguments). They are read here, in the start callback: by the end callback the vector
// they live in is gone.
CommMessage messageOf(const at::RecordFunction& fn) {
    CommMessage m;
    const char* name = fn.name();
    if (!name || std::strncmp(name, "gloo:", 5) != 0) {
        return m;
    }
    m.collective = name + 5;
    const auto add = [&](const at::Tensor& t) {
        m.nelems = std::max<std::int64_t>(m.nelems, 0) + t.numel();
        if (m.dtype.empty()) {
            m.dtype = c10::toString(t.scalar_type());
        }
    };
    for (const c10::IValue& v : fn.inputs()) {
        if (v.isTensor()) {
            add(v.toTensor());
        } else if (v.isTensorList()) {
            for (const at::Tensor& t : v.toTensorVector()) {
                add(t);
            }
        }
    }
    return m;
}

std::unique_ptr<at::ObserverContext> onOpStart(const at::RecordFunction& fn) {
    if (!ChromeTrace::instance().active()) {
        return nullptr;
    }
    auto ctx = std::make_unique<OpStart>();
    ChromeTrace::instance().opOpened();
    ctx->startNs = monotonicNs();
    ctx->comm = messageOf(fn);
    return ctx;
}

void onOpEnd(const at::RecordFunction& fn, at::ObserverContext* ctx) {
    if (!ctx) {
        return;
    }
    auto* start = static_cast<OpStart*>(ctx);
    ChromeTrace::instance().addClosedOp(fn.name(), start->startNs, monotonicNs(),
                                        std::move(start->comm));
}

long currentTid() {
    thread_local const long tid = long(syscall(SYS_gettid));
    return tid;
}

} // namespace

ChromeTrace& ChromeTrace::instance() {
    static ChromeTrace trace;
    return trace;
}

void ChromeTrace::install() {
    at::addGlobalCallback(
        at::RecordFunctionCallback(onOpStart, onOpEnd)
            .scopes({at::RecordScope::FUNCTION, at::RecordScope::BACKWARD_FUNCTION,
                     at::RecordScope::USER_SCOPE}));
}

void ChromeTrace::addSpan(std::string name, const char* category, std::int64_t startNs,
                          std::int64_t endNs, int iteration, CommMessage comm) {
    if (!active()) {
        return;
    }
    std::lock_guard<std::mutex> lock(mutex_);
    spans_.push_back(
        {std::move(name), category, startNs, endNs, currentTid(), iteration, std::move(comm)});
}

void ChromeTrace::addClosedOp(std::string name, std::int64_t startNs, std::int64_t endNs,
                              CommMessage comm) {
    {
        std::lock_guard<std::mutex> lock(mutex_);
        spans_.push_back(
            {std::move(name), "cpu_op", startNs, endNs, currentTid(), -1, std::move(comm)});
    }
    open_.fetch_sub(1, std::memory_order_acq_rel);
}

bool ChromeTrace::write(const std::string& path, int rank, int worldSize,
                        std::string& error) const {
    // An op that never closes (a collective that failed) must not hold the results back.
    const auto giveUp = std::chrono::steady_clock::now() + std::chrono::seconds(1);
    while (open_.load(std::memory_order_acquire) > 0 && std::chrono::steady_clock::now() < giveUp) {
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    std::lock_guard<std::mutex> lock(mutex_);
    const std::string tmp = path + spec::files::kPartial;
    gzFile out = gzopen(tmp.c_str(), "wb6");
    if (!out) {
        error = "cannot write " + tmp;
        return false;
    }
    const int pid = int(getpid());
    std::string head =
        "{\"displayTimeUnit\":\"ms\",\"otherData\":{\"producer\":\"commprof-rank\",\"rank\":" +
        std::to_string(rank) + ",\"clock\":\"CLOCK_MONOTONIC\"},\"traceEvents\":[\n";
    head += "{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":" + std::to_string(pid) +
            ",\"args\":{\"name\":\"rank " + std::to_string(rank) + "\"}}";
    gzputs(out, head.c_str());
    for (const Span& s : spans_) {
        JsonWriter j;
        j.beginObject();
        j.field("ph", "X");
        j.field("cat", s.category);
        j.field("name", s.name);
        j.fieldRaw("ts", formatMicros(s.startNs));
        j.fieldRaw("dur", formatMicros(s.endNs - s.startNs));
        j.field("pid", pid);
        j.field("tid", std::int64_t(s.tid));
        if (s.iteration >= 0) {
            j.beginObject("args");
            j.field("iteration", s.iteration);
            j.endObject();
        } else if (!s.comm.collective.empty()) {
            // Kineto's names and types (docs/trace-semantics.md, "Collectives and bandwidth").
            j.beginObject("args");
            j.field("Collective name", s.comm.collective);
            if (s.comm.nelems >= 0) {
                j.field("In msg nelems", s.comm.nelems);
                // Output message is the input (in place): Kineto writes both sizes.
                if (s.comm.collective == "all_reduce" || s.comm.collective == "broadcast") {
                    j.field("Out msg nelems", s.comm.nelems);
                }
                j.field("dtype", s.comm.dtype);
            }
            j.field("Group size", worldSize);
            j.endObject();
        }
        j.endObject();
        gzputs(out, (",\n" + j.str()).c_str());
    }
    gzputs(out, "\n]}\n");
    if (gzclose(out) != Z_OK || std::rename(tmp.c_str(), path.c_str()) != 0) {
        error = "cannot finish " + path;
        return false;
    }
    return true;
}

} // namespace commprof::rank
