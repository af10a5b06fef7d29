// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// What a comm hook costs besides the bytes it puts on the wire: its casts before the collective
// (on the backward's thread, so they delay every later gradient), its collective's time against
// a float32 all-reduce of the same bytes (gloo sums float16 in software on a CPU: several times
// dearer per byte), and its copy back after it. Measured by tools/hook_calibrate.py on a machine
// and read from its file; the built-in values are that script's on the project's reference
// machine (gloo on CPU, Debian 12's torch 1.13), said wherever they are used.

#include <QString>

#include <map>
#include <optional>

namespace commprof::analysis {

struct HookWork {
    double preUsPerByte = 0;  // per gradient byte, on the backward's thread
    double postUsPerByte = 0; // per gradient byte, after the collective
    // Its collective's time over a float32 all-reduce's of the same wire bytes, where the
    // excess is work on the host's cores (gloo's float16 sums): over a link K times faster or
    // slower, only the float32 part scales (bucket_schedule.cpp).
    double collectiveFactor = 1;
    bool none() const { return preUsPerByte == 0 && postUsPerByte == 0 && collectiveFactor == 1; }
};

struct HookCalibration {
    QString source; // the file, or "built in"
    QString backend = "gloo";
    bool onDevice = false;
    std::map<QString, HookWork> hooks;
    // A float32 all-reduce alone on loopback, per message byte: what the host's cores cost a
    // collective when no link holds it back.
    double float32UsPerByte = 0;
};

// The calibration tools/hook_calibrate.py measured on the reference machine.
const HookCalibration& builtInHookCalibration();

// A file tools/hook_calibrate.py wrote; nullopt with *why naming the file and field.
std::optional<HookCalibration> readHookCalibration(const QString& path, QString* why);

// The work of `hook` in a job on `backend` (on a device or not) under `calibration`: nothing
// for a hook or a backend it does not cover (their casts are not modelled then).
HookWork hookWork(const HookCalibration& calibration, const QString& hook, const QString& backend,
                  bool onDevice);

} // namespace commprof::analysis
