// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// A hook's own work in a job, from a calibration of the machine it ran on
// (results/hook_calibration.h); without one, nothing is assumed: the what-if says the hook's
// work is unknown rather than borrowing another machine's.

#include "results/hook_calibration.h"

namespace commprof::analysis {

using results::HookCalibration;
using results::HookWork;

// The work of `hook` in a job on `backend` (on a device or not) under `calibration`: nothing
// for a hook or a backend it does not cover.
inline HookWork hookWork(const HookCalibration& calibration, const QString& hook,
                         const QString& backend, bool onDevice) {
    if (backend != calibration.backend || onDevice != calibration.onDevice) {
        return {};
    }
    const auto it = calibration.hooks.find(hook);
    return it == calibration.hooks.end() ? HookWork{} : it->second;
}

} // namespace commprof::analysis
