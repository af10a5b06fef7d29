// SPDX-License-Identifier: GPL-3.0-or-later
#include "rank_program.h"

#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>
#include <QJsonDocument>
#include <QProcess>
#include <QStandardPaths>

#include <stdexcept>

namespace commprof::runner {

QString defaultRankProgram() {
    if (const QString env = qEnvironmentVariable("COMMPROF_RANK"); !env.isEmpty()) {
        return env;
    }
    const QString beside = QDir(QCoreApplication::applicationDirPath()).filePath("commprof-rank");
    if (QFileInfo(beside).isExecutable()) {
        return beside;
    }
    const QString onPath = QStandardPaths::findExecutable("commprof-rank");
    // Missing everywhere: the path beside is what the error message names.
    return onPath.isEmpty() ? beside : onPath;
}

QJsonObject rankVersion(const QString& program, const QProcessEnvironment& env) {
    QProcess p;
    p.setProcessEnvironment(env);
    p.start(program, {"--version", "--json"});
    if (!p.waitForFinished(30000) || p.exitStatus() != QProcess::NormalExit || p.exitCode() != 0) {
        const QString err = QString(p.readAllStandardError()).trimmed();
        throw std::runtime_error(QString("%1 --version --json failed: %2")
                                     .arg(program, err.isEmpty() ? p.errorString() : err)
                                     .toStdString());
    }
    const QJsonObject v = QJsonDocument::fromJson(p.readAllStandardOutput()).object();
    if (!v.contains("torch_version")) {
        throw std::runtime_error(
            QString("%1 --version --json has no torch_version").arg(program).toStdString());
    }
    return v;
}

QString checkModule(const QString& program, const matrix::TorchScriptModel& model,
                    const QProcessEnvironment& env) {
    constexpr int kLoadMs = 300000; // a GPT of several GB loads in a minute on a slow disk
    QProcess p;
    p.setProcessEnvironment(env);
    p.start(program, matrix::rankArguments(model) << "--check-module");
    if (!p.waitForFinished(kLoadMs)) {
        p.kill();
        p.waitForFinished();
        return QString("%1: %2 --check-module did not finish in %3 s (%4)")
            .arg(model.file, program)
            .arg(kLoadMs / 1000)
            .arg(p.errorString());
    }
    if (p.exitStatus() == QProcess::NormalExit && p.exitCode() == 0) {
        return {};
    }
    // The reason is the first line; a usage error's usage text follows it.
    const QString err = QString::fromUtf8(p.readAllStandardError()).trimmed().section('\n', 0, 0);
    return err.isEmpty() ? QString("%1: %2 --check-module failed (%3)")
                               .arg(model.file, program, p.errorString())
                         : err;
}

} // namespace commprof::runner
