// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// A model entry that names a TorchScript file (`torchscript: models/resnet18.pt`), and the
// description `commprof model export` wrote beside it (FILE.json, docs/formats.md): what the
// plan sizes the cell by, without loading the module.

#include <QString>
#include <QStringList>

#include <vector>

namespace commprof::matrix {

struct TorchScriptModel {
    QString file;        // the .pt, absolute (written relative to the matrix file)
    QString description; // FILE.json beside it
    // The input the matrix feeds: an image of inputShape (C,H,W) with `classes` targets, or
    // `tokens` token ids below `vocab` with a next-token loss.
    std::vector<qint64> inputShape;
    int classes = 0;
    int tokens = 0;
    int vocab = 0;
    bool findUnusedParameters = false;
    // From the description.
    double paramsTotal = 0;
    double paramsTrainable = 0;
    int tensors = 0;
    double activationBytesPerSample = 0; // measured at export
    double activationBytesFixed = 0;
    // The input the activations were measured at; a different one is scaled by element count.
    std::vector<qint64> describedShape;
    int describedTokens = 0;
    // The activation per sample at this entry's input: the measured bytes, scaled when the
    // entry's input differs from the one they were measured at.
    double activationBytesPerSampleHere() const;
    bool activationScaled() const;
    bool operator==(const TorchScriptModel&) const = default;
};

// commprof-rank's flags for this module: --torchscript FILE and its input spec.
QStringList rankArguments(const TorchScriptModel& m);

// Reads the description; throws std::runtime_error "FILE: what is wrong".
void readDescription(TorchScriptModel& m);

// A matrix entry for the module `ptFile` at the input its description was measured at, one
// flow mapping: "{name: gpt2, torchscript: models/gpt2.pt, input: {tokens: 128, vocab: 32000}}".
// The path is relative to the matrix file's folder (absolute for an untitled matrix, or one on
// another branch of the tree), the name the file's base name made unique among `taken`. Throws
// std::runtime_error "FILE: what is wrong" when the description cannot be read.
QString matrixEntry(const QString& ptFile, const QString& matrixFile, const QStringList& taken);

} // namespace commprof::matrix
