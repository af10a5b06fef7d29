// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// tools/model_export.py, compiled into this program and run by PyTorch's Python: it scripts a
// model (`model export`) or describes a module the user scripted (`model describe`, and `plan`
// or `run` for a matrix entry whose description is missing), so this program stays free of torch.
//
// `plan` and `run` on a matrix whose torchscript entry has no description beside its FILE.pt
// yet: the entry already holds the input that `model describe` needs, so the module is
// described here (Python's PyTorch, seconds) and the matrix read again. Core reads the matrix
// and runs no process: it throws matrix::MissingDescription, and this layer acts on it.

#include "matrix/matrix.h"

#include <QString>
#include <QStringList>

namespace commprof::cli {

// How the exporter's own messages reach the user.
enum class ExporterOutput {
    Forwarded, // as they come: the user ran the command that runs it
    OnFailure, // held and shown only when it fails: another command runs it on its own, and its
               // stdout may be that command's JSON
};

// Runs the exporter script with `scriptArgs`; `what` names the command in messages. Ok, or
// BadInput where the script exits 2 (a bad spec or file), or NotFine (3: no torch for Python,
// Python missing, crashed or past its time).
int runExporter(const QString& what, const QStringList& scriptArgs, ExporterOutput output);

// `model describe FILE.pt flags...`: FILE.pt opened as a regular file and its zip directory's
// declared sizes checked before Python unpacks it (commprof-rank's bound), then described;
// `what` starts each message (the command the user ran, or what a plan is doing).
int describeModule(const QString& what, const QString& file, const QStringList& flags,
                   ExporterOutput output);

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
