// SPDX-License-Identifier: GPL-3.0-or-later
// LD_PRELOAD shim for tests: starts a thread that sleeps, from a constructor, before the
// program's main runs, as a library that starts a thread of its own when it is loaded would.

#include <pthread.h>
#include <unistd.h>

namespace {

void* sleepForever(void*) {
    for (;;) {
        ::pause();
    }
    return nullptr;
}

__attribute__((constructor)) void startThread() {
    pthread_t thread;
    if (pthread_create(&thread, nullptr, sleepForever, nullptr) == 0) {
        pthread_detach(thread);
    }
}

} // namespace
