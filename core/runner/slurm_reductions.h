// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// `commprof trace summarize DIR --launcher slurm`: each rank trace reduced on the cluster by a
// task of one job array (`commprof trace reduce FILE --out N.json`), submitted as the Slurm
// launcher submits a cell of its own: a batch script written into the work folder, `sbatch
// --wait --parsable --job-name --output --chdir`, so the command returns when every task has
// ended. The merge then reads the tasks' files here; a task that wrote none is reported with
// its file, its array index, Slurm's state and exit code of it, and the end of its output.

#include <QProcessEnvironment>
#include <QString>
#include <QStringList>

#include <string>
#include <vector>

namespace commprof::runner {

struct SlurmReduceRequest {
    std::vector<std::string> files; // as the local run names them: each task reads one
    QString program;                // commprof, as the nodes see it
    QStringList reduceArgs;         // after `trace reduce FILE --out OUT`: --window, --hta, ...
    QString workDir;                // absolute: the script, the tasks' output, the reductions
    QString partition;              // empty: the cluster's default
    QProcessEnvironment env;
};

struct SlurmReduceTask {
    QString reduced; // where its reduction is, once it ran
    QString failure; // why it wrote none, naming its file and task; empty when it did
};

struct SlurmReduceResult {
    QString problem; // the job did not run (no sbatch, submission refused): nothing was reduced
    QString jobId;
    std::vector<SlurmReduceTask> tasks; // one per file, in the order given
};

// Submits the job array and waits for it (blocking: the command has nothing else to do).
SlurmReduceResult reduceOnSlurm(const SlurmReduceRequest& request);

} // namespace commprof::runner
