// SPDX-License-Identifier: GPL-3.0-or-later
#include "matrix.h"

#include "files/safe_file.h"
#include "matrix/axes.h"
#include "matrix/cell_stream.h"
#include "matrix/exclusion.h"
#include "matrix/input_bounds.h"
#include "matrix/knobs.h"
#include "matrix/links.h"
#include "matrix/spec_names.h"
#include "matrix/yaml_fields.h"
#include "matrix/yaml_input.h"
#include "spec/mapped.h"

#include <QDir>
#include <QFileInfo>
#include <QHash>
#include <QMap>
#include <QRegularExpression>
#include <QSet>

#include <algorithm>
#include <cmath>
#include <unordered_set>

namespace commprof::matrix {
namespace {

// The workbench lists 100k cells comfortably; a million is the most one machine can mean.
constexpr qint64 kDefaultMaxCells = 1000000;

// Upper bounds of the numeric fields: far above any real run, low enough that no arithmetic
// made from them (deadlines in ms, bucket sizes in bytes) overflows.
constexpr double kMaxTimeoutS = 7 * 24 * 3600.0;
constexpr double kMaxGib = 1.0e6;

QStringList runKeys() {
    return QStringList{"iterations", "warmup", "optimizer", "trace", "timeout_s"} + knobKeys();
}

// `lists` receives the DDP settings given as lists (and the config their first value); null
// where lists are not allowed (a layer's overrides).
void readRunConfig(const Ctx& c, const YAML::Node& n, RunConfig& r, const QString& where,
                   std::vector<KnobList>* lists) {
    requireMap(c, n, where);
    checkKeys(c, n, runKeys(), where);
    readIfGiven(c, n, "iterations", r.iterations, integer, 1, kMaxCount);
    readIfGiven(c, n, "warmup", r.warmup, integer, 0, kMaxCount);
    for (const Knob& k : knobs()) {
        if (const YAML::Node v = n[k.key.toStdString()]) {
            KnobList l = readKnob(c, k, v, lists != nullptr, where);
            k.apply(r, l.values.front());
            // Where ranks run, when not on loopback, is an axis even of one value: named in
            // ids, cell.json's axes and the plots' series.
            const bool named = k.sweepToo && l.values.front() != k.valueOf(RunConfig{});
            if (lists && (l.values.size() > 1 || named)) {
                lists->push_back(std::move(l));
            }
        }
    }
    readIfGiven(c, n, "optimizer", r.optimizer, oneOf, QStringList{"sgd", "adam"});
    readIfGiven(c, n, "timeout_s", r.timeoutS, positive, kMaxTimeoutS);
    if (const YAML::Node t = n["trace"]) {
        requireMap(c, t, "trace");
        checkKeys(c, t, {"enabled", "first_step", "steps"}, "trace");
        readIfGiven(c, t, "enabled", r.trace.enabled, boolean);
        readIfGiven(c, t, "first_step", r.trace.firstStep, integer, 0, kMaxCount);
        readIfGiven(c, t, "steps", r.trace.steps, integer, 1, kMaxCount);
    }
    c.failIf(r.warmup >= r.iterations, n["warmup"] ? n["warmup"] : n, "warmup",
             QString("warmup (%1) must be below iterations (%2)").arg(r.warmup).arg(r.iterations));
}

std::optional<double> budgetValue(const Ctx& c, const YAML::Node& n, const QString& key) {
    if (n.IsScalar() && n.Scalar() == "auto") {
        return std::nullopt;
    }
    return positive(c, n, key, kMaxGib);
}

// A Slurm name (partition, account): it lands in a batch script, so only plain characters.
QString slurmName(const Ctx& c, const YAML::Node& n, const QString& key) {
    QString v = str(c, n, key);
    static const QRegularExpression plain("^[A-Za-z0-9_.-]{1,64}$");
    c.failIf(!plain.match(v).hasMatch(), n, key,
             QString("'%1' is not a Slurm name (1 to 64 of A-Z a-z 0-9 _ . -)").arg(v));
    return v;
}

// Slurm's --time: whole minutes, or "[D-]HH:MM:SS". In seconds, at most kMaxTimeoutS.
int timeLimit(const Ctx& c, const YAML::Node& n, const QString& key) {
    const QString text = str(c, n, key);
    static const QRegularExpression clock("^(?:(\\d{1,2})-)?(\\d{1,3}):(\\d{2}):(\\d{2})$");
    double seconds = -1;
    if (const QRegularExpressionMatch m = clock.match(text); m.hasMatch()) {
        if (m.captured(3).toInt() < 60 && m.captured(4).toInt() < 60) {
            seconds = m.captured(1).toDouble() * 86400 + m.captured(2).toDouble() * 3600 +
                      m.captured(3).toDouble() * 60 + m.captured(4).toDouble();
        }
    } else {
        bool ok = false;
        const double minutes = text.toDouble(&ok);
        seconds = ok && minutes == std::floor(minutes) ? minutes * 60 : -1;
    }
    c.failIf(seconds <= 0 || seconds > kMaxTimeoutS, n, key,
             QString("expected whole minutes or [D-]HH:MM:SS, above 0 and at most 7 days, got '%1'")
                 .arg(text));
    return int(seconds);
}

// Options commprof gives sbatch and srun itself: an extra argument may not change them.
const QStringList kOwnSlurmOptions =
    QString("--job-name -J --comment --output -o --error -e --chdir -D --wait -W --parsable "
            "--nodes -N --ntasks -n --ntasks-per-node --time -t --partition -p --account -A "
            "--export --wrap --array -a --label -l --unbuffered -u --kill-on-bad-exit -K --jobid "
            "--nodelist -w --verbose -v --quiet -Q")
        .split(' ');

QString extraArg(const Ctx& c, const YAML::Node& n) {
    QString a = str(c, n, "extra_args");
    static const QRegularExpression plain("^-[^\\s\"'\\\\]{1,199}$");
    c.failIf(!plain.match(a).hasMatch(), n, "extra_args",
             QString("'%1' is not one option (it starts with '-', has no spaces, quotes or "
                     "backslashes, and is at most 200 characters)")
                 .arg(a));
    const QString name = a.startsWith("--") ? a.section('=', 0, 0) : a.left(2);
    c.failIf(kOwnSlurmOptions.contains(name), n, "extra_args",
             QString("%1 is set by commprof (use the launcher's own keys: partition, account, "
                     "nodes, ntasks_per_node, time_limit)")
                 .arg(name));
    return a;
}

constexpr int kMaxExtraArgs = 64;
constexpr int kMaxNodes = 1024;

void readLauncher(const Ctx& c, const YAML::Node& n, Matrix& m) {
    requireMap(c, n, "launcher");
    checkKeys(c, n,
              {"kind", "partition", "nodes", "ntasks_per_node", "time_limit", "account",
               "extra_args", "rendezvous_port"},
              "launcher");
    LauncherSpec& l = m.launcher;
    if (n["kind"]) {
        l.kind = oneOf(c, n["kind"], "kind", {"local", "slurm"}) == "slurm" ? LauncherKind::Slurm
                                                                            : LauncherKind::Local;
    }
    readIfGiven(c, n, "partition", l.partition, slurmName);
    readIfGiven(c, n, "account", l.account, slurmName);
    c.failIf(n["nodes"] && n["ntasks_per_node"], n["ntasks_per_node"], "ntasks_per_node",
             "give nodes or ntasks_per_node, not both: each decides where the ranks go");
    readIfGiven(c, n, "nodes", l.nodes, integer, 1, kMaxNodes);
    readIfGiven(c, n, "ntasks_per_node", l.ntasksPerNode, integer, 1, kMaxNodes);
    readIfGiven(c, n, "rendezvous_port", l.rendezvousPort, integer, 1024, 65535 - 8);
    if (const YAML::Node extra = n["extra_args"]) {
        requireSeq(c, extra, "extra_args");
        c.failIf(extra.size() > std::size_t(kMaxExtraArgs), extra, "extra_args",
                 QString("at most %1 arguments").arg(kMaxExtraArgs));
        for (const YAML::Node& a : extra) {
            l.extraArgs << extraArg(c, a);
        }
    }
    if (n["time_limit"]) {
        l.timeLimitS = timeLimit(c, n["time_limit"], "time_limit");
        // Slurm would end a cell before its own deadline, and call it a time-out of Slurm's.
        double longest = m.defaults.timeoutS;
        for (const LayerSpec& layer : m.layers) {
            if (layer.overrides) {
                longest = std::max(longest, layer.overrides->timeoutS);
            }
        }
        c.failIf(*l.timeLimitS < longest, n["time_limit"], "time_limit",
                 QString("%1 s is below the longest timeout_s of the matrix (%2 s): Slurm would "
                         "end a cell before its deadline; raise time_limit or lower timeout_s")
                     .arg(*l.timeLimitS)
                     .arg(longest));
    }
}

// The message sizes a sweep may go up to: at least one float, at most 16 GiB.
constexpr double kMaxSweepBytes = 16.0 * 1024 * 1024 * 1024;

SweepSpec readSweep(const Ctx& c, const YAML::Node& n) {
    SweepSpec s;
    if (const YAML::Node k = n["collectives"]) {
        s.collectives.clear();
        for (const YAML::Node& v : requireSeq(c, k, "collectives")) {
            const QString kind = oneOf(c, v, "collectives", kSweepCollectives);
            c.failIf(s.collectives.contains(kind), v, "collectives",
                     QString("'%1' is listed twice").arg(kind));
            s.collectives << kind;
        }
        c.failIf(s.collectives.isEmpty(), k, "collectives", "at least one collective is needed");
    }
    if (n["max_bytes"]) {
        s.maxBytes = number(c, n["max_bytes"], "max_bytes");
        c.failIf(s.maxBytes < 8 || s.maxBytes > kMaxSweepBytes, n["max_bytes"], "max_bytes",
                 QString("expected 8 .. %1 bytes, got %2")
                     .arg(kMaxSweepBytes, 0, 'f', 0)
                     .arg(QString::fromStdString(n["max_bytes"].Scalar())));
    }
    readIfGiven(c, n, "iterations", s.iterations, integer, 1, 1000);
    readIfGiven(c, n, "warmup", s.warmup, integer, 0, 1000);
    return s;
}

// A setting that is an axis (a list in defaults) or a model's own cannot be a layer's too: the
// cell would silently take one of the two.
void checkOverridesLeaveAxesAlone(const Ctx& c, const Matrix& m, const YAML::Node& overrides) {
    for (const Knob& k : knobs()) {
        const YAML::Node v = overrides[k.key.toStdString()];
        if (!v) {
            continue;
        }
        c.failIf(findList(m.defaultKnobLists, k.key), v, k.key,
                 QString("%1 is a list in defaults, an axis of the matrix: a layer cannot override "
                         "it (exclude the cells instead)")
                     .arg(k.key));
        for (const ModelSpec& model : m.models) {
            c.failIf(findList(model.knobs, k.key), v, k.key,
                     QString("%1 is set by model '%2' (line %3): a layer cannot override it too")
                         .arg(k.key, model.name)
                         .arg(model.line));
        }
    }
}

// `input: {shape: [3, 64, 64]}` with `target: {classes: 1000}`, or `input: {tokens: 128,
// vocab: 32000}` (a next-token loss, no target); the description beside the file sizes it.
TorchScriptModel readTorchScript(const Ctx& c, const YAML::Node& n) {
    TorchScriptModel t;
    const QString path = str(c, n["torchscript"], "torchscript");
    c.failIf(path.isEmpty() || !path.endsWith(".pt"), n["torchscript"], "torchscript",
             "expected a FILE.pt (commprof model export)");
    t.file = QFileInfo(QFileInfo(c.file).absoluteDir(), path).absoluteFilePath();
    t.description = t.file.left(t.file.size() - 3) + ".json";
    c.failIf(!n["input"], n, "input",
             "a torchscript model needs input: {shape: [C, H, W]} or {tokens: N, vocab: V}");
    const YAML::Node input = requireMap(c, n["input"], "input");
    checkKeys(c, input, {"shape", "tokens", "vocab"}, "a model's input");
    if (input["shape"]) {
        c.failIf(input["tokens"] || input["vocab"], input, "input",
                 "either shape or tokens and vocab, not both");
        for (const YAML::Node& d : requireSeq(c, input["shape"], "shape")) {
            t.inputShape.push_back(integer(c, d, "shape", 1));
        }
        c.failIf(t.inputShape.empty(), input["shape"], "shape", "expected at least one dimension");
        c.failIf(!n["target"], n, "target", "an image input needs target: {classes: N}");
        const YAML::Node target = requireMap(c, n["target"], "target");
        checkKeys(c, target, {"classes"}, "a model's target");
        c.failIf(!target["classes"], target, "classes", "target needs classes");
        t.classes = integer(c, target["classes"], "classes", 1);
    } else {
        c.failIf(!input["tokens"] || !input["vocab"], input, "input",
                 "expected shape, or tokens and vocab");
        t.tokens = integer(c, input["tokens"], "tokens", 1);
        t.vocab = integer(c, input["vocab"], "vocab", 2, kMaxVocab);
        c.failIf(bool(n["target"]), n["target"], "target",
                 "token input trains on the next token: no target");
    }
    readIfGiven(c, n, "find_unused_parameters", t.findUnusedParameters, boolean);
    try {
        readDescription(t);
    } catch (const std::runtime_error& e) {
        const YAML::Mark at = n["torchscript"].Mark();
        const MatrixError error(c.file, at.line + 1, at.column + 1, "torchscript",
                                QString::fromStdString(e.what()));
        // Absent, not a link to nowhere nor a file that is there but wrong: describing writes it.
        if (!QFileInfo::exists(t.description) && !files::isLink(t.description)) {
            throw MissingDescription(error, t);
        }
        throw error;
    }
    return t;
}

// Every value a DDP setting takes in the matrix's training cells, in the order first met: a
// model's value or list, else the defaults' list, else each layer's setting.
QStringList valuesTaken(const Matrix& m, const Knob& k) {
    QStringList out;
    QSet<QString> seen;
    const auto add = [&](const QString& v) {
        if (!seen.contains(v)) {
            seen.insert(v);
            out << v;
        }
    };
    for (const ModelSpec& model : m.models) {
        if (model.isSweep()) {
            continue;
        }
        if (const KnobList* list = knobListOf(m, model, k.key)) {
            std::for_each(list->values.begin(), list->values.end(), add);
            continue;
        }
        for (const LayerSpec& l : m.layers) {
            add(k.valueOf(l.overrides ? *l.overrides : m.defaults));
        }
    }
    return out;
}

// An exclude rule's value that no cell has would match nothing, silently, like a misspelt
// model: refused where it is written.
void requireTaken(const Ctx& c, const YAML::Node& n, const QString& key, const QString& value,
                  const QStringList& taken) {
    if (!taken.contains(value)) {
        constexpr int kNamed = 12; // a 1,000-value list is not worth printing whole
        QString named = taken.mid(0, kNamed).join(", ");
        if (taken.size() > kNamed) {
            named += QString(" and %1 more").arg(taken.size() - kNamed);
        }
        c.fail(n, key,
               taken.isEmpty()
                   ? QString("no cell has a %1 (only sweeps are listed): the rule matches nothing")
                         .arg(key)
                   : QString("no cell has %1 %2 (the matrix's: %3): the rule matches nothing")
                         .arg(key, value, named));
    }
}

ModelSpec readModel(const Ctx& c, const YAML::Node& n) {
    ModelSpec s;
    const auto readKnobs = [&] {
        for (const Knob& k : knobs()) {
            if (const YAML::Node v = n[k.key.toStdString()]) {
                s.knobs.push_back(readKnob(c, k, v, true, "a model"));
            }
        }
    };
    readIfGiven(c, n, "kind", s.kind, oneOf, QStringList{"ddp", "sweep"});
    if (s.isSweep()) {
        checkKeys(c, n, {"name", "kind", "collectives", "max_bytes", "iterations", "warmup"},
                  "a sweep (kind: sweep)");
        c.failIf(!n["name"], n, "models", "a sweep needs a name");
        s.sweep = readSweep(c, n);
    } else if (n["torchscript"]) {
        checkKeys(c, n,
                  QStringList{"name", "kind", "torchscript", "input", "target",
                              "find_unused_parameters"} +
                      knobKeys(),
                  "a torchscript model");
        readKnobs();
        c.failIf(!n["name"], n, "models", "each model needs a name");
        s.torchscript = readTorchScript(c, n);
        s.family = qName(spec::kTorchScriptFamily);
        s.params = s.torchscript->paramsTotal;
    } else {
        checkKeys(c, n, QStringList{"name", "kind", "family", "params"} + knobKeys(), "a model");
        readKnobs();
        c.failIf(!n["name"] || !n["params"], n, "models", "each model needs name and params");
        readIfGiven(c, n, "family", s.family, oneOf, modelFamilyList());
        s.params = number(c, n["params"], "params");
        c.failIf(s.params < 1e4 || s.params > 2e9, n["params"], "params",
                 "expected 1e4 .. 2e9 parameters");
    }
    s.name = str(c, n["name"], "name");
    s.line = n["name"].Mark().line + 1;
    s.column = n["name"].Mark().column + 1;
    return s;
}

// The document is a mapping with the matrix's keys; a run setting at its top is said to belong
// to the models.
void checkRoot(const Ctx& c, const YAML::Node& root) {
    if (!root.IsMap()) {
        throw MatrixError(c.file, 1, 1, "document",
                          "expected a mapping with name, models, layers, world_sizes");
    }
    // A run setting written beside world_sizes (where `link` reads naturally) belongs to the
    // models: said, not left to the generic refusal.
    for (auto it = root.begin(); it != root.end(); ++it) {
        const QString key = QString::fromStdString(it->first.Scalar());
        c.failIf(it->first.IsScalar() && runKeys().contains(key), it->first, key,
                 QString("unknown key in the matrix: '%1' is a run setting of the models; write "
                         "it under defaults (for every model) or in a model's entry")
                     .arg(key));
    }
    checkKeys(c, root,
              {"name", "defaults", "models", "layers", "world_sizes", "repeats", "exclude",
               "budget", "launcher"},
              "the matrix");
}

bool hasModel(const Matrix& m, const QString& name) {
    return std::ranges::find(m.models, name, &ModelSpec::name) != m.models.end();
}

// The models, each named once and making a cell id part no other model makes.
void readModels(const Ctx& c, const YAML::Node& root, Matrix& m) {
    QMap<QString, ModelSpec> modelIds; // the id part each model makes -> the model
    for (const YAML::Node& n : requireSeq(c, root["models"], "models")) {
        requireMap(c, n, "models");
        ModelSpec s = readModel(c, n);
        c.failIf(hasModel(m, s.name), n["name"], "name",
                 QString("model '%1' is listed twice").arg(s.name));
        const QString id = sanitizeId(s.name);
        if (const auto other = modelIds.find(id); other != modelIds.end()) {
            c.fail(n["name"], "name",
                   QString("model '%1' makes the same cell id part '%2' as model '%3' at line %4; "
                           "rename one")
                       .arg(s.name, id, other->name)
                       .arg(other->line));
        }
        modelIds.insert(id, s);
        m.models.push_back(s);
    }
    c.failIf(m.models.empty(), root["models"], "models", "at least one model is needed");
}

// One layer: a known one, listed once, whose backend and device (where written) are its own.
LayerSpec readLayer(const Ctx& c, const YAML::Node& n, const Matrix& m) {
    requireMap(c, n, "layers");
    checkKeys(c, n, {"name", "backend", "device", "overrides"}, "a layer");
    c.failIf(!n["name"], n, "layers", "each layer needs a name");
    const QString name = str(c, n["name"], "name");
    const spec::Layer* known = spec::findLayer(name.toStdString());
    c.failIf(
        !known, n["name"], "name",
        QString("unknown layer '%1' (%2)").arg(name, QString::fromStdString(spec::layerNames())));
    c.failIf(std::ranges::find(m.layers, name, &LayerSpec::name) != m.layers.end(), n["name"],
             "name", QString("layer '%1' is listed twice").arg(name));
    const YAML::Mark at = n["name"].Mark();
    LayerSpec l{
        qName(known->name), qName(known->backend), qName(known->device), qName(known->interconnect),
        std::nullopt,       at.line + 1,           at.column + 1};
    c.failIf(n["backend"] && str(c, n["backend"], "backend") != l.backend, n["backend"], "backend",
             QString("layer %1 runs on %2").arg(name, l.backend));
    c.failIf(n["device"] && str(c, n["device"], "device") != l.device, n["device"], "device",
             QString("layer %1 runs on %2").arg(name, l.device));
    if (n["overrides"]) {
        RunConfig o = m.defaults;
        readRunConfig(c, n["overrides"], o, "overrides", nullptr);
        checkOverridesLeaveAxesAlone(c, m, n["overrides"]);
        l.overrides = o;
    }
    return l;
}

void readLayers(const Ctx& c, const YAML::Node& root, Matrix& m) {
    for (const YAML::Node& n : requireSeq(c, root["layers"], "layers")) {
        m.layers.push_back(readLayer(c, n, m));
    }
    c.failIf(m.layers.empty(), root["layers"], "layers", "at least one layer is needed");
}

// Whole, distinct world sizes of one host, with where each was written.
void readWorldSizes(const Ctx& c, const YAML::Node& root, Matrix& m) {
    for (const YAML::Node& n : requireSeq(c, root["world_sizes"], "world_sizes")) {
        const double v = number(c, n, "world_sizes");
        c.failIf(v < 1 || v != std::floor(v), n, "world_sizes",
                 QString("world size must be a positive integer, got %1")
                     .arg(QString::fromStdString(n.Scalar())));
        c.failIf(v > 1024, n, "world_sizes", "world size above 1024 ranks on one host");
        c.failIf(std::find(m.worldSizes.begin(), m.worldSizes.end(), int(v)) != m.worldSizes.end(),
                 n, "world_sizes", QString("world size %1 is listed twice").arg(int(v)));
        m.worldSizes.push_back(int(v));
        m.worldSizeMarks.emplace_back(n.Mark().line + 1, n.Mark().column + 1);
    }
    c.failIf(m.worldSizes.empty(), root["world_sizes"], "world_sizes",
             "at least one world size is needed");
}

// One exclude rule: each value one the matrix takes, spelled as its axis spells it
// (matrix/axes.h), so matching is equality. `taken` caches each setting's values over the
// rules.
ExcludeRule readExclude(const Ctx& c, const YAML::Node& n, const Matrix& m,
                        QHash<QString, QStringList>& taken) {
    requireMap(c, n, "exclude");
    checkKeys(c, n, QStringList{"model", "layer", "world_size"} + knobKeys(), "an exclude rule");
    ExcludeRule r;
    if (n["model"]) {
        const QString model = str(c, n["model"], "model");
        c.failIf(!hasModel(m, model), n["model"], "model",
                 QString("unknown model '%1'").arg(model));
        r.match.emplace_back("model", model);
    }
    if (n["layer"]) {
        const QString layer = str(c, n["layer"], "layer");
        c.failIf(!spec::findLayer(layer.toStdString()), n["layer"], "layer",
                 QString("unknown layer '%1'").arg(layer));
        const auto name = [](const LayerSpec& l) { return l.name; };
        requireTaken(c, n["layer"], "layer", layer, spec::mapped<QStringList>(m.layers, name));
        r.match.emplace_back("layer", layer);
    }
    if (n["world_size"]) {
        const QString ws = QString::number(integer(c, n["world_size"], "world_size", 1));
        const auto number = [](int w) { return QString::number(w); };
        requireTaken(c, n["world_size"], "world_size", ws,
                     spec::mapped<QStringList>(m.worldSizes, number));
        r.match.emplace_back("world_size", ws);
    }
    for (const Knob& k : knobs()) {
        if (const YAML::Node v = n[k.key.toStdString()]) {
            const QString value = k.read(c, v);
            if (!taken.contains(k.key)) {
                taken.insert(k.key, valuesTaken(m, k));
            }
            requireTaken(c, v, k.key, value, taken[k.key]);
            r.match.emplace_back(k.key, value);
        }
    }
    return r;
}

void readBudget(const Ctx& c, const YAML::Node& b, Matrix& m) {
    requireMap(c, b, "budget");
    checkKeys(c, b, {"host_gib", "device_gib", "reserve_gib"}, "budget");
    readIfGiven(c, b, "host_gib", m.budget.hostGib, budgetValue);
    readIfGiven(c, b, "device_gib", m.budget.deviceGib, budgetValue);
    if (b["reserve_gib"]) {
        m.budget.reserveGib = number(c, b["reserve_gib"], "reserve_gib");
        c.failIf(m.budget.reserveGib < 0 || m.budget.reserveGib > kMaxGib, b["reserve_gib"],
                 "reserve_gib",
                 QString("must be from 0 to %1, got %2")
                     .arg(kMaxGib, 0, 'g', 12)
                     .arg(m.budget.reserveGib));
    }
}

// The sections in the order they depend on each other: layers' overrides start from the
// defaults, exclude rules name models, layers and world sizes, the launcher's time limit
// covers the layers' timeouts.
Matrix parseRoot(const Ctx& c, const YAML::Node& root) {
    checkRoot(c, root);
    Matrix m;
    m.file = c.file;
    for (const char* required : {"name", "models", "layers", "world_sizes"}) {
        if (!root[required]) {
            throw MatrixError(c.file, 1, 1, required, "required key is missing");
        }
    }
    // Front ends make a results folder of it: reduced like a cell id, it stays one folder name.
    m.name = sanitizeId(str(c, root["name"], "name"));
    if (root["defaults"]) {
        readRunConfig(c, root["defaults"], m.defaults, "defaults", &m.defaultKnobLists);
    }
    readIfGiven(c, root, "repeats", m.repeats, integer, 1, kMaxCount);
    readModels(c, root, m);
    readLayers(c, root, m);
    readWorldSizes(c, root, m);
    if (root["exclude"]) {
        QHash<QString, QStringList> taken; // each setting's values, found once for all rules
        for (const YAML::Node& n : requireSeq(c, root["exclude"], "exclude")) {
            m.excludes.push_back(readExclude(c, n, m, taken));
        }
    }
    if (const YAML::Node b = root["budget"]) {
        readBudget(c, b, m);
    }
    if (root["launcher"]) {
        readLauncher(c, root["launcher"], m); // after the layers: time_limit covers their timeouts
    }
    recordLinkMarks(root, m);
    return m;
}

// Which DDP settings take more than one value over the matrix's DDP cells: those are in ids.
QSet<QString> knobsInIds(const Matrix& m) {
    QSet<QString> out;
    for (const Knob& k : knobs()) {
        QSet<QString> seen;
        for (const ModelSpec& model : m.models) {
            if (model.isSweep() && !k.sweepToo) {
                continue;
            }
            if (const KnobList* list = knobListOf(m, model, k.key)) {
                seen.unite(QSet<QString>(list->values.begin(), list->values.end()));
            } else {
                seen.insert(k.valueOf(m.defaults));
            }
        }
        // Where the ranks run is named whenever it is not this machine's loopback.
        const bool notDefault = k.sweepToo && !seen.contains(k.valueOf(RunConfig{}));
        if (seen.size() > 1 || notDefault) {
            out.insert(k.key);
        }
    }
    return out;
}

// The model's cells in expansion order, with their axes applied, ids made and excluded ones
// left out; stops early when `visit` returns false. The indices say which value each axis took.
void forEachCellOf(const ModelSpec& model, const std::vector<Axis>& axes,
                   const QSet<QString>& knobIds, const std::vector<ExcludeRule>& excludes,
                   const std::function<bool(Cell&, const std::vector<std::size_t>&)>& visit) {
    const QString modelId = sanitizeId(model.name);
    // Decided once per model, not per cell: a 100k-cell plan follows the designer's typing.
    std::vector<bool> inId(axes.size());
    for (std::size_t k = 0; k < axes.size(); ++k) {
        inId[k] = axes[k].alwaysInId || knobIds.contains(axes[k].key);
    }
    ModelExclusions(excludes, model, axes).forEachKept([&](const std::vector<std::size_t>& at) {
        Cell cell;
        cell.model = model;
        cell.sweepMaxBytes = model.isSweep() ? model.sweep.maxBytes : 0.0;
        cell.id = modelId;
        cell.axes.reserve(axes.size() + 1);
        cell.axes.emplace_back("model", model.name);
        for (std::size_t k = 0; k < axes.size(); ++k) {
            axes[k].apply(cell, at[k]);
            if (inId[k]) {
                cell.id += u'_';
                cell.id += axes[k].values[at[k]].idPart;
            }
            cell.axes.emplace_back(axes[k].key, axes[k].values[at[k]].text);
        }
        return visit(cell, at);
    });
}

// Counted before anything is built, and without visiting the cells (matrix/exclusion.h), so
// a matrix of a billion cells is refused, or cut by its exclusions to a few, in a moment.
// Returns the count before exclusions.
double checkCellCount(const Matrix& m, const MachineLimits& limits,
                      const std::vector<ExcludeRule>& excludes) {
    double product = 0;
    std::vector<std::vector<Axis>> axesPerModel;
    for (const ModelSpec& model : m.models) {
        axesPerModel.push_back(axesOf(m, model));
        product += combinations(axesPerModel.back());
    }
    if (product <= double(limits.maxCells)) {
        return product;
    }
    const qint64 cap = limits.maxCells + 1;
    qint64 count = 0;
    for (std::size_t i = 0; i < m.models.size() && count < cap; ++i) {
        count += ModelExclusions(excludes, m.models[i], axesPerModel[i]).countUpTo(cap - count);
    }
    if (count <= limits.maxCells) {
        return product;
    }
    // "2 models x 3 layers x 4 world sizes x 1 repeats", with the first model's axes where
    // every model has the same ones.
    QString formula = QString("%1 models").arg(m.models.size());
    for (const Axis& a : axesPerModel.front()) {
        formula += QString(" x %1 %2").arg(a.values.size()).arg(a.plural);
    }
    const bool sameAxes =
        std::all_of(axesPerModel.begin(), axesPerModel.end(), [&](const auto& axes) {
            return combinations(axes) == combinations(axesPerModel.front());
        });
    if (!sameAxes) {
        formula = QString("%1 models, each with its own lists,").arg(m.models.size());
    }
    throw MatrixError(
        m.file, 1, 1, "cells",
        QString("the matrix expands to more than %1 cells (%2 = %3 before exclusions), above the "
                "limit of %1; raise it with COMMPROF_MAX_CELLS=N")
            .arg(limits.maxCells)
            .arg(formula)
            .arg(product, 0, 'f', 0));
}

// NCCL refuses two ranks on one GPU; a node with GPUs must have one per rank.
void checkGpusPerRank(const Matrix& m, const MachineLimits& limits, const Cell& cell,
                      const AxisValue& worldSize) {
    const spec::Layer* layer =
        limits.gpus > 0 ? spec::findLayer(cell.layer.name.toStdString()) : nullptr;
    if (!layer || layer->gpus != spec::GpuRule::OnePerRank) {
        return;
    }
    const std::vector<int> placed = ranksPerNode(m.launcher, cell.worldSize);
    const int busiest = *std::max_element(placed.begin(), placed.end());
    if (busiest <= limits.gpus) {
        return;
    }
    const QString where = placed.size() == 1 ? QString("on a machine")
                                             : QString("puts %1 ranks on a node").arg(busiest);
    throw MatrixError(m.file, worldSize.line, worldSize.column, "world_sizes",
                      QString("layer %1 needs one GPU per rank: world size %2 %3 with %4 GPU(s)")
                          .arg(cell.layer.name)
                          .arg(cell.worldSize)
                          .arg(where)
                          .arg(limits.gpus));
}

// A model's cells, each checked against the machine as it comes.
void forEachCheckedCellOf(const Matrix& m, const ModelSpec& model, const MachineLimits& limits,
                          const QSet<QString>& knobIds, const std::vector<ExcludeRule>& excludes,
                          const std::function<void(Cell&)>& visit) {
    const std::vector<Axis> axes = axesOf(m, model);
    const auto worldSizeAxis = std::find_if(axes.begin(), axes.end(), [](const Axis& a) {
        return a.key == QLatin1String("world_size");
    });
    forEachCellOf(model, axes, knobIds, excludes, [&](Cell& cell, const auto& at) {
        if (worldSizeAxis != axes.end()) {
            const auto k = std::size_t(worldSizeAxis - axes.begin());
            const AxisValue& ws = axes[k].values[at[k]];
            checkGpusPerRank(m, limits, cell, ws);
            checkLinkOf(m, limits, cell, {ws.line, ws.column});
        }
        visit(cell);
        return true;
    });
}

} // namespace

MatrixError::MatrixError(QString f, int l, int col, QString k, const QString& message)
    : std::runtime_error(
          QString("%1:%2:%3: %4: %5").arg(f).arg(l).arg(col).arg(k, message).toStdString()),
      file(std::move(f)), line(l), column(col), key(std::move(k)) {}

QString sanitizeId(const QString& text) {
    QString out;
    for (const QChar ch : text.toLower()) {
        out += (ch.isLetterOrNumber() && ch.unicode() < 128) ? ch : QChar('_');
    }
    out.replace(QRegularExpression("_+"), "_").remove(QRegularExpression("^_|_$"));
    return out.isEmpty() ? QString("x") : out.left(80);
}

qint64 defaultMaxCells() {
    return files::limitFromEnv("COMMPROF_MAX_CELLS", kDefaultMaxCells);
}

Matrix loadMatrix(const QString& path) {
    return parseMatrix(readYamlFile(path), path);
}

Matrix parseMatrix(const QByteArray& yaml, const QString& fileName) {
    const Ctx c{fileName};
    const YAML::Node root = loadYaml(yaml, fileName);
    try {
        return parseRoot(c, root);
    } catch (const YAML::Exception& e) {
        // A conversion this parser did not foresee: still an error at the node, never an abort.
        throw MatrixError(fileName, e.mark.line + 1, e.mark.column + 1, "yaml",
                          QString::fromStdString(e.msg));
    }
}

void forEachCell(const Matrix& m, const MachineLimits& limits,
                 const std::function<void(Cell&)>& visit) {
    const QSet<QString> knobIds = knobsInIds(m);
    const std::vector<ExcludeRule> excludes = distinctRules(m.excludes);
    const double expected = checkCellCount(m, limits, excludes);
    // Hashes, not ids, so a million cells cost a few MB here. A hash seen before sends us
    // back over the cells for the first one with this id: one before this cell is a duplicate,
    // else it was two ids with one hash.
    std::unordered_set<std::size_t> seen;
    seen.reserve(std::size_t(std::min(expected, double(limits.maxCells))));
    std::size_t position = 0;
    const auto firstWithId = [&](const QString& id) {
        std::size_t at = 0;
        bool found = false;
        for (std::size_t i = 0; i < m.models.size() && !found; ++i) {
            forEachCellOf(m.models[i], axesOf(m, m.models[i]), knobIds, excludes,
                          [&](Cell& earlier, const auto&) {
                              found = earlier.id == id;
                              at += found ? 0 : 1;
                              return !found;
                          });
        }
        return at;
    };
    for (const ModelSpec& model : m.models) {
        forEachCheckedCellOf(m, model, limits, knobIds, excludes, [&](Cell& cell) {
            if (!seen.insert(qHash(cell.id)).second && firstWithId(cell.id) < position) {
                throw MatrixError(m.file, model.line, model.column, "name",
                                  QString("two cells would share the id '%1'").arg(cell.id));
            }
            ++position;
            visit(cell);
        });
    }
}

void forEachCellOfModel(const Matrix& m, std::size_t model, const MachineLimits& limits,
                        const std::function<void(Cell&)>& visit) {
    forEachCheckedCellOf(m, m.models.at(model), limits, knobsInIds(m), distinctRules(m.excludes),
                         visit);
}

std::vector<Cell> expand(const Matrix& m, const MachineLimits& limits) {
    std::vector<Cell> cells;
    forEachCell(m, limits, [&](Cell& cell) { cells.push_back(std::move(cell)); });
    return cells;
}

} // namespace commprof::matrix
