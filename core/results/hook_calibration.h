// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// What a comm hook costs a machine besides the bytes it puts on the wire, and what a collective
// takes from the backward beside it there, as `commprof calibrate hooks` (tools/
// hook_calibrate.py) measured them on that machine: its casts before the collective (on the
// backward's thread, so they delay every later gradient), its collective's time against a
// float32 all-reduce of the same bytes (gloo sums float16 in software on a CPU), and its copy
// back after it. Read from the file the calibration wrote (docs/formats.md); commprof has no
// figures of its own for any machine.

#include <QString>

#include <map>
#include <optional>

namespace commprof::results {

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
    QString source; // the file
    QString backend = "gloo";
    bool onDevice = false;
    std::map<QString, HookWork> hooks;
    // A float32 all-reduce alone on loopback, per message byte.
    double float32UsPerByte = 0;
    // The share of a float32 all-reduce's time a compute thread of the same process lost while
    // it ran beside it (the file's "contention"), where the calibration measured it.
    std::optional<double> contention;
};

// A file `commprof calibrate hooks` (tools/hook_calibrate.py) wrote, read as every file argument
// is (a regular file, bounded); nullopt with *why naming the file and field.
std::optional<HookCalibration> readHookCalibration(const QString& path, QString* why);

// Where `commprof calibrate hooks` stores this machine's calibration, and every what-if looks
// for it: $XDG_DATA_HOME/commprof/hook-calibration.json.
QString storedHookCalibrationPath();

// This machine's stored calibration: nullopt when there is none (why left empty) or when the
// file cannot be read (why names it and the field).
std::optional<HookCalibration> storedHookCalibration(QString* why);

} // namespace commprof::results
