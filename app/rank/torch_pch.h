// Precompiled for every commprof-rank source: these headers dominate its build time.
#pragma once
#include <torch/torch.h>
#include "c10d_compat.h"
