// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// What the matrix fuzzer does with one input, shared with the corpus replay in ctest: parse it
// as the designer and the CLI do, expand it against a machine with one GPU, and plan it. A
// MatrixError is the expected answer to garbage; anything else (an abort, a sanitizer report,
// a hang, a NaN in a plan) is a bug.

#include "feasibility/plan.h"
#include "matrix/matrix.h"

#include <QByteArray>

#include <cmath>
#include <cstdlib>

namespace commprof::fuzz {

// True when the input was accepted.
inline bool exerciseMatrix(const char* data, std::size_t size) {
    // Planning a few thousand cells is plenty here; the limit itself is part of what is tested.
    static const bool bounded = qputenv("COMMPROF_MAX_CELLS", "5000");
    (void)bounded;
    try {
        const matrix::Matrix m =
            matrix::parseMatrix(QByteArray(data, qsizetype(size)), "fuzz.yaml");
        if (m.name.isEmpty() || m.name.contains('/') || m.name.contains("..")) {
            std::abort();
        }
        feasibility::PlanOptions options;
        options.overrides.hostGib = 16.0;
        options.overrides.deviceGib = 8.0;
        options.overrides.gpus = 1;
        options.facts = feasibility::MachineFacts{}; // never probe the machine
        const feasibility::Plan plan = feasibility::makePlan(m, options);
        if (plan.cells.size() > 5000) {
            std::abort();
        }
        for (const auto& pc : plan.cells) {
            if (!std::isfinite(pc.estimate.host.total()) ||
                !std::isfinite(pc.estimate.device.total()) || pc.cell.id.contains('/') ||
                pc.cell.id.contains("..")) {
                std::abort();
            }
        }
        return true;
    } catch (const matrix::MatrixError& e) {
        if (e.file != "fuzz.yaml") {
            std::abort();
        }
        return false;
    }
}

} // namespace commprof::fuzz
