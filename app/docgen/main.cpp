// SPDX-License-Identifier: GPL-3.0-or-later
// commprof-docgen OUTDIR VERSION: the man pages and shell completions of the three programs,
// rendered from the very option tables the programs parse and print --help from.

#include "cli_options.h"
#include "rank_flags.h"
#include "workbench_options.h"

#include <cstdio>
#include <fstream>
#include <string>

namespace {

bool write(const std::string& path, const std::string& text) {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out << text;
    out.close();
    if (!out) {
        std::fprintf(stderr, "commprof-docgen: cannot write %s\n", path.c_str());
        return false;
    }
    return true;
}

} // namespace

int main(int argc, char** argv) {
    if (argc != 3) {
        std::fprintf(stderr, "usage: commprof-docgen OUTDIR VERSION\n");
        return 2;
    }
    const std::string dir = argv[1];
    const std::string version = argv[2];
    bool ok = true;
    for (const commprof::options::Program* p :
         {&commprof::cli::commprofProgram(), &commprof::rank::rankProgram(),
          &commprof::workbench::workbenchProgram()}) {
        ok = write(dir + "/" + p->name + ".1", commprof::options::manPage(*p, version)) && ok;
        ok = write(dir + "/" + p->name + ".bash", commprof::options::bashCompletion(*p)) && ok;
        ok = write(dir + "/_" + p->name, commprof::options::zshCompletion(*p)) && ok;
    }
    return ok ? 0 : 1;
}
