// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// An experiment matrix as written in configs/experiments/*.yaml, and the cells it expands to.

#include "matrix/launcher.h"
#include "matrix/model_description.h"

#include <QString>
#include <QStringList>

#include <optional>
#include <stdexcept>
#include <utility>
#include <vector>

namespace commprof::matrix {

// Every error names the file, the line and column (1-based), and the offending key.
struct MatrixError : std::runtime_error {
    MatrixError(QString file, int line, int column, QString key, const QString& message);
    QString file;
    int line;
    int column;
    QString key;
};

// A torchscript entry whose description (FILE.json) does not exist yet. The entry holds the
// input that `commprof model describe` needs, so a caller that may run Python describes `model`
// and loads the matrix again; what() is the error every other caller reports, with the command.
struct MissingDescription : MatrixError {
    MissingDescription(const MatrixError& at, TorchScriptModel m)
        : MatrixError(at), model(std::move(m)) {}
    TorchScriptModel model;
};

struct TraceConfig {
    bool enabled = false;
    int firstStep = -1; // -1: the end of warmup
    int steps = 8;
    bool operator==(const TraceConfig&) const = default;
};

struct RunConfig {
    int iterations = 30;
    int warmup = 5;
    // The DDP settings a matrix may vary (matrix/knobs.h), PyTorch DDP's defaults.
    int batchSize = 32;
    double bucketCapMb = 25.0;
    double firstBucketMb = 1.0;
    bool gradientAsBucketView = false;
    bool staticGraph = false;
    QString hook = "allreduce";
    // Where the ranks run (matrix/links.h): loopback, or hosts of ranksPerHost ranks joined by
    // an emulated link of this rate.
    QString link = "loopback";
    int ranksPerHost = 1;
    QString optimizer = "sgd";
    TraceConfig trace;
    double timeoutS = 420;
    bool operator==(const RunConfig&) const = default;
};

// The collectives commprof-rank --sweep knows, in the order it runs them.
inline const QStringList kSweepCollectives{"all_reduce", "all_gather", "reduce_scatter",
                                           "broadcast"};
inline constexpr double kDefaultSweepMaxBytes = 256.0 * 1024 * 1024;

// What a `kind: sweep` entry runs instead of training: commprof-rank --sweep.
struct SweepSpec {
    QStringList collectives = kSweepCollectives;
    double maxBytes = kDefaultSweepMaxBytes; // as written; the plan may cap it (Cell)
    int iterations = 11;                     // timed repetitions per size
    int warmup = 2;
    bool operator==(const SweepSpec&) const = default;
};

// A DDP setting given as a list, in `defaults` or a model entry: one axis of the matrix
// (matrix/knobs.h). Values are spelled as the knob spells them.
struct KnobList {
    QString key;
    std::vector<QString> values;
    std::vector<std::pair<int, int>> marks; // (line, column) of each value
    bool operator==(const KnobList&) const = default;
};

// An entry of `models:`: a model to train under DDP, or (kind: sweep) a collective sweep.
struct ModelSpec {
    QString name;
    QString kind = "ddp";   // ddp | sweep
    QString family = "mlp"; // "torchscript" for an entry that names a module file
    double params = 0;      // 0 for a sweep; a module's from its description
    std::optional<TorchScriptModel> torchscript;
    SweepSpec sweep; // kind sweep only
    // The entry's own DDP settings (matrix/knobs.h), each a value or a list; they replace the
    // defaults' for this model's cells.
    std::vector<KnobList> knobs;
    int line = 0; // where the name is written (1-based), for errors about it
    int column = 0;
    bool isSweep() const { return kind == "sweep"; }
    bool operator==(const ModelSpec&) const = default;
};

// A layer of the matrix: its row of spec/layers.h, and the run settings it overrides.
struct LayerSpec {
    QString name;    // a name of spec::kLayers
    QString backend; // gloo | nccl
    QString device;  // cpu | cuda
    QString interconnect;
    std::optional<RunConfig> overrides; // per-layer defaults, merged over the matrix defaults
    int line = 0;                       // where the name is written (1-based)
    int column = 0;
    bool operator==(const LayerSpec&) const = default;
};

// Cells whose axes take all of these values (axis key -> the value as the axis spells it) are
// left out.
struct ExcludeRule {
    std::vector<std::pair<QString, QString>> match;
    bool operator==(const ExcludeRule&) const = default;
};

// Host and device budgets: explicit GiB, or "auto" (from the probe), minus a reserve.
struct BudgetSpec {
    std::optional<double> hostGib;   // nullopt: auto
    std::optional<double> deviceGib; // nullopt: auto
    double reserveGib = 1.0;
    bool operator==(const BudgetSpec&) const = default;
};

struct Matrix {
    QString file;
    QString name; // reduced like a cell id: safe as a folder name under results/
    RunConfig defaults;
    std::vector<KnobList> defaultKnobLists; // the defaults' settings given as lists
    std::vector<ModelSpec> models;
    std::vector<LayerSpec> layers;
    std::vector<int> worldSizes;
    std::vector<std::pair<int, int>> worldSizeMarks; // (line, column) of each entry
    int repeats = 1;
    std::vector<ExcludeRule> excludes;
    BudgetSpec budget;
    LauncherSpec launcher;
    KnobList writtenLinks; // every value of `link` written anywhere, for errors about cells
    bool operator==(const Matrix&) const = default;
};

struct Cell {
    QString id; // safe as a single path component
    ModelSpec model;
    LayerSpec layer;
    int worldSize = 1;
    int repeat = 0;
    RunConfig config;
    // A sweep's largest message: the entry's max_bytes, or less where the plan capped it to
    // the memory budget (then sweepCappedFrom holds what was asked for).
    double sweepMaxBytes = 0;
    std::optional<double> sweepCappedFrom;
    // Every axis' value for this cell, outermost first (matrix/axes.h): what exclude rules
    // matched and what the plots tell series apart by.
    std::vector<std::pair<QString, QString>> axes;
    bool isSweep() const { return model.isSweep(); }
    bool operator==(const Cell&) const = default;
};

// The most cells a matrix may expand to (COMMPROF_MAX_CELLS overrides it).
qint64 defaultMaxCells();

// What the machine allows, for the checks that depend on it.
struct MachineLimits {
    int gpus = 0;
    qint64 maxCells = defaultMaxCells();
    QString linkRefusal; // why links cannot be emulated here; empty: they can
};

Matrix loadMatrix(const QString& path); // throws MatrixError
Matrix parseMatrix(const QByteArray& yaml, const QString& fileName);
std::vector<Cell> expand(const Matrix& m, const MachineLimits& limits); // throws MatrixError

// Lower-case letters, digits and '_' only: a name from YAML can never leave the results dir.
QString sanitizeId(const QString& text);

} // namespace commprof::matrix
