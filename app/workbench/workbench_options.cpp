// SPDX-License-Identifier: GPL-3.0-or-later
#include "workbench_options.h"

namespace commprof::workbench {

const options::Program& workbenchProgram() {
    static const options::Program program{
        "commprof-workbench",
        "desktop workbench for communication measurements of data-parallel training",
        "The workbench designs experiment matrices, runs them with a live monitor, and shows "
        "results, fits, Chrome traces on a timeline and determinism comparisons. It runs "
        "commprof-rank from next to itself, else from PATH.",
        "",
        {
            {"--help", "", "Show the options and exit"},
            {"--version", "", "Print the version and exit"},
            {"--results", "DIR", "Open a results folder"},
            {"--trace", "FILE", "Open a Chrome trace"},
            {"--screenshot", "OUTDIR",
             "Render the window and each view to OUTDIR/*.png once loaded, and exit; a dialog "
             "is written to stderr instead and ends the program (exit 2)"},
            {"--probe", "", "Run the environment probe at start"},
            {"--compare", "A,B", "Compare two fingerprinted runs"},
            {"--matrix", "YAML", "Open an experiment matrix in the designer"},
            {"--run", "", "Start running the matrix at once"},
            {"--output", "DIR",
             "Where a run writes (default: the open results while they show their own matrix, "
             "else results/<matrix name>)"},
            {"--select", "CELL_ID", "Select a cell of the results"},
            {"--size", "WxH",
             "Window size with its frame (what a screen of that size shows), e.g. 1366x768; each "
             "side from 320 to 8192"},
        },
        {},
        {{"ENVIRONMENT",
          "COMMPROF_RANK: the commprof-rank program to run; without it, the one next to "
          "commprof-workbench, else the first on PATH.\n\n"
          "QT_QPA_PLATFORM=offscreen renders without a display (with --screenshot)."},
         {"FILES", "share/commprof/configs: example matrices and machine profiles.\n\n"
                   "share/doc/commprof: the documentation the Help menu shows."},
         {"SEE ALSO", "commprof(1), commprof-rank(1)"}},
    };
    return program;
}

} // namespace commprof::workbench
