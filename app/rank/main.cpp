// commprof-rank: one rank of a DDP measurement. Exit codes: 0 success, 1 the run failed,
// 2 bad usage, 3 rendezvous failed (port in use, peer missing, model mismatch).

#include "ddp_loop.h"
#include "fingerprint.h"
#include "options.h"
#include "rank_flags.h"
#include "rendezvous.h"

#include <sys/stat.h>

#include <cstdio>
#include <iostream>

using namespace commprof::rank;

int main(int argc, char** argv) {
    RankOptions options;
    try {
        options = parseOptions(argc, argv);
    } catch (const UsageError& e) {
        std::fprintf(stderr,
                     "commprof-rank: %s\nusage: %s'commprof-rank --help' describes each flag.\n",
                     e.what(), usageText().c_str());
        return 2;
    } catch (const std::logic_error& e) {
        std::fprintf(stderr, "%s\n", e.what());
        return 1;
    }
    if (options.help) {
        std::fputs(commprof::options::helpText(rankProgram()).c_str(), stdout);
        return 0;
    }
    if (options.digestSelftest) {
        std::fputs(digestSelftestJson().c_str(), stdout);
        return 0;
    }
    if (options.version) {
        std::fputs(versionJson().c_str(), stdout);
        return 0;
    }
    const std::string prefix = "commprof-rank[" + std::to_string(options.rank) + "]: ";
    ::mkdir(options.outDir.c_str(), 0755);
    try {
        const RankResult result = runDdp(options);
        writeFileAtomically(options.outDir + "/rank" + std::to_string(options.rank) + ".json",
                            rankResultJson(result));
        return 0;
    } catch (const RendezvousError& e) {
        std::cerr << prefix << e.what() << std::endl;
        return 3;
    } catch (const std::exception& e) {
        std::string what = e.what();
        // c10 errors carry a C++ backtrace after the first line; the message is what matters.
        std::cerr << prefix << what.substr(0, what.find("\nException raised from")) << std::endl;
        return 1;
    }
}
