// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// What every commprof program does with a command line: the table's answers (--help, --version,
// a verb missing), then the named command parsed by its row and run inside the last boundary.

#include "cli_common.h"

#include <QStringList>

#include <functional>
#include <map>
#include <string>

namespace commprof::cli {

using CommandTable = std::map<std::string, std::function<int(const Args&)>>;

// Runs the command `args` names (args without the program's name). Keyed by the option table's
// command names, so a line reaches only a command the table describes.
int dispatchCommand(const QStringList& args, const CommandTable& commands);

// Ignores SIGPIPE and SIGXFSZ: a closed stdout (`| head`) or a file-size limit is an error to
// report, not a death.
void keepSignalsAsErrors();

} // namespace commprof::cli
