#pragma once

#include <stdexcept>

namespace commprof::trace {

// Thrown when nothing usable could be read; the message names the file.
class TraceError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

} // namespace commprof::trace
