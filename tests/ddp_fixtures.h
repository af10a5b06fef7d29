// SPDX-License-Identifier: GPL-3.0-or-later
// The shared fixtures' two-rank DDP jobs, named once for every suite that replays them.
#pragma once

#include <QString>

namespace ddp_fixtures {

inline const QString kFixtures = COMMPROF_SHARED_FIXTURES "/traces/";
inline const QString kLegacy0 = kFixtures + "legacy_gloo_ddp_rank0.json.gz";
inline const QString kLegacy1 = kFixtures + "legacy_gloo_ddp_rank1.json.gz";
inline const QString kNccl = kFixtures + "kineto_nccl_ddp_ws2_rank0.json.gz";
// The legacy job's parameters in bucket order (its export carries no sizes).
inline const QString kLegacyParams = COMMPROF_TEST_DATA "/legacy_gloo_ddp_params.json";

} // namespace ddp_fixtures
