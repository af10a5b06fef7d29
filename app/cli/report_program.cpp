// SPDX-License-Identifier: GPL-3.0-or-later
#include "report_program.h"

#include "cli_common.h"

#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QFileInfo>

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <vector>

namespace commprof::cli {

namespace {
constexpr const char* kReportProgram = "commprof-report";
}

QString reportProgram() {
    const QDir dir(QCoreApplication::applicationDirPath());
    const QString beside = dir.filePath(kReportProgram);
    for (const QString& path :
         {beside,
          QDir::cleanPath(dir.filePath(QString("../libexec/commprof/") + kReportProgram))}) {
        if (QFileInfo(path).isExecutable()) {
            return path;
        }
    }
    return beside;
}

int execReport(const QStringList& args) {
    const QString program = reportProgram();
    std::vector<QByteArray> words{QFile::encodeName(program)};
    for (const QString& a : args) {
        words.push_back(a.toLocal8Bit());
    }
    std::vector<char*> argv;
    for (QByteArray& w : words) {
        argv.push_back(w.data());
    }
    argv.push_back(nullptr);
    std::fflush(stdout);
    std::fflush(stderr);
    ::execv(argv.front(), argv.data());
    const int error = errno;
    return notFine(QString("report: cannot run %1 (%2): it draws the figures and is installed with "
                           "commprof, beside it or in ../libexec/commprof/")
                       .arg(program, QString::fromLocal8Bit(std::strerror(error))));
}

} // namespace commprof::cli
