// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Lets go of a big value (a 100k-cell plan) on a worker thread: freeing it takes a tenth of a
// second, which the GUI thread must not spend between two keystrokes.

#include <QThreadPool>

#include <memory>

namespace commprof::jobs {

template <typename T>
void releaseInBackground(std::shared_ptr<T> value) {
    if (value) {
        QThreadPool::globalInstance()->start([held = std::move(value)]() mutable { held.reset(); });
    }
}

} // namespace commprof::jobs
