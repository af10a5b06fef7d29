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
    // The tensors one forward saved for backward, at export: a lower bound of the footprint
    // (autograd's temporaries and the activations' gradients are not in it).
    double activationBytesPerSample = 0;
    double activationBytesFixed = 0;
    // The input the description was made for (`input`, `target`); a different one is scaled by
    // element count.
    std::vector<qint64> describedShape;
    int describedTokens = 0;
    int describedVocab = 0;
    int describedClasses = 0;
    // `commprof calibrate FILE.pt` (activations.measured): a rank's peak RSS growth per sample
    // over one training iteration, at the described input. Its batch-independent part is in
    // the process baseline, so nothing fixed is added to it.
    bool activationMeasured = false;
    double measuredBytesPerSample = 0;
    // The activations of this entry's input: the measured figure where there is one, else the
    // export's, scaled when the entry's input differs from the described one.
    double activationBytesPerSampleHere() const;
    double activationBytesFixedHere() const;
    bool activationScaled() const;
    // "measured": calibrated at this entry's input; "estimated" otherwise.
    QString activationBasis() const;
    bool operator==(const TorchScriptModel&) const = default;
};

// commprof-rank's flags for this module: --torchscript FILE, its input spec, and what its
// description says it holds (the rank refuses a module that holds something else).
QStringList rankArguments(const TorchScriptModel& m);

// Reads the description; throws std::runtime_error "FILE: what is wrong".
void readDescription(TorchScriptModel& m);

// `commprof model describe FILE.pt`'s flags for this entry's input: --input-shape (C,H,W when
// the entry has none) and --classes, or --tokens and --vocab.
QStringList describeArguments(const TorchScriptModel& m);

// A matrix entry for the module `ptFile` at the input its description was measured at, one
// flow mapping: "{name: gpt2, torchscript: models/gpt2.pt, input: {tokens: 128, vocab: 32000}}".
// The path is relative to the matrix file's folder (absolute for an untitled matrix, or one on
// another branch of the tree), the name the file's base name made unique among `taken`. Throws
// std::runtime_error "FILE: what is wrong" when the description cannot be read.
QString matrixEntry(const QString& ptFile, const QString& matrixFile, const QStringList& taken);

} // namespace commprof::matrix
