// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// What a cell trained and how DDP bucketed it, from its rank 0 file: the model's description
// (a TorchScript module's file and input, or a synthetic family), its parameters, and the
// buckets as first assigned and as the Reducer rebuilt them. The bucket structure is what
// decides a model's communication: a few huge embeddings or many small tensors.

#include <QString>

#include <optional>
#include <vector>

namespace commprof::results {

struct ModelLayout {
    QString name, family;
    QString torchscript; // the module's file; empty for a synthetic family
    QString input;       // "3x64x64, 1000 classes", "128 tokens of 32000"; empty when not said
    double params = 0;   // every parameter, frozen ones included
    double frozen = 0;
    int trainableTensors = 0;               // what the Reducer reduces
    std::vector<double> initialBucketBytes; // as first assigned
    std::vector<double> finalBucketBytes;   // as the Reducer held them at the end
};

// nullopt, with *problem set, when the cell has no usable rank 0 file.
std::optional<ModelLayout> readModelLayout(const QString& cellDir, QString* problem = nullptr);

// "1 bucket of 44.6 MiB", "6 buckets: 24.9 MiB ... 1.0 MiB (44.6 MiB)".
QString bucketsText(const std::vector<double>& bytes);

} // namespace commprof::results
