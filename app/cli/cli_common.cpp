// SPDX-License-Identifier: GPL-3.0-or-later
#include "cli_common.h"

#include "cli_options.h"
#include "spec/mapped.h"

#include <QFileInfo>
#include <QJsonDocument>

#include <algorithm>
#include <cstdio>

namespace commprof::cli {

void printJson(const QJsonObject& doc) {
    const QByteArray bytes = QJsonDocument(doc).toJson(QJsonDocument::Indented);
    std::fwrite(bytes.constData(), 1, static_cast<std::size_t>(bytes.size()), stdout);
    std::fflush(stdout);
}

QString terminalSafe(const QString& text) {
    const auto control = [](char16_t c) {
        return (c < 0x20 && c != '\n' && c != '\t') || (c >= 0x7f && c <= 0x9f);
    };
    if (std::none_of(text.begin(), text.end(), [&](QChar c) { return control(c.unicode()); })) {
        return text;
    }
    QString out;
    out.reserve(text.size() + 16);
    for (const QChar c : text) {
        if (control(c.unicode())) {
            out += QString("\\x%1").arg(c.unicode(), 2, 16, QChar('0'));
        } else {
            out += c;
        }
    }
    return out;
}

void printError(const QString& message) {
    const QByteArray bytes = terminalSafe(message).toLocal8Bit();
    std::fprintf(stderr, "commprof: %s\n", bytes.constData());
}

void printText(const QString& text) {
    const QByteArray bytes = terminalSafe(text).toLocal8Bit();
    std::fwrite(bytes.constData(), 1, static_cast<std::size_t>(bytes.size()), stdout);
    std::fflush(stdout);
}

int badInput(const QString& message) {
    printError(message);
    return BadInput;
}

int badInput(const std::exception& e) {
    return badInput(QString::fromStdString(e.what()));
}

int notFine(const QString& message) {
    printError(message);
    return NotFine;
}

Args::Args(const options::Command& command, options::ParsedArgs parsed)
    : command_(&command), parsed_(std::move(parsed)) {}

QStringList Args::operands() const {
    return spec::mapped<QStringList>(parsed_.operands, QString::fromStdString);
}

QString Args::value(const char* flag, const QString& fallback) const {
    const std::string v = parsed_.value(flag);
    return v.empty() ? fallback : QString::fromStdString(v);
}

QStringList Args::values(const char* flag) const {
    return spec::mapped<QStringList>(parsed_.values(flag), QString::fromStdString);
}

int Args::usageError(const QString& message) const {
    printError(QString::fromStdString(command_->name) + ": " + message);
    std::fprintf(stderr, "usage: %s\n", options::usageLine(commprofProgram(), command_).c_str());
    return BadInput;
}

std::optional<matrix::LauncherKind> launcherOf(const Args& args) {
    if (!args.has("--launcher")) {
        return std::nullopt;
    }
    return args.value("--launcher") == "slurm" ? matrix::LauncherKind::Slurm
                                               : matrix::LauncherKind::Local;
}

Format formatOf(const Args& args) {
    Format out = Format::Table;
    for (const auto& [flag, value] : args.given()) {
        if (flag == "--json" || (flag == "--format" && value == "json")) {
            out = Format::Json;
        } else if (flag == "--csv" || (flag == "--format" && value == "csv")) {
            out = Format::Csv;
        } else if (flag == "--format") {
            out = Format::Table;
        }
    }
    return out;
}

QString pythonProgram() {
    if (QString chosen = qEnvironmentVariable("COMMPROF_PYTHON"); !chosen.isEmpty()) {
        return chosen;
    }
    return QFileInfo::exists("/usr/bin/python3") ? "/usr/bin/python3" : "python3";
}

} // namespace commprof::cli
