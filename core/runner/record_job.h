// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// `commprof record` and `commprof confirm` run in the background for the workbench: the commprof
// program beside the workbench (else on PATH) in a process group of its own, so that Cancel ends
// the job's ranks too, with the record's progress read from DIR/capture/progress (written by
// rank 0's capture until the traced window ends). The CLI does the work; this only starts it,
// follows it and says how it ended, so the two can never disagree.

#include "analysis/confirmation.h"

#include <QObject>
#include <QProcess>
#include <QString>
#include <QStringList>
#include <QTimer>

#include <optional>

namespace commprof::runner {

struct RecordRequest {
    QString
        command; // as typed: "python3 train.py --epochs 1" (split as a shell would, no globbing)
    QString outDir;
    int skip = 5, steps = 5;
    int nproc = 0; // 0: the command launches its ranks
};

struct ConfirmRequest {
    QString recordDir;
    QStringList command; // the program and its arguments, word for word
    double bucketCapMb = 25;
    QString hook; // empty: the recorded one
    int rounds = 4;
    int nproc = 0;
    int skip = 5;
    QString workingDirectory; // where the command runs; empty: this program's
};

class RecordJob : public QObject {
    Q_OBJECT
public:
    explicit RecordJob(QObject* parent = nullptr);
    ~RecordJob() override; // ends a job still running

    // The command line `commprof confirm` is started with (for tests and the log).
    static QStringList confirmArguments(const ConfirmRequest& c);

    // What `commprof record` wrote into DIR/capture/command.json (the command as it ran, its
    // ranks and skip) made a confirmation of `candidate` on the same job: what the What if
    // page's "Confirm on this job" starts. nullopt with *error when DIR holds no such file.
    static std::optional<ConfirmRequest> confirmRequestFor(const QString& recordDir,
                                                           double bucketCapMb, const QString& hook,
                                                           QString* error);

    // False with *error when a job runs already or the command is empty or unbalanced in quotes.
    bool startRecord(const RecordRequest& r, QString* error);
    bool startConfirm(const ConfirmRequest& c, QString* error);
    void cancel(); // SIGTERM to the job's process group, SIGKILL after a grace period
    bool running() const { return process_ != nullptr; }
    QString output() const { return output_; } // what the job printed so far (stdout and stderr)

signals:
    // step of last (0 of 0 until the first step).
    void progress(int step, int last, const QString& text);
    // exitCode as docs/cli.md documents record's and confirm's; message: the job's last line.
    void recorded(bool ok, int exitCode, const QString& outDir, const QString& message);
    void confirmed(bool ok, int exitCode, const std::optional<analysis::Confirmation>& result,
                   const QString& message);

private:
    bool start(const QStringList& args, QString* error);
    void poll();
    void onFinished(int exitCode, QProcess::ExitStatus status);

    QProcess* process_ = nullptr;
    QTimer poll_;
    QString outDir_;
    QString workingDirectory_;
    bool confirm_ = false;
    bool cancelled_ = false;
    QString output_;
    QByteArray stdout_;
};

} // namespace commprof::runner
