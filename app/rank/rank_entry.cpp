// SPDX-License-Identifier: GPL-3.0-or-later
// commprof-rank's entry point: a rank (main.cpp), or with --fork-server SOCKET the server that
// forks ranks for the runner (fork_server.h).

#include "fork_server.h"
#include "rank_exit.h"
#include "spec/fork_contract.h"

#include <cstring>

int rankMain(int argc, char** argv);

int main(int argc, char** argv) {
    if (argc == 3 && std::strcmp(argv[1], commprof::spec::fork::kServerFlag) == 0) {
        commprof::rank::endRankProcess(commprof::rank::runForkServer(argv[2], rankMain));
    }
    commprof::rank::endRankProcess(rankMain(argc, argv));
}
