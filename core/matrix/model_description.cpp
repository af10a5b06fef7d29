// SPDX-License-Identifier: GPL-3.0-or-later
#include "model_description.h"

#include "files/safe_file.h"
#include "matrix/input_bounds.h"
#include "matrix/matrix.h"
#include "matrix/spec_names.h"
#include "matrix/yaml_fields.h"
#include "spec/mapped.h"

#include <QDir>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLocale>
#include <QRegularExpression>

#include <cmath>
#include <numeric>
#include <stdexcept>

namespace commprof::matrix {
namespace {

constexpr qint64 kMaxDescriptionBytes = 64 << 20; // a description lists tensors, not weights

[[noreturn]] void fail(const QString& file, const QString& what) {
    throw std::runtime_error((file + ": " + what).toStdString());
}

double count(const QString& file, const QJsonObject& o, const char* key) {
    const QJsonValue v = o.value(key);
    if (!v.isDouble() || v.toDouble() < 0) {
        fail(file, QString("'%1' is missing or not a non-negative number").arg(key));
    }
    return v.toDouble();
}

// A whole number from `min` to `max`: what the matrix allows for the same input field, so a
// description is never fed to the rank with a value its flags cannot take (1e30 came out as
// -9223372036854775808).
qint64 whole(const QString& file, const QJsonValue& v, const QString& field, qint64 min,
             qint64 max) {
    const double d = v.toDouble(-1);
    if (!v.isDouble() || d != std::floor(d) || d < double(min) || d > double(max)) {
        fail(file, QString("%1: expected a whole number from %2 to %3, got %4")
                       .arg(field)
                       .arg(min)
                       .arg(max)
                       .arg(v.isDouble()   ? QString::number(d, 'g', QLocale::FloatingPointShortest)
                            : v.isString() ? "'" + v.toString() + "'"
                                           : QString("no number")));
    }
    return qint64(d);
}

QStringList dimensions(const std::vector<qint64>& shape) {
    return spec::mapped<QStringList>(shape, [](qint64 d) { return QString::number(d); });
}

double elements(const std::vector<qint64>& shape) {
    return std::accumulate(shape.begin(), shape.end(), 1.0,
                           [](double a, qint64 b) { return a * double(b); });
}

// The input the description was made for, checked as the matrix checks an entry's input.
void readDescribedInput(const QString& file, const QJsonObject& o, TorchScriptModel& m) {
    const QJsonObject input = o.value("input").toObject();
    m.describedShape.clear();
    m.describedTokens = m.describedVocab = m.describedClasses = 0;
    if (input.contains("tokens")) {
        m.describedTokens = int(whole(file, input.value("tokens"), "input.tokens", 1, kMaxCount));
        m.describedVocab = int(whole(file, input.value("vocab"), "input.vocab", 2, kMaxVocab));
        return;
    }
    const QJsonArray shape = input.value("shape").toArray();
    if (shape.isEmpty()) {
        fail(file, "input: expected a shape of at least one dimension, or tokens and vocab");
    }
    for (qsizetype i = 0; i < shape.size(); ++i) {
        m.describedShape.push_back(
            whole(file, shape[i], QString("input.shape[%1]").arg(i), 1, kMaxCount));
    }
    m.describedClasses = int(
        whole(file, o.value("target").toObject().value("classes"), "target.classes", 1, kMaxCount));
}

// The command that writes the missing description, with the entry's own input when the matrix
// gave one (a description wanted by matrixEntry has none yet).
QString describeCommand(const TorchScriptModel& m) {
    // Quoted for a shell where it needs to be, so it runs as printed.
    static const QRegularExpression plain("^[A-Za-z0-9_./,:+=@%-]+$");
    const QString file =
        plain.match(m.file).hasMatch() ? m.file : "'" + QString(m.file).replace("'", "'\\''") + "'";
    return "commprof model describe " + file + " " + describeArguments(m).join(' ');
}

} // namespace

QStringList describeArguments(const TorchScriptModel& m) {
    if (m.tokens > 0) {
        return {"--tokens", QString::number(m.tokens), "--vocab", QString::number(m.vocab)};
    }
    QStringList a{"--input-shape",
                  m.inputShape.empty() ? QString("C,H,W") : dimensions(m.inputShape).join(',')};
    if (m.classes > 0) {
        a << "--classes" << QString::number(m.classes);
    }
    return a;
}

double TorchScriptModel::activationBytesPerSampleHere() const {
    const double bytes = activationMeasured ? measuredBytesPerSample : activationBytesPerSample;
    if (!activationScaled()) {
        return bytes;
    }
    const double here = tokens > 0 ? double(tokens) : elements(inputShape);
    const double there = describedTokens > 0 ? double(describedTokens) : elements(describedShape);
    return there > 0 ? bytes * here / there : bytes;
}

double TorchScriptModel::activationBytesFixedHere() const {
    return activationMeasured ? 0.0 : activationBytesFixed;
}

QString TorchScriptModel::activationBasis() const {
    return activationMeasured && !activationScaled() ? "measured" : "estimated";
}

bool TorchScriptModel::activationScaled() const {
    return tokens > 0 ? tokens != describedTokens : inputShape != describedShape;
}

QStringList rankArguments(const TorchScriptModel& m) {
    // The matrix and a description both give an image input its shape and classes.
    QStringList a = QStringList{"--torchscript", m.file} + describeArguments(m);
    if (m.findUnusedParameters) {
        a << "--find-unused-parameters";
    }
    // The rank checks the module against what the plan sized it by.
    return a << "--described-params" << QString::number(m.paramsTotal, 'f', 0)
             << "--described-tensors" << QString::number(m.tensors);
}

void readDescription(TorchScriptModel& m) {
    const QString& file = m.description;
    QByteArray bytes;
    try {
        bytes = files::readRegularFile(file, kMaxDescriptionBytes, files::Links::Follow);
    } catch (const files::FileError& e) {
        fail(file, e.detail + "; for a module of your own, run: " + describeCommand(m) +
                       " (commprof model export SPEC --out FILE.pt writes both)");
    }
    QJsonParseError error{};
    const QJsonDocument doc = QJsonDocument::fromJson(bytes, &error);
    if (doc.isNull() || !doc.isObject()) {
        fail(file, "not a model description (JSON: " +
                       (doc.isNull() ? error.errorString() : QString("not an object")) + ")");
    }
    const QJsonObject o = doc.object();
    if (o.value("format").toString() != "commprof-model-description") {
        fail(file, "not a model description ('format' is not commprof-model-description)");
    }
    if (o.value("version").toInt() != 1) {
        fail(file, QString("description version %1; this build reads version 1")
                       .arg(o.value("version").toVariant().toString()));
    }
    m.paramsTotal = count(file, o, "params_total");
    m.paramsTrainable = count(file, o, "params_trainable");
    const QJsonArray params = o.value("parameters").toArray();
    m.tensors = int(params.size());
    double total = 0, trainable = 0;
    for (const QJsonValue p : params) {
        if (p.toObject().value("sparse_gradient").toBool()) {
            fail(file, QString("parameter '%1' %2")
                           .arg(p.toObject().value("name").toString(),
                                qName(spec::kSparseGradientReason)));
        }
        const QJsonArray shape = p.toObject().value("shape").toArray();
        const double n =
            std::accumulate(shape.begin(), shape.end(), 1.0,
                            [](double a, const QJsonValue& d) { return a * d.toDouble(); });
        total += n;
        trainable += p.toObject().value("requires_grad").toBool() ? n : 0;
    }
    if (total != m.paramsTotal || trainable != m.paramsTrainable) {
        fail(file, QString("its parameter list adds up to %1 (%2 trainable), not params_total %3 "
                           "(params_trainable %4)")
                       .arg(total, 0, 'f', 0)
                       .arg(trainable, 0, 'f', 0)
                       .arg(m.paramsTotal, 0, 'f', 0)
                       .arg(m.paramsTrainable, 0, 'f', 0));
    }
    const QJsonObject act = o.value("activations").toObject();
    m.activationBytesPerSample = count(file, act, "bytes_per_sample");
    m.activationBytesFixed = count(file, act, "bytes_fixed");
    if (act.contains("measured")) {
        m.activationMeasured = true;
        m.measuredBytesPerSample =
            count(file, act.value("measured").toObject(), "bytes_per_sample");
    }
    readDescribedInput(file, o, m);
}

QString matrixEntry(const QString& ptFile, const QString& matrixFile, const QStringList& taken) {
    TorchScriptModel t;
    t.file = QFileInfo(ptFile).absoluteFilePath();
    if (!t.file.endsWith(".pt")) {
        fail(t.file, "expected a FILE.pt (commprof model export)");
    }
    t.description = t.file.left(t.file.size() - 3) + ".json";
    readDescription(t); // checked as the plan will check it
    const QString inputText =
        t.describedTokens > 0
            ? QString("input: {tokens: %1, vocab: %2}").arg(t.describedTokens).arg(t.describedVocab)
            : QString("input: {shape: [%1]}, target: {classes: %2}")
                  .arg(dimensions(t.describedShape).join(", "))
                  .arg(t.describedClasses);
    QString path = t.file;
    if (!matrixFile.isEmpty()) {
        const QString relative = QFileInfo(matrixFile).absoluteDir().relativeFilePath(t.file);
        path = relative.startsWith("../../") ? t.file : relative;
    }
    const QString base = sanitizeId(QFileInfo(t.file).completeBaseName()); // never empty
    QString name = base;
    for (int n = 2; taken.contains(name); ++n) {
        name = QString("%1_%2").arg(base).arg(n);
    }
    // Quoted: a path may hold characters that mean something in YAML (": ", "#", "{").
    const QString quoted = "'" + QString(path).replace("'", "''") + "'";
    return QString("{name: %1, torchscript: %2, %3}").arg(name, quoted, inputText);
}

} // namespace commprof::matrix
