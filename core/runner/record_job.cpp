// SPDX-License-Identifier: GPL-3.0-or-later
#include "record_job.h"

#include "inputs/confirmation_json.h"
#include "spec/mapped.h"

#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

#include <csignal>
#include <unistd.h>

namespace commprof::runner {
namespace {

constexpr int kPollMs = 250;
constexpr int kGraceMs = 5000;

QString lastLine(const QString& text) {
    const QStringList lines = text.split('\n', Qt::SkipEmptyParts);
    return lines.isEmpty() ? QString() : lines.last().trimmed();
}

// The commprof program used: COMMPROF_CLI, else the one beside this program, else "commprof".
QString cliProgram() {
    const QString chosen = qEnvironmentVariable("COMMPROF_CLI");
    if (!chosen.isEmpty()) {
        return chosen;
    }
    const QString beside = QDir(QCoreApplication::applicationDirPath()).filePath("commprof");
    return QFileInfo(beside).isExecutable() ? beside : QString("commprof");
}

QStringList recordArguments(const RecordRequest& r) {
    QStringList a{"record",
                  "--out",
                  r.outDir,
                  "--skip",
                  QString::number(r.skip),
                  "--steps",
                  QString::number(r.steps)};
    if (r.nproc > 0) {
        a << "--nproc" << QString::number(r.nproc);
    }
    return a << "--" << QProcess::splitCommand(r.command);
}

} // namespace

RecordJob::RecordJob(QObject* parent) : QObject(parent) {
    poll_.setInterval(kPollMs);
    connect(&poll_, &QTimer::timeout, this, &RecordJob::poll);
}

RecordJob::~RecordJob() {
    if (process_) {
        ::kill(-pid_t(process_->processId()), SIGKILL);
        process_->waitForFinished(kGraceMs);
    }
}

QStringList RecordJob::confirmArguments(const ConfirmRequest& c) {
    QStringList a{"confirm",         QDir(c.recordDir).absolutePath(),
                  "--bucket-cap-mb", QString::number(c.bucketCapMb, 'g', 17),
                  "--rounds",        QString::number(c.rounds),
                  "--skip",          QString::number(c.skip),
                  "--json"};
    if (!c.hook.isEmpty()) {
        a << "--hook" << c.hook;
    }
    if (c.nproc > 0) {
        a << "--nproc" << QString::number(c.nproc);
    }
    return a << "--" << c.command;
}

std::optional<ConfirmRequest> RecordJob::confirmRequestFor(const QString& recordDir,
                                                           double bucketCapMb, const QString& hook,
                                                           QString* error) {
    const QString path = QDir(recordDir).filePath("capture/command.json");
    QFile f(path);
    const QJsonObject o = f.open(QIODevice::ReadOnly)
                              ? QJsonDocument::fromJson(f.read(1 << 20)).object()
                              : QJsonObject();
    const auto words = spec::mapped<QStringList>(o["command"].toArray(),
                                                 [](const QJsonValue& w) { return w.toString(); });
    if (words.isEmpty()) {
        *error = path + ": missing or not written by commprof record";
        return std::nullopt;
    }
    ConfirmRequest c;
    c.recordDir = recordDir;
    c.command = words;
    c.bucketCapMb = bucketCapMb;
    c.hook = hook;
    c.nproc = o["nproc"].toInt();
    c.skip = o["skip"].toInt(5);
    c.workingDirectory = o["working_directory"].toString();
    return c;
}

bool RecordJob::startRecord(const RecordRequest& r, QString* error) {
    if (QProcess::splitCommand(r.command).isEmpty()) {
        *error = "No command to record: type the command that starts the training";
        return false;
    }
    outDir_ = r.outDir;
    confirm_ = false;
    workingDirectory_.clear();
    return start(recordArguments(r), error);
}

bool RecordJob::startConfirm(const ConfirmRequest& c, QString* error) {
    if (c.command.isEmpty()) {
        *error = "No command to confirm on: type the command that starts the training";
        return false;
    }
    outDir_ = c.recordDir;
    confirm_ = true;
    workingDirectory_ = c.workingDirectory;
    return start(confirmArguments(c), error);
}

bool RecordJob::start(const QStringList& args, QString* error) {
    if (process_) {
        *error = "A job is running already";
        return false;
    }
    process_ = new QProcess(this);
    // A process group of its own: Cancel ends commprof and every rank it started.
    process_->setChildProcessModifier([] { ::setpgid(0, 0); });
    process_->setStandardInputFile(QProcess::nullDevice());
    if (!workingDirectory_.isEmpty()) {
        process_->setWorkingDirectory(workingDirectory_);
    }
    connect(process_, &QProcess::readyReadStandardOutput, this, [this] {
        const QByteArray b = process_->readAllStandardOutput();
        stdout_ += b;
        output_ += QString::fromLocal8Bit(b);
    });
    connect(process_, &QProcess::readyReadStandardError, this,
            [this] { output_ += QString::fromLocal8Bit(process_->readAllStandardError()); });
    connect(process_, &QProcess::finished, this, &RecordJob::onFinished);
    cancelled_ = false;
    output_.clear();
    stdout_.clear();
    process_->start(cliProgram(), args);
    if (!process_->waitForStarted(10000)) {
        *error = QString("%1 could not be started: %2").arg(cliProgram(), process_->errorString());
        process_->deleteLater();
        process_ = nullptr;
        return false;
    }
    emit progress(0, 0, confirm_ ? "Running the job under both settings" : "Starting the job");
    poll_.start();
    return true;
}

void RecordJob::cancel() {
    if (!process_) {
        return;
    }
    cancelled_ = true;
    const pid_t group = pid_t(process_->processId());
    ::kill(-group, SIGTERM);
    QTimer::singleShot(kGraceMs, this, [this, group] {
        if (process_ && pid_t(process_->processId()) == group) {
            ::kill(-group, SIGKILL);
        }
    });
}

void RecordJob::poll() {
    if (confirm_) {
        const QString line = lastLine(output_);
        if (line.startsWith("commprof: confirm: round") || line.startsWith("confirm: round")) {
            emit progress(0, 0, line);
        }
        return;
    }
    QFile f(QDir(outDir_).filePath("capture/progress"));
    if (!f.open(QIODevice::ReadOnly)) {
        return;
    }
    const QStringList parts = QString::fromLatin1(f.readAll()).split(' ', Qt::SkipEmptyParts);
    if (parts.size() == 2) {
        const int step = parts[0].toInt(), last = parts[1].toInt();
        emit progress(step, last,
                      step >= last ? QString("Window recorded; waiting for the job to end")
                                   : QString("Step %1 of %2").arg(step).arg(last));
    }
}

void RecordJob::onFinished(int exitCode, QProcess::ExitStatus status) {
    poll_.stop();
    process_->deleteLater();
    process_ = nullptr;
    const bool ok = !cancelled_ && status == QProcess::NormalExit && exitCode == 0;
    QString message = cancelled_ ? QString("Cancelled") : lastLine(output_);
    if (!confirm_) {
        emit recorded(ok, status == QProcess::NormalExit ? exitCode : -1, outDir_, message);
        return;
    }
    std::optional<analysis::Confirmation> result;
    if (ok) {
        result = inputs::confirmationFromJson(QJsonDocument::fromJson(stdout_).object());
        if (!result) {
            message = "commprof confirm printed no result";
        }
    }
    emit confirmed(ok && result, status == QProcess::NormalExit ? exitCode : -1, result, message);
}

} // namespace commprof::runner
