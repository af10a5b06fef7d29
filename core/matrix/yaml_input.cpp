// SPDX-License-Identifier: GPL-3.0-or-later
#include "yaml_input.h"

#include "files/safe_file.h"

#include <yaml-cpp/depthguard.h>

namespace commprof::matrix {
namespace {

// Real matrices and profiles are a few kilobytes; yaml-cpp needs about 80 times the text in
// memory, so this bounds a parse to about 250 MB and 4 s.
constexpr qint64 kDefaultMaxYamlBytes = 2LL * 1024 * 1024;

} // namespace

qint64 maxYamlBytes() {
    return files::limitFromEnv("COMMPROF_MAX_MATRIX_BYTES", kDefaultMaxYamlBytes);
}

QByteArray readYamlFile(const QString& file) {
    try {
        return files::readRegularFile(file, maxYamlBytes(), files::Links::Follow,
                                      "raise it with COMMPROF_MAX_MATRIX_BYTES=N");
    } catch (const files::FileError& e) {
        throw MatrixError(file, 0, 0, "file", e.detail);
    }
}

YAML::Node loadYaml(const QByteArray& text, const QString& file) {
    if (text.size() > maxYamlBytes()) {
        throw MatrixError(file, 0, 0, "file",
                          QString("%1 bytes, above the limit of %2 bytes; raise it with "
                                  "COMMPROF_MAX_MATRIX_BYTES=N")
                              .arg(text.size())
                              .arg(maxYamlBytes()));
    }
    try {
        return YAML::Load(text.toStdString());
    } catch (const YAML::DeepRecursion& e) {
        // yaml-cpp's own message for this is "bad file".
        throw MatrixError(file, e.mark.line + 1, e.mark.column + 1, "yaml",
                          QString("nested more than %1 levels deep").arg(e.depth()));
    } catch (const YAML::Exception& e) {
        throw MatrixError(file, e.mark.line + 1, e.mark.column + 1, "yaml",
                          QString::fromStdString(e.msg));
    }
}

void failAt(const QString& file, const YAML::Node& at, const QString& key, const QString& message) {
    const YAML::Mark m = at.Mark();
    throw MatrixError(file, m.line + 1, m.column + 1, key, message);
}

QString keyName(const QString& file, const YAML::Node& key, QSet<QString>& seen) {
    if (!key.IsScalar()) {
        failAt(file, key, "key", "a key must be a plain name, not a list or a mapping");
    }
    QString name = QString::fromStdString(key.Scalar());
    if (seen.contains(name)) {
        failAt(file, key, name, QString("'%1' is given twice in this mapping").arg(name));
    }
    seen.insert(name);
    return name;
}

} // namespace commprof::matrix
