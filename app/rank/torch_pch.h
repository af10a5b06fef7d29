// SPDX-License-Identifier: GPL-3.0-or-later
// Precompiled for every commprof-rank source: these headers dominate its build time.
#pragma once
#include "c10d_compat.h"
#include <torch/torch.h>
