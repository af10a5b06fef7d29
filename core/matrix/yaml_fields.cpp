// SPDX-License-Identifier: GPL-3.0-or-later
#include "yaml_fields.h"

#include "matrix/yaml_text.h"

#include <QSet>

#include <algorithm>
#include <cmath>
#include <vector>

namespace commprof::matrix {
namespace {

int editDistance(const QString& a, const QString& b) {
    std::vector<int> prev(std::size_t(b.size() + 1)), cur(std::size_t(b.size() + 1));
    for (int j = 0; j <= b.size(); ++j) {
        prev[std::size_t(j)] = j;
    }
    for (int i = 1; i <= a.size(); ++i) {
        cur[0] = i;
        for (int j = 1; j <= b.size(); ++j) {
            cur[std::size_t(j)] =
                std::min({prev[std::size_t(j)] + 1, cur[std::size_t(j - 1)] + 1,
                          prev[std::size_t(j - 1)] + (a[i - 1] == b[j - 1] ? 0 : 1)});
        }
        std::swap(prev, cur);
    }
    return prev[std::size_t(b.size())];
}

} // namespace

void checkKeys(const Ctx& c, const YAML::Node& map, const QStringList& allowed,
               const QString& where) {
    QSet<QString> seen;
    for (auto it = map.begin(); it != map.end(); ++it) {
        const QString key = keyName(c.file, it->first, seen);
        if (allowed.contains(key)) {
            continue;
        }
        if (key == "<<") {
            // yaml-cpp keeps a merge key as a plain key: its mapping would be silently unread.
            c.fail(it->first, key,
                   QString("merge keys are not supported in %1: write its keys out (an alias "
                           "*name may stand for a whole value)")
                       .arg(where));
        }
        const auto distance = [&key](const QString& a) { return editDistance(key, a); };
        const auto best = std::ranges::min_element(allowed, {}, distance);
        c.fail(it->first, key,
               QString("unknown key in %1%2 (allowed: %3)")
                   .arg(where,
                        best == allowed.end() || distance(*best) >= 3
                            ? QString()
                            : QString("; did you mean '%1'?").arg(*best),
                        allowed.join(", ")));
    }
}

YAML::Node requireMap(const Ctx& c, const YAML::Node& n, const QString& key) {
    c.failIf(!n.IsMap(), n, key, "expected a mapping");
    return n;
}

YAML::Node requireSeq(const Ctx& c, const YAML::Node& n, const QString& key) {
    c.failIf(!n.IsSequence(), n, key, "expected a list");
    return n;
}

QString str(const Ctx& c, const YAML::Node& n, const QString& key) {
    c.failIf(!n.IsScalar(), n, key, "expected a string");
    return scalarText(c.file, n, key);
}

double number(const Ctx& c, const YAML::Node& n, const QString& key) {
    c.failIf(!n.IsScalar(), n, key, "expected a number");
    bool ok = false;
    const double v = QString::fromStdString(n.Scalar()).toDouble(&ok);
    c.failIf(!ok || !std::isfinite(v), n, key,
             QString("expected a number, got '%1'").arg(QString::fromStdString(n.Scalar())));
    return v;
}

int integer(const Ctx& c, const YAML::Node& n, const QString& key, int min, int max) {
    const double v = number(c, n, key);
    c.failIf(v != std::floor(v) || v < min || v > max, n, key,
             QString("expected an integer from %1 to %2, got %3")
                 .arg(min)
                 .arg(max)
                 .arg(QString::fromStdString(n.Scalar())));
    return int(v);
}

double positive(const Ctx& c, const YAML::Node& n, const QString& key, double max) {
    const double v = number(c, n, key);
    c.failIf(v <= 0 || v > max, n, key,
             QString("must be above 0 and at most %1, got %2")
                 .arg(max, 0, 'g', 12)
                 .arg(QString::fromStdString(n.Scalar())));
    return v;
}

bool boolean(const Ctx& c, const YAML::Node& n, const QString& key) {
    const QString s = str(c, n, key).toLower();
    if (s == "true" || s == "yes" || s == "on") {
        return true;
    }
    if (s == "false" || s == "no" || s == "off") {
        return false;
    }
    c.fail(n, key, QString("expected true or false, got '%1'").arg(s));
}

QString oneOf(const Ctx& c, const YAML::Node& n, const QString& key, const QStringList& allowed) {
    QString v = str(c, n, key);
    c.failIf(!allowed.contains(v), n, key,
             QString("'%1' is not one of %2").arg(v, allowed.join(", ")));
    return v;
}

} // namespace commprof::matrix
