// SPDX-License-Identifier: GPL-3.0-or-later
// commprof-rank: one rank of a DDP measurement, or with --fork-server SOCKET the server that
// forks ranks for the runner (fork_server.h). Its exit codes, progress lines and file names are
// the launchers' contract (spec/rank_contract.h).

#include "fingerprint.h"
#include "fork_server.h"
#include "models.h"
#include "options.h"
#include "rank_exit.h"
#include "rank_flags.h"
#include "rank_result.h"
#include "rendezvous.h"
#include "spec/fork_contract.h"
#include "spec/rank_contract.h"

#include <sys/stat.h>

#include <cstdio>
#include <cstring>
#include <iostream>

using namespace commprof::rank;
namespace exit_code = commprof::spec::exit_code;

namespace {

// The rank itself; main runs it, or the fork server that forks it.
int rankMain(int argc, char** argv) {
    RankOptions options;
    try {
        options = parseOptions(argc, argv);
    } catch (const UsageError& e) {
        std::fprintf(stderr,
                     "commprof-rank: %s\nusage: %s'commprof-rank --help' describes each flag.\n",
                     e.what(), usageText().c_str());
        return exit_code::kUsage;
    } catch (const std::logic_error& e) {
        std::fprintf(stderr, "%s\n", e.what());
        return exit_code::kFailed;
    }
    if (options.help || options.digestSelftest || options.version) {
        const std::string text = options.help ? commprof::options::helpText(rankProgram())
                                 : options.digestSelftest ? digestSelftestJson()
                                                          : versionJson();
        std::fputs(text.c_str(), stdout);
        return exit_code::kOk;
    }
    if (options.checkModule) {
        try {
            loadTorchScript(options, torch::Device(torch::kCPU));
            return exit_code::kOk;
        } catch (const std::exception& e) {
            std::fprintf(stderr, "%s\n", e.what());
            return exit_code::kFailed;
        }
    }
    const std::string prefix = "commprof-rank[" + std::to_string(options.rank) + "]: ";
    ::mkdir(options.outDir.c_str(), 0755);
    try {
        if (!options.sweepKinds.empty()) {
            runSweep(options);
        } else {
            writeFileAtomically(options.outDir + "/" +
                                    commprof::spec::files::kRankResult.of(options.rank),
                                rankResultJson(runDdp(options)));
        }
        return exit_code::kOk;
    } catch (const RendezvousError& e) {
        std::cerr << prefix << e.what() << std::endl;
        return exit_code::kRendezvous;
    } catch (const std::exception& e) {
        std::string what = e.what();
        // c10 errors carry a C++ backtrace after the first line; the message is what matters.
        what = what.substr(0, what.find("\nException raised from"));
        // DDP's own errors in a TorchScript module's run (an unused parameter) name the file.
        if (!options.torchscript.empty() && what.rfind(options.torchscript + ": ", 0) != 0) {
            what = options.torchscript + ": " + what;
        }
        std::cerr << prefix << what << std::endl;
        return exit_code::kFailed;
    }
}

} // namespace

int main(int argc, char** argv) {
    if (argc == 3 && std::strcmp(argv[1], commprof::spec::fork::kServerFlag) == 0) {
        endRankProcess(runForkServer(argv[2], rankMain));
    }
    endRankProcess(rankMain(argc, argv));
}
