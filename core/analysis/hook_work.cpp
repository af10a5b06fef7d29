// SPDX-License-Identifier: GPL-3.0-or-later
#include "hook_work.h"

namespace commprof::analysis {

HookWork hookWork(const HookCalibration& calibration, const QString& hook, const QString& backend,
                  bool onDevice) {
    if (backend != calibration.backend || onDevice != calibration.onDevice) {
        return {};
    }
    const auto it = calibration.hooks.find(hook);
    return it == calibration.hooks.end() ? HookWork{} : it->second;
}

} // namespace commprof::analysis
