// SPDX-License-Identifier: GPL-3.0-or-later
#include "hook_calibration.h"

#include "files/safe_file.h"

#include <QFileInfo>
#include <QJsonDocument>
#include <QJsonObject>
#include <QStandardPaths>

#include <algorithm>

namespace commprof::results {
namespace {

// tools/hook_calibrate.py writes a few kB; a file far beyond that is no calibration.
constexpr qint64 kMaxCalibrationBytes = 1 << 20;

} // namespace

std::optional<HookCalibration> readHookCalibration(const QString& path, QString* why) {
    const auto fail = [why](const QString& message) {
        *why = message;
        return std::nullopt;
    };
    // A regular file of bounded size only: a FIFO or a device would block the read or never end.
    QByteArray text;
    try {
        text = files::readRegularFile(path, kMaxCalibrationBytes, files::Links::Follow);
    } catch (const files::FileError& e) {
        return fail(QString::fromUtf8(e.what()));
    }
    QJsonParseError error;
    const QJsonDocument doc = QJsonDocument::fromJson(text, &error);
    if (!doc.isObject()) {
        return fail(QString("%1: not a hook calibration (%2 at byte %3)")
                        .arg(path, error.errorString())
                        .arg(error.offset));
    }
    const QJsonObject root = doc.object();
    HookCalibration out;
    out.source = path;
    out.backend = root["backend"].toString();
    out.onDevice = root["device"].toString("cpu") != "cpu";
    if (out.backend.isEmpty()) {
        return fail(path + ": backend: expected \"gloo\" or \"nccl\"");
    }
    out.float32UsPerByte = root["fp32_ns_per_byte"].toDouble() * 1e-3;
    if (root.contains("contention")) {
        const double v = root["contention"].toDouble(-1);
        if (!(v >= 0 && v <= 1)) {
            return fail(path + ": contention: expected a share from 0 to 1");
        }
        out.contention = v;
    }
    if (!(out.float32UsPerByte > 0) || out.float32UsPerByte > 1) {
        return fail(path + ": fp32_ns_per_byte: expected a number > 0 (ns per byte)");
    }
    if (root.contains("hooks") && !root["hooks"].isObject()) {
        return fail(path + ": hooks: expected an object of hooks by name");
    }
    const QJsonObject hooks = root["hooks"].toObject();
    for (auto it = hooks.begin(); it != hooks.end(); ++it) {
        if (!it.value().isObject()) {
            return fail(QString("%1: hooks.%2: expected an object").arg(path, it.key()));
        }
        const QJsonObject h = it.value().toObject();
        HookWork w;
        const std::pair<const char*, double*> fields[] = {
            {"pre_ns_per_byte", &w.preUsPerByte},
            {"post_ns_per_byte", &w.postUsPerByte},
            {"collective_factor", &w.collectiveFactor}};
        for (const auto& [key, to] : fields) {
            const QJsonValue v = h[key];
            if (!v.isDouble() || !(v.toDouble() >= 0) || v.toDouble() > 1e6) {
                return fail(QString("%1: hooks.%2.%3: expected a number >= 0 (ns per byte)")
                                .arg(path, it.key(), key));
            }
            // ns to us; the factor is a ratio, at least 1 by the time it is read
            *to = to == &w.collectiveFactor ? std::max(1.0, v.toDouble()) : v.toDouble() * 1e-3;
        }
        out.hooks[it.key()] = w;
    }
    return out;
}

QString storedHookCalibrationPath() {
    return QStandardPaths::writableLocation(QStandardPaths::GenericDataLocation) +
           "/commprof/hook-calibration.json";
}

std::optional<HookCalibration> storedHookCalibration(QString* why) {
    const QString path = storedHookCalibrationPath();
    if (!QFileInfo::exists(path)) {
        why->clear();
        return std::nullopt;
    }
    return readHookCalibration(path, why);
}

} // namespace commprof::results
