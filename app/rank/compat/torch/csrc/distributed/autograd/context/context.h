// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Debian's libtorch 1.13 ships reducer.hpp, which includes this header, but not the header
// itself. The Reducer only needs these two names; a shared_ptr has the same size whatever it
// points to, so the Reducer's layout is unchanged. app/rank/CMakeLists.txt puts this directory
// on the include path only when libtorch lacks the real header.
#include <functional>
#include <memory>

namespace at {
class Tensor;
}

namespace torch {
namespace distributed {
namespace autograd {

class DistAutogradContext {
public:
    using GradCallback = std::function<bool(at::Tensor&)>;
};
using ContextPtr = std::shared_ptr<DistAutogradContext>;

} // namespace autograd
} // namespace distributed
} // namespace torch
