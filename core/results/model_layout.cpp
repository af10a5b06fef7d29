// SPDX-License-Identifier: GPL-3.0-or-later
#include "model_layout.h"

#include "results/rank_file.h"
#include "spec/rank_contract.h"

#include <QDir>
#include <QJsonArray>
#include <QJsonObject>

#include <algorithm>
#include <numeric>

namespace commprof::results {

namespace {

QString mib(double bytes) {
    return QString("%1 MiB").arg(bytes / 1048576.0, 0, 'f', 1);
}

// Each bucket's bytes: the sum of its parameters' (indices into `parameters`).
std::vector<double> bucketBytes(const QJsonArray& buckets, const QJsonArray& parameters) {
    std::vector<double> out;
    for (const QJsonValue b : buckets) {
        double bytes = 0;
        for (const QJsonValue i : b.toArray()) {
            bytes += parameters.at(i.toInt()).toObject().value("bytes").toDouble();
        }
        out.push_back(bytes);
    }
    return out;
}

QString inputText(const QJsonObject& input) {
    if (input.contains("tokens")) {
        return QString("%1 tokens of %2")
            .arg(input.value("tokens").toInt())
            .arg(input.value("vocab").toInt());
    }
    QStringList dims;
    for (const QJsonValue d : input.value("shape").toArray()) {
        dims << QString::number(d.toInteger());
    }
    if (dims.isEmpty()) {
        return {};
    }
    return QString("%1, %2 classes").arg(dims.join("x")).arg(input.value("classes").toInt());
}

} // namespace

std::optional<ModelLayout> readModelLayout(const QString& cellDir, QString* problem) {
    const RankFile f = readRankFile(
        QDir(cellDir).filePath(QString::fromStdString(spec::files::kRankResult.of(0))));
    if (!f.ok()) {
        if (problem) {
            *problem = f.problem;
        }
        return std::nullopt;
    }
    const QJsonObject model = f.doc.value("model").toObject();
    const QJsonArray parameters = f.doc.value("parameters").toArray();
    ModelLayout m;
    m.name = model.value("name").toString();
    m.family = model.value("family").toString();
    m.torchscript = model.value("torchscript").toString();
    m.input = inputText(model.value("input").toObject());
    m.params = model.value("params").toDouble();
    m.frozen = model.value("frozen_params").toDouble();
    m.trainableTensors = int(parameters.size());
    m.initialBucketBytes = bucketBytes(f.doc.value("initial_buckets").toArray(), parameters);
    m.finalBucketBytes = bucketBytes(f.doc.value("final_buckets").toArray(), parameters);
    return m;
}

QString bucketsText(const std::vector<double>& bytes) {
    if (bytes.empty()) {
        return "not recorded";
    }
    const double total = std::accumulate(bytes.begin(), bytes.end(), 0.0);
    if (bytes.size() == 1) {
        return "1 bucket of " + mib(total);
    }
    const auto [small, large] = std::minmax_element(bytes.begin(), bytes.end());
    return QString("%1 buckets of %2 to %3 (%4 in all)")
        .arg(bytes.size())
        .arg(mib(*small), mib(*large), mib(total));
}

} // namespace commprof::results
