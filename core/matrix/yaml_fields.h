// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Typed fields of a YAML matrix: each reader checks one node and, when it is not what the key
// needs, throws a MatrixError at the node's file:line:col naming the key.

#include "matrix/yaml_input.h"

#include <QStringList>

namespace commprof::matrix {

inline constexpr int kMaxCount = 1000000;

struct Ctx {
    QString file;
    [[noreturn]] void fail(const YAML::Node& at, const QString& key, const QString& msg) const {
        failAt(file, at, key, msg);
    }
    void failIf(bool bad, const YAML::Node& at, const QString& key, const QString& msg) const {
        if (bad) {
            fail(at, key, msg);
        }
    }
};

// Rejects keys outside `allowed`, suggesting the closest one for a likely typo, and keys that
// are not plain names or that are given twice.
void checkKeys(const Ctx& c, const YAML::Node& map, const QStringList& allowed,
               const QString& where);
YAML::Node requireMap(const Ctx& c, const YAML::Node& n, const QString& key);
YAML::Node requireSeq(const Ctx& c, const YAML::Node& n, const QString& key);
QString str(const Ctx& c, const YAML::Node& n, const QString& key);
double number(const Ctx& c, const YAML::Node& n, const QString& key);
int integer(const Ctx& c, const YAML::Node& n, const QString& key, int min, int max = kMaxCount);
// A number in (0, max].
double positive(const Ctx& c, const YAML::Node& n, const QString& key, double max);
bool boolean(const Ctx& c, const YAML::Node& n, const QString& key);
QString oneOf(const Ctx& c, const YAML::Node& n, const QString& key, const QStringList& allowed);

// out = read(c, n[key], key, args...) where n has the key; elsewhere out keeps its value.
template <class T, class Read, class... Args>
void readIfGiven(const Ctx& c, const YAML::Node& n, const char* key, T& out, Read read,
                 const Args&... args) {
    if (const YAML::Node v = n[key]) {
        out = read(c, v, key, args...);
    }
}

} // namespace commprof::matrix
