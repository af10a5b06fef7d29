// SPDX-License-Identifier: GPL-3.0-or-later
// LD_PRELOAD shim for tests: once the file named by COMMPROF_TEST_STEP_BACK_FILE exists, the
// wall clock (CLOCK_REALTIME) of the process reads one hour earlier, as after an NTP step or
// an administrator's `date -s`; the monotonic clocks are left alone. Only this process and its
// children see it, never the machine.

#include <dlfcn.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include <cstdlib>

namespace {

long stepS() {
    const char* trigger = std::getenv("COMMPROF_TEST_STEP_BACK_FILE");
    return trigger && ::access(trigger, F_OK) == 0 ? 3600 : 0;
}

} // namespace

extern "C" int clock_gettime(clockid_t id, struct timespec* ts) {
    using Real = int (*)(clockid_t, struct timespec*);
    static const Real real = reinterpret_cast<Real>(::dlsym(RTLD_NEXT, "clock_gettime"));
    const int rc = real(id, ts);
    if (rc == 0 && (id == CLOCK_REALTIME || id == CLOCK_REALTIME_COARSE)) {
        ts->tv_sec -= stepS();
    }
    return rc;
}

// What QDateTime::currentMSecsSinceEpoch reads (Qt 6.4).
extern "C" int gettimeofday(struct timeval* tv, void* tz) {
    using Real = int (*)(struct timeval*, void*);
    static const Real real = reinterpret_cast<Real>(::dlsym(RTLD_NEXT, "gettimeofday"));
    const int rc = real(tv, tz);
    if (rc == 0 && tv) {
        tv->tv_sec -= stepS();
    }
    return rc;
}
