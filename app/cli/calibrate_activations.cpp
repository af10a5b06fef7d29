// SPDX-License-Identifier: GPL-3.0-or-later
#include "cli_common.h"

#include "files/safe_file.h"
#include "matrix/model_description.h"
#include "runner/matrix_runner.h"
#include "runner/rank_pool.h"
#include "runner/rank_program.h"

#include <QDir>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QTemporaryDir>

namespace commprof::cli {
namespace {

constexpr qint64 kMaxRankFileBytes = 256 << 20;
constexpr int kDefaultBatch = 16;
constexpr int kMmapThreshold = 128 << 10;

// One training iteration of the module at this batch on one rank: its peak RSS (VmHWM) in
// bytes, or an error naming what failed.
double peakHostBytes(const matrix::TorchScriptModel& m, int batch, QString& error) {
    QTemporaryDir dir;
    if (!dir.isValid()) {
        error = "cannot make a temporary folder: " + dir.errorString();
        return 0;
    }
    runner::PoolSpec spec;
    spec.program = runner::defaultRankProgram();
    // One thread: what the matrix cells run with on this project's machines, and the
    // intra-op pool's own buffers do not grow with the batch.
    spec.args = matrix::rankArguments(m) +
                QStringList{"--iterations", "1",       "--warmup",     "0",
                            "--threads",    "1",       "--batch-size", QString::number(batch),
                            "--out",        dir.path()};
    spec.worldSize = 1;
    spec.workDir = dir.path();
    // glibc raises its mmap threshold as large blocks are freed, after which freed tensors stay
    // in the heap and the peak depends on the order of earlier frees: between runs at one batch
    // it moved by 8 %. A fixed threshold maps every tensor of 128 KiB or more on its own, so
    // the peak follows the live tensors (three runs within 0.2 %).
    spec.env.insert("MALLOC_MMAP_THRESHOLD_", QString::number(kMmapThreshold));
    spec.deadline = QDeadlineTimer(600000);
    runner::RankPool pool;
    const runner::PoolOutcome out = pool.runBlocking(spec);
    if (!out.success) {
        error = out.reason + (out.ranks.empty() ? QString() : ": " + out.ranks.front().stderrTail);
        return 0;
    }
    const QString file = QDir(dir.path()).filePath("rank0.json");
    try {
        const QJsonObject rank =
            QJsonDocument::fromJson(
                files::readRegularFile(file, kMaxRankFileBytes, files::Links::Refuse))
                .object();
        const double peak = rank.value("peak_host_bytes").toDouble();
        if (peak <= 0) {
            error = file + ": no peak_host_bytes";
        }
        return peak;
    } catch (const files::FileError& e) {
        error = e.detail;
        return 0;
    }
}

} // namespace

int calibrateActivations(const Args& args, const QString& module) {
    matrix::TorchScriptModel m;
    m.file = QFileInfo(module).absoluteFilePath();
    m.description = m.file.chopped(3) + ".json";
    try {
        matrix::readDescription(m);
    } catch (const std::runtime_error& e) {
        return badInput(e);
    }
    // At the input the description was made for: plan scales from there.
    m.tokens = m.describedTokens;
    m.vocab = m.describedVocab;
    m.inputShape = m.describedShape;
    m.classes = m.describedClasses;
    bool ok = true;
    const int batch =
        args.has("--batch-size") ? args.value("--batch-size").toInt(&ok) : kDefaultBatch;
    if (!ok || batch < 1 || batch > (1 << 20)) {
        return args.usageError("--batch-size: expected 1..1048576, got '" +
                               args.value("--batch-size") + "'");
    }
    if (const QString e = runner::checkModule(runner::defaultRankProgram(), m); !e.isEmpty()) {
        return badInput(e);
    }
    // Two runs, at B and 2B: what the process holds regardless of the batch (libtorch, the
    // weights, DDP's buckets, the optimizer's state) cancels, and the growth per sample is the
    // activations and what autograd keeps beside them.
    QString error;
    const double small = peakHostBytes(m, batch, error);
    const double large = error.isEmpty() ? peakHostBytes(m, 2 * batch, error) : 0;
    if (!error.isEmpty()) {
        return notFine(m.file + ": the rank's one-batch run failed: " + error);
    }
    const double perSample = (large - small) / batch;
    if (perSample <= 0) {
        return notFine(QString("%1: the peak RSS did not grow from batch %2 (%3 bytes) to %4 (%5 "
                               "bytes): too small a batch to see the activations; try a larger "
                               "--batch-size")
                           .arg(m.file)
                           .arg(batch)
                           .arg(small, 0, 'f', 0)
                           .arg(2 * batch)
                           .arg(large, 0, 'f', 0));
    }
    QJsonObject doc;
    try {
        doc = QJsonDocument::fromJson(
                  files::readRegularFile(m.description, 64 << 20, files::Links::Follow))
                  .object();
    } catch (const files::FileError& e) {
        return badInput(m.description + ": " + e.detail);
    }
    const QJsonObject measured{
        {"method", "peak RSS (VmHWM) growth of commprof-rank over one training iteration, "
                   "world size 1, one thread, MALLOC_MMAP_THRESHOLD_=131072, from batch B to 2B, "
                   "per sample"},
        {"batch_sizes", QJsonArray{batch, 2 * batch}},
        {"peak_host_bytes", QJsonArray{small, large}},
        {"bytes_per_sample", perSample},
        {"input", doc.value("input")}};
    QJsonObject activations = doc.value("activations").toObject();
    activations["measured"] = measured;
    doc["activations"] = activations;
    if (const QString why = runner::writeJsonAtomically(m.description, doc); !why.isEmpty()) {
        return notFine(why);
    }
    if (args.has("--json")) {
        printJson(QJsonObject{{"description", m.description}, {"measured", measured}});
    } else {
        printText(QString("%1: activations %2 bytes per sample measured (peak RSS %3 MiB at "
                          "batch %4, %5 MiB at %6); written to %7\n")
                      .arg(m.file)
                      .arg(perSample, 0, 'f', 0)
                      .arg(small / 1048576.0, 0, 'f', 1)
                      .arg(batch)
                      .arg(large / 1048576.0, 0, 'f', 1)
                      .arg(2 * batch)
                      .arg(m.description));
    }
    return Ok;
}

} // namespace commprof::cli
