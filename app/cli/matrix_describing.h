// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// `plan` and `run` on a matrix whose torchscript entry has no description beside its FILE.pt
// yet: the entry already holds the input that `model describe` needs, so the module is
// described here (Python's PyTorch, seconds) and the matrix read again. Core reads the matrix
// and runs no process: it throws matrix::MissingDescription, and this layer acts on it.

#include "matrix/matrix.h"

#include <QStringList>

namespace commprof::cli {

// Describes m.file at the matrix entry's input into m.description, saying so on stderr in one
// line. False where it could not (no Python or torch, a module Python refuses, a folder it
// cannot write, Python past its time), after saying why, with nothing left behind.
bool describeForMatrix(const matrix::TorchScriptModel& m);

// load() (a matrix read), each missing description written once and load() tried again. Where
// one cannot be written, or is still missing after, the MissingDescription goes on: a
// MatrixError whose message names the command, reported as before.
template <typename Load> auto loadDescribing(Load load) -> decltype(load()) {
    QStringList described;
    for (;;) {
        try {
            return load();
        } catch (const matrix::MissingDescription& e) {
            if (described.contains(e.model.description) || !describeForMatrix(e.model)) {
                throw;
            }
            described << e.model.description;
        }
    }
}

} // namespace commprof::cli
