#include "cli_common.h"

#include <QJsonDocument>

#include <cstdio>

namespace commprof::cli {

void printJson(const QJsonObject& doc) {
    const QByteArray bytes = QJsonDocument(doc).toJson(QJsonDocument::Indented);
    std::fwrite(bytes.constData(), 1, static_cast<std::size_t>(bytes.size()), stdout);
    std::fflush(stdout);
}

void printError(const QString& message) {
    std::fprintf(stderr, "commprof: %s\n", qPrintable(message));
}

void printText(const QString& text) {
    std::fputs(qPrintable(text), stdout);
    std::fflush(stdout);
}

int usage(const QString& text) {
    std::fprintf(stderr, "usage: %s\n", qPrintable(text));
    return BadInput;
}

bool parseLauncher(const QString& text, std::optional<matrix::LauncherKind>& out) {
    if (text == "local" || text == "slurm") {
        out = text == "slurm" ? matrix::LauncherKind::Slurm : matrix::LauncherKind::Local;
        return true;
    }
    return false;
}

std::optional<Format> parseFormat(const QString& name) {
    if (name == "table") {
        return Format::Table;
    }
    if (name == "json") {
        return Format::Json;
    }
    if (name == "csv") {
        return Format::Csv;
    }
    return std::nullopt;
}

} // namespace commprof::cli
