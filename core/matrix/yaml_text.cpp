// SPDX-License-Identifier: GPL-3.0-or-later
#include "yaml_text.h"

#include "matrix/yaml_input.h"

#include <QStringDecoder>

namespace commprof::matrix {

QString scalarText(const QString& file, const YAML::Node& n, const QString& key) {
    const std::string& bytes = n.Scalar();
    if (const std::size_t nul = bytes.find('\0'); nul != std::string::npos) {
        failAt(file, n, key,
               QString("holds a NUL character (byte %1 of the value): a name or value cannot")
                   .arg(nul + 1));
    }
    QStringDecoder utf8(QStringConverter::Utf8, QStringConverter::Flag::Stateless);
    QString text = utf8(QByteArrayView(bytes.data(), qsizetype(bytes.size())));
    if (utf8.hasError()) {
        failAt(file, n, key, "is not UTF-8 text (save the file as UTF-8)");
    }
    return text;
}

} // namespace commprof::matrix
