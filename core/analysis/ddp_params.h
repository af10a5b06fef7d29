// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// `trace whatif --params FILE` / `trace ddp --params FILE` (docs/formats.md, "DDP parameters"):
// a model's parameters in registration order and the DDP settings it was recorded with, for a
// trace that lacks shapes or collective sizes:
//
//   {"params": [{"name", "shape", "dtype"}], "bucket_cap_mb", "first_bucket_mb", "hook",
//    "world_size"}
//
// A TorchScript description (`commprof model export`, whose list is `parameters`, with
// `requires_grad`) is read too: the parameters that take a gradient are DDP's. The file is read
// and checked by inputs/ddp_params_file.h.

#include "spec/mapped.h"

#include <QString>
#include <QStringList>

#include <optional>
#include <ranges>
#include <vector>

namespace commprof::analysis {

struct DdpParam {
    QString name;
    std::vector<double> shape;
    QString dtype;
    double bytes = 0;
};

struct DdpParams {
    std::vector<DdpParam> params; // registration order; only those that take a gradient
    std::optional<double> bucketCapMb, firstBucketMb;
    std::optional<QString> hook;
    std::optional<int> worldSize;
    QString source; // the file it was read from (given with --params, or found beside traces)
    // Each gradient's bytes in the order the backward readies them: registration order
    // reversed, the order DDP's rebuilt buckets hold them in for a model run front to back.
    std::vector<double> bytesInReadyOrder() const {
        return spec::mapped<std::vector<double>>(std::views::reverse(params),
                                                 [](const DdpParam& p) { return p.bytes; });
    }
    QStringList names() const {
        return spec::mapped<QStringList>(params, [](const DdpParam& p) { return p.name; });
    }
};

} // namespace commprof::analysis
