// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Where commprof-rank is: $COMMPROF_RANK, else beside the running executable, else on PATH.

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

} // namespace commprof::runner
