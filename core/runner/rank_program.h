// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Where commprof-rank is: $COMMPROF_RANK, else beside the running executable, else on PATH.

#include "matrix/model_description.h"

#include <QJsonObject>
#include <QProcessEnvironment>
#include <QString>

namespace commprof::runner {

QString defaultRankProgram();

// What PROGRAM --version --json says (libtorch, CUDA, Gloo, NCCL, Kineto). Throws
// std::runtime_error naming the program and its stderr when it does not answer in 30 s, fails,
// or answers without torch_version.
QJsonObject rankVersion(const QString& program,
                        const QProcessEnvironment& env = QProcessEnvironment::systemEnvironment());

// Empty when PROGRAM loads the TorchScript module and finds in it what its description says
// (commprof-rank --check-module); else the rank's reason, naming the file. Run before the first
// cell, and by calibrate before it measures.
QString checkModule(const QString& program, const matrix::TorchScriptModel& model,
                    const QProcessEnvironment& env = QProcessEnvironment::systemEnvironment());

} // namespace commprof::runner
