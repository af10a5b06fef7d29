// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The `link` setting: `loopback` (every rank on this machine's loopback) or a rate at which
// emulated hosts (network namespaces, ranks_per_host ranks each) are joined ("500mbit",
// "1gbit", "10gbit"; tc's units, 1 kbit = 1000 bit). The rules that need a cell (the world size
// in hosts, the launcher, the machine) are checked as each cell is made.

#include <QString>

#include <optional>

namespace YAML {
class Node;
}

namespace commprof::matrix {

struct Cell;
struct Ctx;
struct Matrix;
struct MachineLimits;

inline const QString kLoopback = QStringLiteral("loopback");

// Bits per second of a rate as `link` spells it, or nullopt with why not in `why`.
std::optional<double> linkBitsPerSecond(const QString& text, QString* why = nullptr);

// Whether two canonical `link` values are one link: the same word, or the same rate however
// spelled ("1gbit" and "1000mbit").
bool sameLink(const QString& a, const QString& b);

// One YAML value of `link`, spelled canonically ("1gbit", "2.5gbit", "loopback").
QString readLink(const Ctx& c, const YAML::Node& n);

// Where each value of `link` is written, for errors about the cells that take it.
void recordLinkMarks(const YAML::Node& root, Matrix& m);

// A cell's world is a whole number of hosts (else MatrixError at `worldSizeMark`); over an
// emulated link its launcher is local and the machine can emulate links (limits.linkRefusal
// empty), else MatrixError at where the link is written.
void checkLinkOf(const Matrix& m, const MachineLimits& limits, const Cell& cell,
                 std::pair<int, int> worldSizeMark);

} // namespace commprof::matrix
