// SPDX-License-Identifier: GPL-3.0-or-later
#include "links.h"

#include "matrix/knobs.h"
#include "matrix/matrix.h"
#include "matrix/yaml_fields.h"

#include <QRegularExpression>

#include <cmath>

namespace commprof::matrix {
namespace {

// tbf takes 64-bit rates; far above any NIC, low enough that bytes per second stay exact.
constexpr double kMaxBitsPerSecond = 1.0e12;

struct Unit {
    const char* name;
    double bits;
};
constexpr Unit kUnits[] = {{"bit", 1}, {"kbit", 1e3}, {"mbit", 1e6}, {"gbit", 1e9}, {"tbit", 1e12}};

} // namespace

std::optional<double> linkBitsPerSecond(const QString& text, QString* why) {
    static const QRegularExpression rate("^([0-9]+(?:\\.[0-9]+)?)([a-z]+)$");
    const QRegularExpressionMatch m = rate.match(text.trimmed().toLower());
    const auto fail = [why](const QString& reason) -> std::optional<double> {
        if (why) {
            *why = reason;
        }
        return std::nullopt;
    };
    if (!m.hasMatch()) {
        return fail(QString("unparsable rate '%1': expected loopback or a number and a unit "
                            "(bit, kbit, mbit, gbit, tbit), e.g. 1gbit")
                        .arg(text));
    }
    for (const Unit& u : kUnits) {
        if (m.captured(2) == QLatin1String(u.name)) {
            const double bits = m.captured(1).toDouble() * u.bits;
            if (bits <= 0) {
                return fail(
                    QString("a rate of 0 ('%1') moves nothing: give a rate above 0").arg(text));
            }
            if (bits > kMaxBitsPerSecond) {
                return fail(QString("rate '%1' is above 1tbit").arg(text));
            }
            return bits;
        }
    }
    return fail(QString("unparsable rate '%1': unknown unit '%2' (bit, kbit, mbit, gbit, tbit; "
                        "tc's 'bps' means bytes and is not taken)")
                    .arg(text, m.captured(2)));
}

bool sameLink(const QString& a, const QString& b) {
    if (a == b) {
        return true;
    }
    const std::optional<double> x = linkBitsPerSecond(a);
    const std::optional<double> y = linkBitsPerSecond(b);
    return x && y && std::abs(*x - *y) <= 1e-9 * std::max(*x, *y);
}

QString readLink(const Ctx& c, const YAML::Node& n) {
    const QString text = str(c, n, "link").trimmed().toLower();
    if (text == kLoopback) {
        return text;
    }
    QString why;
    c.failIf(!linkBitsPerSecond(text, &why), n, "link", why);
    // "1.0gbit" and "1gbit" are one link: spelled by its number, so ids and series agree.
    static const QRegularExpression parts("^([0-9.]+)([a-z]+)$");
    const QRegularExpressionMatch m = parts.match(text);
    return QString::number(m.captured(1).toDouble(), 'g', 12) + m.captured(2);
}

void recordLinkMarks(const YAML::Node& root, Matrix& m) {
    const auto record = [&m](const YAML::Node& where) {
        // A missing key is an invalid node, which IsMap would throw on.
        if (!where.IsDefined() || !where.IsMap() || !where["link"]) {
            return;
        }
        const YAML::Node n = where["link"];
        const auto add = [&m](const YAML::Node& v) {
            m.writtenLinks.values.push_back(QString::fromStdString(v.Scalar()).trimmed().toLower());
            m.writtenLinks.marks.emplace_back(v.Mark().line + 1, v.Mark().column + 1);
        };
        if (n.IsSequence()) {
            for (const YAML::Node& v : n) {
                add(v);
            }
        } else {
            add(n);
        }
    };
    m.writtenLinks.key = "link";
    record(root["defaults"]);
    for (const char* list : {"models", "layers"}) {
        if (root[list].IsDefined() && root[list].IsSequence()) {
            for (const YAML::Node& entry : root[list]) {
                record(entry);
                if (entry.IsDefined() && entry.IsMap() && entry["overrides"]) {
                    record(entry["overrides"]);
                }
            }
        }
    }
}

void checkLinkOf(const Matrix& m, const MachineLimits& limits, const Cell& cell,
                 std::pair<int, int> worldSizeMark) {
    const QString& link = cell.config.link;
    const int k = cell.config.ranksPerHost;
    if (cell.worldSize % k != 0) {
        throw MatrixError(m.file, worldSizeMark.first, worldSizeMark.second, "world_sizes",
                          QString("world size %1 is not a whole number of hosts of "
                                  "ranks_per_host %2")
                              .arg(cell.worldSize)
                              .arg(k));
    }
    if (link == kLoopback) {
        return;
    }
    if (cell.worldSize / k < 2) {
        throw MatrixError(m.file, worldSizeMark.first, worldSizeMark.second, "world_sizes",
                          QString("world size %1 in hosts of ranks_per_host %2 is one host: link "
                                  "%3 joins two or more (exclude the cell, or use loopback)")
                              .arg(cell.worldSize)
                              .arg(k)
                              .arg(link));
    }
    // Where the cell's link is written: the first value spelled as the cell's (a matrix that
    // only defaults it never gets here: the default is loopback).
    std::pair<int, int> at{1, 1};
    for (std::size_t i = 0; i < m.writtenLinks.values.size(); ++i) {
        const auto written = linkBitsPerSecond(m.writtenLinks.values[i]);
        if (written && written == linkBitsPerSecond(link)) {
            at = m.writtenLinks.marks[i];
            break;
        }
    }
    const auto fail = [&](const QString& message) {
        throw MatrixError(m.file, at.first, at.second, "link", message);
    };
    if (m.launcher.kind == LauncherKind::Slurm) {
        fail(QString("link %1 is emulated on one machine; under the Slurm launcher the ranks use "
                     "the cluster's real network: use link: loopback (the default) there")
                 .arg(link));
    }
    if (!limits.linkRefusal.isEmpty()) {
        fail(QString("link %1 cannot be emulated here: %2").arg(link, limits.linkRefusal));
    }
}

} // namespace commprof::matrix
