// SPDX-License-Identifier: GPL-3.0-or-later
#include "options.h"

#include "rank_flags.h"
#include "spec/layers.h"
#include "spec/model_families.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <functional>
#include <map>
#include <optional>
#include <random>
#include <type_traits>

namespace commprof::rank {
namespace {

std::string env(const char* name, const char* fallback = nullptr) {
    if (const char* v = std::getenv(name); v && *v) {
        return v;
    }
    if (fallback) {
        if (const char* v = std::getenv(fallback); v && *v) {
            return v;
        }
    }
    return {};
}

// A whole-string number of type T, or a UsageError naming the flag.
template <typename T>
T parseNumber(const std::string& flag, const std::string& v, const char* what) {
    try {
        std::size_t used = 0;
        const T out = std::is_integral_v<T> ? T(std::stoi(v, &used)) : T(std::stod(v, &used));
        if (used != v.size()) {
            throw std::invalid_argument(v);
        }
        return out;
    } catch (const std::exception&) {
        throw UsageError(flag + ": expected " + what + ", got '" + v + "'");
    }
}

int toInt(const std::string& flag, const std::string& v) {
    return parseNumber<int>(flag, v, "an integer");
}
double toDouble(const std::string& flag, const std::string& v) {
    return parseNumber<double>(flag, v, "a number");
}

// "R:MS": rank R sleeps MS milliseconds before each forward.
void parseDelay(const std::string& flag, const std::string& v, RankOptions& o) {
    const auto colon = v.find(':');
    if (colon == std::string::npos) {
        throw UsageError(flag + ": expected RANK:MS, got '" + v + "'");
    }
    o.delayRank = toInt(flag, v.substr(0, colon));
    o.delayMs = toDouble(flag, v.substr(colon + 1));
    if (o.delayRank < 0 || o.delayMs < 0 || o.delayMs > 600000) {
        throw UsageError(flag + ": expected a rank >= 0 and 0..600000 ms, got '" + v + "'");
    }
}

double parseHookDelay(const std::string& flag, const std::string& v) {
    const double ms = toDouble(flag, v);
    if (ms < 0 || ms > 60000) {
        throw UsageError(flag + ": expected 0..60000 ms, got '" + v + "'");
    }
    return ms;
}

std::vector<std::string> parseSweepKinds(const std::string& flag, const std::string& v) {
    std::vector<std::string> kinds;
    std::size_t from = 0;
    while (from <= v.size()) {
        const auto comma = std::min(v.find(',', from), v.size());
        const std::string kind = v.substr(from, comma - from);
        if (kind != "all_reduce" && kind != "all_gather" && kind != "reduce_scatter" &&
            kind != "broadcast") {
            throw UsageError(flag +
                             ": expected a list of all_reduce, all_gather, reduce_scatter, "
                             "broadcast, got '" +
                             kind + "'");
        }
        kinds.push_back(kind);
        from = comma + 1;
    }
    return kinds;
}

// The value when the flag's row of the table lists it among its choices.
std::string oneOf(const std::string& flag, const std::string& v) {
    if (std::string e = options::choiceError(*options::findOption(rankProgram().options, flag), v);
        !e.empty()) {
        throw UsageError(e);
    }
    return v;
}

// "all" or "0,3,8-15"
std::vector<int> parseRanks(const std::string& flag, const std::string& v) {
    std::vector<int> out;
    if (v == "all") {
        return out;
    }
    std::size_t start = 0;
    while (start <= v.size()) {
        const std::size_t comma = v.find(',', start);
        const std::string part =
            v.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
        const std::size_t dash = part.find('-');
        if (dash == std::string::npos) {
            out.push_back(toInt(flag, part));
        } else {
            const int a = toInt(flag, part.substr(0, dash));
            const int b = toInt(flag, part.substr(dash + 1));
            if (b < a) {
                throw UsageError(flag + ": empty range '" + part + "'");
            }
            for (int r = a; r <= b; ++r) {
                out.push_back(r);
            }
        }
        if (comma == std::string::npos) {
            break;
        }
        start = comma + 1;
    }
    return out;
}

} // namespace

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

bool RankOptions::perturbsRank(int r) const {
    return !perturbOp.empty() &&
           (perturbRanks.empty() ||
            std::find(perturbRanks.begin(), perturbRanks.end(), r) != perturbRanks.end());
}

// One of the two input specs, complete; the family and the parameter count then come from the
// file (--params only keeps its range check quiet).
static void checkTorchScriptInput(RankOptions& o) {
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

std::string usageText() {
    return options::usageLine(rankProgram(), nullptr) + "\n";
}

RankOptions parseOptions(int argc, char** argv) {
    RankOptions o;
    // The environment plants the delay through a real `commprof run`, whose ranks inherit it;
    // the flag, read below, wins.
    if (const auto delay = env("COMMPROF_DELAY_RANK"); !delay.empty()) {
        parseDelay("COMMPROF_DELAY_RANK", delay, o);
    }
    if (const auto hookDelay = env("COMMPROF_HOOK_DELAY_MS"); !hookDelay.empty()) {
        o.hookDelayMs = parseHookDelay("COMMPROF_HOOK_DELAY_MS", hookDelay);
    }
    bool paramsGiven = false;
    bool familyGiven = false;
    bool modelGiven = false;
    using Setter = std::function<void(const std::string&, const std::string&)>;
    const std::map<std::string, Setter> withValue{
        // rank_entry.cpp serves it before a rank's flags are read: here only when it is not
        // alone on the line.
        {"--fork-server",
         [&](auto& f, auto&) {
             throw UsageError(f + " takes its socket and nothing else: commprof-rank " + f +
                              " SOCKET");
         }},
        {"--model",
         [&](auto&, auto& v) {
             o.model = v;
             modelGiven = true;
         }},
        {"--family", [&](auto& f, auto& v) { o.family = oneOf(f, v); }},
        {"--params",
         [&](auto& f, auto& v) {
             o.params = toDouble(f, v);
             paramsGiven = true;
         }},
        {"--torchscript", [&](auto&, auto& v) { o.torchscript = v; }},
        {"--input-shape",
         [&](auto& f, auto& v) {
             std::size_t at = 0;
             while (at <= v.size()) {
                 const auto comma = std::min(v.find(',', at), v.size());
                 const int d = toInt(f, v.substr(at, comma - at));
                 if (d < 1) {
                     throw UsageError(f + ": expected positive dimensions, got '" + v + "'");
                 }
                 o.inputShape.push_back(d);
                 at = comma + 1;
             }
         }},
        {"--tokens", [&](auto& f, auto& v) { o.tokens = toInt(f, v); }},
        {"--vocab", [&](auto& f, auto& v) { o.vocab = toInt(f, v); }},
        {"--classes", [&](auto& f, auto& v) { o.classes = toInt(f, v); }},
        {"--described-params",
         [&](auto& f, auto& v) {
             o.describedParams = toDouble(f, v);
             if (o.describedParams < 0 || o.describedParams != std::floor(o.describedParams)) {
                 throw UsageError(f + ": expected a whole number >= 0, got '" + v + "'");
             }
         }},
        {"--described-tensors",
         [&](auto& f, auto& v) {
             o.describedTensors = toInt(f, v);
             if (o.describedTensors < 0) {
                 throw UsageError(f + ": expected a whole number >= 0, got '" + v + "'");
             }
         }},
        {"--backend", [&](auto& f, auto& v) { o.backend = oneOf(f, v); }},
        {"--device", [&](auto& f, auto& v) { o.device = oneOf(f, v); }},
        {"--layer", [&](auto&, auto& v) { o.layer = v; }},
        {"--cell-id", [&](auto&, auto& v) { o.cellId = v; }},
        {"--iterations", [&](auto& f, auto& v) { o.iterations = toInt(f, v); }},
        {"--warmup", [&](auto& f, auto& v) { o.warmup = toInt(f, v); }},
        {"--record-from-iteration", [&](auto& f, auto& v) { o.recordFromIteration = toInt(f, v); }},
        {"--batch-size", [&](auto& f, auto& v) { o.batchSize = toInt(f, v); }},
        {"--bucket-cap-mb", [&](auto& f, auto& v) { o.bucketCapMb = toDouble(f, v); }},
        {"--first-bucket-mb", [&](auto& f, auto& v) { o.firstBucketMb = toDouble(f, v); }},
        {"--optimizer", [&](auto& f, auto& v) { o.optimizer = oneOf(f, v); }},
        {"--hook",
         [&](auto& f, auto& v) {
             // "timing" is allreduce's older name, in scripts and results made before.
             o.hook = oneOf(f, v) == "timing" ? "allreduce" : v;
         }},
        {"--powersgd-rank", [&](auto& f, auto& v) { o.powersgdRank = toInt(f, v); }},
        {"--powersgd-start-iter", [&](auto& f, auto& v) { o.powersgdStartIter = toInt(f, v); }},
        {"--seed",
         [&](auto& f, auto& v) {
             // "random": a different seed every run, the classic source of a run that will not
             // repeat.
             o.seed = v == "random"
                          ? (std::uint64_t(std::random_device{}()) << 32) ^ std::random_device{}()
                          : static_cast<std::uint64_t>(toDouble(f, v));
         }},
        {"--threads", [&](auto& f, auto& v) { o.threads = toInt(f, v); }},
        {"--trace-first-step", [&](auto& f, auto& v) { o.traceFirstStep = toInt(f, v); }},
        {"--trace-steps", [&](auto& f, auto& v) { o.traceSteps = toInt(f, v); }},
        {"--out", [&](auto&, auto& v) { o.outDir = v; }},
        {"--rendezvous-timeout-s",
         [&](auto& f, auto& v) { o.rendezvousTimeoutS = toDouble(f, v); }},
        {"--collective-timeout-s",
         [&](auto& f, auto& v) { o.collectiveTimeoutS = toDouble(f, v); }},
        {"--fingerprint",
         [&](auto& f, auto& v) {
             for (const char* layer : {"semantic", "op"}) {
                 if (v.find(layer) != std::string::npos) {
                     (std::string(layer) == "op" ? o.fpOp : o.fpSemantic) = true;
                 }
             }
             if (!o.fpOp && !o.fpSemantic) {
                 // Looser than its choices ("op,semantic" too), so refused in their words.
                 throw UsageError(
                     options::choiceError(*options::findOption(rankProgram().options, f), v));
             }
         }},
        {"--fp-iters",
         [&](auto& f, auto& v) {
             const auto c1 = v.find(':');
             if (c1 == std::string::npos) {
                 throw UsageError(f + ": expected START:END[:EVERY], got '" + v + "'");
             }
             const auto c2 = v.find(':', c1 + 1);
             o.fpIterStart = toInt(f, v.substr(0, c1));
             o.fpIterEnd = toInt(
                 f, v.substr(c1 + 1, c2 == std::string::npos ? std::string::npos : c2 - c1 - 1));
             o.fpIterEvery = c2 == std::string::npos ? 1 : toInt(f, v.substr(c2 + 1));
             if (o.fpIterEvery < 1 || o.fpIterEnd <= o.fpIterStart) {
                 throw UsageError(f + ": empty iteration range '" + v + "'");
             }
         }},
        {"--fp-ranks", [&](auto& f, auto& v) { o.fpRanks = parseRanks(f, v); }},
        {"--fp-max-records",
         [&](auto& f, auto& v) { o.fpMaxRecords = static_cast<long long>(toDouble(f, v)); }},
        {"--fp-max-bytes",
         [&](auto& f, auto& v) { o.fpMaxBytes = static_cast<long long>(toDouble(f, v)); }},
        {"--fp-chunk-dim", [&](auto& f, auto& v) { o.fpChunkDim = toInt(f, v); }},
        {"--delay-rank", [&](auto& f, auto& v) { parseDelay(f, v, o); }},
        {"--hook-delay-ms", [&](auto& f, auto& v) { o.hookDelayMs = parseHookDelay(f, v); }},
        {"--sweep", [&](auto& f, auto& v) { o.sweepKinds = parseSweepKinds(f, v); }},
        {"--sweep-max-bytes",
         [&](auto& f, auto& v) {
             const double b = toDouble(f, v);
             if (!(b >= 8 && b <= double(std::int64_t(1) << 40))) {
                 throw UsageError(f + ": expected 8 to 2^40 bytes, got '" + v + "'");
             }
             o.sweepMaxBytes = std::int64_t(b);
         }},
        {"--sweep-warmup", [&](auto& f, auto& v) { o.sweepWarmup = toInt(f, v); }},
        {"--sweep-iters", [&](auto& f, auto& v) { o.sweepIterations = toInt(f, v); }},
        {"--perturb",
         [&](auto& f, auto& v) {
             const auto at = v.rfind('@');
             const auto colon = v.rfind(':');
             if (at == std::string::npos || colon == std::string::npos || colon < at) {
                 throw UsageError(f + ": expected OP@RANK:ITER, got '" + v + "'");
             }
             o.perturbOp = v.substr(0, at);
             o.perturbRanks = parseRanks(f, v.substr(at + 1, colon - at - 1));
             o.perturbIter = toInt(f, v.substr(colon + 1));
         }},
    };
    const std::map<std::string, bool*> flags{{"--trace", &o.trace},
                                             {"--gradient-as-bucket-view", &o.gradientAsBucketView},
                                             {"--static-graph", &o.staticGraph},
                                             {"--find-unused-parameters", &o.findUnusedParameters},
                                             {"--check-module", &o.checkModule},
                                             {"--version", &o.version},
                                             {"--json", &o.json},
                                             {"--listen-all", &o.listenAll},
                                             {"--digest-selftest", &o.digestSelftest},
                                             {"--dump-grads", &o.dumpGrads},
                                             {"--help", &o.help}};
    // The table is what --help and the man page say; a flag parsed here and missing there, or
    // the other way round, is a build that must not pass a single test.
    for (const auto& opt : rankProgram().options) {
        if (opt.takesValue() ? !withValue.count(opt.flag) : !flags.count(opt.flag)) {
            throw std::logic_error("commprof-rank: " + opt.flag + " is documented but not parsed");
        }
    }
    if (withValue.size() + flags.size() != rankProgram().options.size()) {
        throw std::logic_error("commprof-rank: a parsed flag is missing from its documentation");
    }

    for (int i = 1; i < argc; ++i) {
        std::string arg = argv[i];
        std::string value;
        bool inlineValue = false;
        if (const auto eq = arg.find('='); arg.rfind("--", 0) == 0 && eq != std::string::npos) {
            value = arg.substr(eq + 1);
            arg = arg.substr(0, eq);
            inlineValue = true;
        }
        if (auto f = flags.find(arg); f != flags.end()) {
            *f->second = true;
            continue;
        }
        auto s = withValue.find(arg);
        if (s == withValue.end()) {
            throw UsageError("unknown flag '" + arg + "'");
        }
        if (!inlineValue) {
            if (i + 1 >= argc) {
                throw UsageError(arg + ": missing value");
            }
            value = argv[++i];
        }
        s->second(arg, value);
    }

    if (o.help) {
        return o;
    }
    // Presets: a model named like mlp50m or transformer400m sizes itself when --params and
    // --family are not given.
    if (!paramsGiven || !familyGiven) {
        if (const auto preset = presetOf(o.model)) {
            if (!paramsGiven) {
                o.params = preset->second;
            }
            if (!familyGiven) {
                o.family = preset->first;
            }
        }
    }
    if (!o.torchscript.empty()) {
        checkTorchScriptInput(o);
        if (!modelGiven) { // named after the file: "resnet18" for models/resnet18.pt
            const auto slash = o.torchscript.find_last_of('/');
            o.model = o.torchscript.substr(slash == std::string::npos ? 0 : slash + 1);
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
    return o;
}

} // namespace commprof::rank
