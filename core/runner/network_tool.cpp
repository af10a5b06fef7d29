// SPDX-License-Identifier: GPL-3.0-or-later
#include "network_tool.h"

#include "platform/link_emulation.h"
#include "platform/user_namespace.h"

#include <QProcess>

namespace commprof::runner {

QString runNetworkTool(const QString& tool, const QStringList& args,
                       const std::function<void()>& enter) {
    constexpr int kToolTimeoutMs = 15000;
    QProcess p;
    p.setStandardInputFile(QProcess::nullDevice());
    if (enter) {
        p.setChildProcessModifier(enter);
    }
    p.start(platform::networkToolPath(tool), args);
    if (!p.waitForFinished(kToolTimeoutMs)) {
        p.kill();
        p.waitForFinished(1000);
        return QString("%1 %2 did not finish: %3").arg(tool, args.join(' '), p.errorString());
    }
    if (p.exitStatus() != QProcess::NormalExit || p.exitCode() != 0) {
        const QByteArray err = p.readAllStandardError();
        const QString setup = platform::namespaceSetupFailure(err);
        return QString("%1 %2: %3")
            .arg(tool, args.join(' '),
                 setup.isEmpty() ? QString(err).trimmed()
                                 : "cannot enter the namespaces: " + setup);
    }
    return {};
}

} // namespace commprof::runner
