// SPDX-License-Identifier: GPL-3.0-or-later
#include "options.h"

#include "flag_values.h"
#include "rank_flags.h"
#include "spec/layers.h"
#include "spec/model_families.h"

#include <algorithm>
#include <cstdlib>
#include <optional>
#include <set>

namespace commprof::rank {
namespace {

std::string env(const char* name, const char* fallback = nullptr) {
    for (const char* n : {name, fallback}) {
        if (const char* v = n ? std::getenv(n) : nullptr; v && *v) {
            return v;
        }
    }
    return {};
}

// "mlp50m" -> (mlp, 5e7), "transformer400m" -> (transformer, 4e8); nullopt for other names.
std::optional<std::pair<std::string, double>> presetOf(const std::string& model) {
    for (const spec::ModelFamily& f : spec::kModelFamilies) {
        const std::string family(f.presetPrefix);
        if (model.rfind(family, 0) != 0 || model.size() < family.size() + 2) {
            continue;
        }
        const std::string size = model.substr(family.size());
        const char unit = size.back();
        const double scale = unit == 'm' ? 1e6 : unit == 'k' ? 1e3 : 0;
        try {
            std::size_t used = 0;
            const double n = std::stod(size.substr(0, size.size() - 1), &used);
            if (scale > 0 && used == size.size() - 1 && n > 0) {
                return std::make_pair(std::string(f.name), n * scale);
            }
        } catch (const std::exception&) {
        }
    }
    return std::nullopt;
}

// The environment plants faults through a real `commprof run`, whose ranks inherit it; the
// flags, read after it, win.
void readFaultEnvironment(RankOptions& o) {
    if (const auto delay = env("COMMPROF_DELAY_RANK"); !delay.empty()) {
        readDelay("COMMPROF_DELAY_RANK", delay, o);
    }
    if (const auto hookDelay = env("COMMPROF_HOOK_DELAY_MS"); !hookDelay.empty()) {
        o.hookDelayMs = parseHookDelay("COMMPROF_HOOK_DELAY_MS", hookDelay);
    }
}

// Each argument through its row of the table, "--flag value" or "--flag=value"; returns the
// flags given, for the defaults that depend on what was left out.
std::set<std::string> readFlags(int argc, char** argv, RankOptions& o) {
    std::set<std::string> given;
    for (int i = 1; i < argc; ++i) {
        std::string arg = argv[i];
        std::string value;
        bool inlineValue = false;
        if (const auto eq = arg.find('='); arg.rfind("--", 0) == 0 && eq != std::string::npos) {
            value = arg.substr(eq + 1);
            arg = arg.substr(0, eq);
            inlineValue = true;
        }
        const auto flag = std::find_if(rankFlags().begin(), rankFlags().end(),
                                       [&](const RankFlag& f) { return f.option.flag == arg; });
        if (flag == rankFlags().end()) {
            throw UsageError("unknown flag '" + arg + "'");
        }
        if (flag->option.takesValue() && !inlineValue) {
            if (i + 1 >= argc) {
                throw UsageError(arg + ": missing value");
            }
            value = argv[++i];
        }
        flag->set(o, flag->option, value);
        given.insert(arg);
    }
    return given;
}

// Presets: a model named like mlp50m or transformer400m sizes itself when --params and
// --family are not given.
void applyPreset(RankOptions& o, const std::set<std::string>& given) {
    if (const auto preset = presetOf(o.model)) {
        if (!given.count("--params")) {
            o.params = preset->second;
        }
        if (!given.count("--family")) {
            o.family = preset->first;
        }
    }
}

// One of the two input specs, complete; the family and the parameter count then come from the
// file (--params only keeps its range check quiet).
void checkTorchScriptInput(RankOptions& o) {
    const bool image = !o.inputShape.empty() || o.classes;
    const bool tokens = o.tokens || o.vocab;
    if (image == tokens) {
        throw UsageError("--torchscript: give either --input-shape C,H,W with --classes N, or "
                         "--tokens N with --vocab V");
    }
    if (image && (o.inputShape.empty() || o.classes < 1)) {
        throw UsageError("--torchscript: --input-shape and --classes (>= 1) go together");
    }
    if (tokens && (o.tokens < 1 || o.vocab < 2)) {
        throw UsageError("--torchscript: --tokens (>= 1) and --vocab (>= 2) go together");
    }
    o.family = std::string(spec::kTorchScriptFamily);
    o.params = 0; // the file's: the rank file's model.params counts them
}

// A TorchScript module's flags need the module; a synthetic family needs a sane size.
void checkModel(RankOptions& o, const std::set<std::string>& given) {
    if (!o.torchscript.empty()) {
        checkTorchScriptInput(o);
        if (!given.count("--model")) { // named after the file: "resnet18" for models/resnet18.pt
            o.model = o.torchscript.substr(o.torchscript.find_last_of('/') + 1); // npos + 1 is 0
            o.model = o.model.substr(0, o.model.rfind(".pt"));
        }
    } else if (!o.inputShape.empty() || o.tokens || o.vocab || o.classes ||
               o.findUnusedParameters || o.describedParams >= 0 || o.describedTensors >= 0 ||
               o.checkModule) {
        throw UsageError("--input-shape, --tokens, --vocab, --classes, "
                         "--find-unused-parameters, --described-params, --described-tensors and "
                         "--check-module need --torchscript FILE");
    }
    if (o.torchscript.empty() && (o.params < 1e4 || o.params > 2e9)) {
        throw UsageError("--params: expected 1e4..2e9, got " + std::to_string(o.params));
    }
}

// Ranges of the loop's counts, then the defaults that follow the first recorded iteration.
void checkLoop(RankOptions& o) {
    if (o.iterations < 1 || o.warmup < 0 || o.batchSize < 1 || o.bucketCapMb <= 0 ||
        o.firstBucketMb <= 0) {
        throw UsageError(
            "--iterations, --batch-size, --bucket-cap-mb and --first-bucket-mb must be positive, "
            "--warmup not negative");
    }
    if (o.sweepIterations < 1 || o.sweepWarmup < 0) {
        throw UsageError("--sweep-iters must be positive, --sweep-warmup not negative");
    }
    if (o.recordFromIteration < 0) {
        o.recordFromIteration = o.warmup;
    }
    if (o.powersgdStartIter < 0) {
        // PyTorch's default (1000) would leave a cell of tens of iterations uncompressed: by
        // default the recorded iterations are PowerSGD's.
        o.powersgdStartIter = std::max(2, o.recordFromIteration);
    }
    if (o.powersgdRank < 1) {
        throw UsageError("--powersgd-rank: expected a rank >= 1, got " +
                         std::to_string(o.powersgdRank));
    }
    if (o.powersgdStartIter < 2) {
        // PowerSGDState's own rule with error feedback and warm start on: DDP rebuilds its
        // buckets after iteration 0, and memorised tensors must not outlive the old layout.
        throw UsageError("--powersgd-start-iter: expected >= 2 (error feedback and warm start "
                         "need the buckets DDP rebuilds after the first iteration), got " +
                         std::to_string(o.powersgdStartIter));
    }
    if (o.traceFirstStep < 0) {
        o.traceFirstStep = o.recordFromIteration;
    }
    if (o.layer.empty()) {
        const spec::Layer* layer = spec::layerOf(o.backend, o.device);
        o.layer = layer ? std::string(layer->name) : o.backend + "_" + o.device;
    }
}

// Where this rank stands in the job, as torchrun or srun says.
void readRendezvousEnvironment(RankOptions& o) {
    const std::string rank = env("RANK", "SLURM_PROCID");
    const std::string world = env("WORLD_SIZE", "SLURM_NTASKS");
    const std::string local = env("LOCAL_RANK", "SLURM_LOCALID");
    o.rank = rank.empty() ? 0 : toInt("RANK", rank);
    o.worldSize = world.empty() ? 1 : toInt("WORLD_SIZE", world);
    o.localRank = local.empty() ? 0 : toInt("LOCAL_RANK", local);
    if (const auto a = env("MASTER_ADDR"); !a.empty()) {
        o.masterAddr = a;
    }
    if (const auto p = env("MASTER_PORT"); !p.empty()) {
        o.masterPort = toInt("MASTER_PORT", p);
    }
    o.storeToken = env("COMMPROF_STORE_TOKEN");
    if (o.worldSize < 1 || o.rank < 0 || o.rank >= o.worldSize) {
        throw UsageError("RANK " + std::to_string(o.rank) + " is outside WORLD_SIZE " +
                         std::to_string(o.worldSize));
    }
    if (o.masterPort < 1 || o.masterPort > 65535) {
        throw UsageError("MASTER_PORT " + std::to_string(o.masterPort) + " is not a port");
    }
}

} // namespace

bool RankOptions::perturbsRank(int r) const {
    return !perturbOp.empty() &&
           (perturbRanks.empty() ||
            std::find(perturbRanks.begin(), perturbRanks.end(), r) != perturbRanks.end());
}

std::string usageText() {
    return options::usageLine(rankProgram(), nullptr) + "\n";
}

RankOptions parseOptions(int argc, char** argv) {
    RankOptions o;
    readFaultEnvironment(o);
    const std::set<std::string> given = readFlags(argc, argv, o);
    if (o.help) { // nothing else is checked: --help answers whatever else the line holds
        return o;
    }
    applyPreset(o, given);
    checkModel(o, given);
    checkLoop(o);
    readRendezvousEnvironment(o);
    return o;
}

} // namespace commprof::rank
