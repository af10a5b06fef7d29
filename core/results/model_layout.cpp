// SPDX-License-Identifier: GPL-3.0-or-later
#include "model_layout.h"

#include "results/rank_file.h"
#include "spec/mapped.h"
#include "spec/rank_contract.h"

#include <QDir>

#include <algorithm>
#include <numeric>

namespace commprof::results {

namespace {

QString mib(double bytes) {
    return QString("%1 MiB").arg(bytes / 1048576.0, 0, 'f', 1);
}

// Each bucket's bytes: the sum of its parameters' (indices into `parameters`).
std::vector<double> bucketBytes(const std::vector<std::vector<std::int64_t>>& buckets,
                                const std::vector<ParameterRecord>& parameters) {
    return spec::mapped<std::vector<double>>(buckets, [&](const std::vector<std::int64_t>& b) {
        double bytes = 0;
        for (const std::int64_t i : b) {
            if (i >= 0 && std::size_t(i) < parameters.size()) {
                bytes += parameters[std::size_t(i)].bytes;
            }
        }
        return bytes;
    });
}

QString inputText(const RankHeader& r) {
    if (r.inputTokens) {
        return QString("%1 tokens of %2")
            .arg(int(*r.inputTokens))
            .arg(int(r.inputVocab.value_or(0)));
    }
    const auto dims =
        spec::mapped<QStringList>(r.inputShape, [](std::int64_t d) { return QString::number(d); });
    if (dims.isEmpty()) {
        return {};
    }
    return QString("%1, %2 classes").arg(dims.join("x")).arg(int(r.inputClasses.value_or(0)));
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
    const RankRecord& r = f.record;
    return ModelLayout{.name = QString::fromStdString(r.modelName),
                       .family = QString::fromStdString(r.family),
                       .torchscript = QString::fromStdString(r.torchscript),
                       .input = inputText(r),
                       .params = r.params,
                       .frozen = r.frozenParams,
                       .trainableTensors = int(r.parameters.size()),
                       .initialBucketBytes = bucketBytes(r.initialBuckets, r.parameters),
                       .finalBucketBytes = bucketBytes(r.finalBuckets, r.parameters)};
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
