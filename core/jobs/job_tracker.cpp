// SPDX-License-Identifier: GPL-3.0-or-later
#include "job_tracker.h"

#include <QCoreApplication>
#include <QThread>
#include <QThreadPool>

#include <algorithm>

namespace commprof::jobs {
namespace {

// Jobs wait on subprocesses (nvidia-smi, commprof-rank --version) as well as on the CPU, so a
// two-core machine still needs more than two workers for a trace to parse while a probe runs.
constexpr int kMinWorkers = 4;

QThreadPool& pool() {
    QThreadPool* p = QThreadPool::globalInstance();
    if (p->maxThreadCount() < kMinWorkers) {
        p->setMaxThreadCount(std::max(kMinWorkers, QThread::idealThreadCount()));
    }
    return *p;
}

} // namespace

JobContext::JobContext(std::shared_ptr<detail::Shared> shared, quint64 generation,
                       QPointer<JobTracker> tracker)
    : shared_(std::move(shared)), generation_(generation), tracker_(std::move(tracker)) {}

void JobContext::throwIfCancelled() const {
    if (cancelled()) {
        throw Cancelled();
    }
}

void JobContext::progress(int done, int total, const QString& what) const {
    if (cancelled()) {
        return;
    }
    QMetaObject::invokeMethod(
        QCoreApplication::instance(),
        [shared = shared_, generation = generation_, tracker = tracker_, done, total, what] {
            if (tracker && shared->current.load() == generation && tracker->running()) {
                emit tracker->progressed(done, total, what);
            }
        },
        Qt::QueuedConnection);
}

JobTracker::JobTracker(QObject* parent) : QObject(parent) {}

JobTracker::~JobTracker() {
    ++shared_->current;
}

quint64 JobTracker::begin(const QString& label) {
    const quint64 generation = ++shared_->current;
    running_ = true;
    label_ = label;
    emit started(label);
    return generation;
}

struct JobTracker::Steps {
    quint64 generation = 0;
    int count = 0;
    std::function<void(int)> step;
    std::function<void()> done;
    std::function<void(const QString&)> failed;
};

quint64 JobTracker::startSteps(const QString& label, int count, std::function<void(int)> step,
                               std::function<void()> done,
                               std::function<void(const QString&)> failed) {
    auto steps = std::make_shared<Steps>(
        Steps{begin(label), count, std::move(step), std::move(done), std::move(failed)});
    QMetaObject::invokeMethod(
        this, [this, steps] { runStep(steps, 0); }, Qt::QueuedConnection);
    return steps->generation;
}

void JobTracker::runStep(const std::shared_ptr<Steps>& steps, int index) {
    if (shared_->current.load() != steps->generation) {
        return; // cancelled, or a newer job took over
    }
    QString error;
    try {
        if (index < steps->count) {
            steps->step(index);
            emit progressed(index + 1, steps->count, {});
        }
        if (index + 1 < steps->count) {
            QMetaObject::invokeMethod(
                this, [this, steps, index] { runStep(steps, index + 1); }, Qt::QueuedConnection);
            return;
        }
    } catch (const std::exception& e) {
        error = QString::fromUtf8(e.what());
    } catch (...) {
        error = "unknown error";
    }
    running_ = false;
    if (error.isEmpty() && steps->done) {
        try {
            steps->done(); // may start this tracker's next job
        } catch (const std::exception& e) {
            error = QString::fromUtf8(e.what());
        }
    }
    if (!error.isEmpty()) {
        if (steps->failed) {
            steps->failed(error);
        }
        emit failedWith(label_, error);
    }
    finishIfCurrent(steps->generation);
}

void JobTracker::cancel() {
    ++shared_->current;
    if (running_) {
        running_ = false;
        emit finished();
    }
}

void JobTracker::runOnPool(std::function<void()> task) {
    pool().start(std::move(task));
}

void JobTracker::deliver(const JobContext& context, std::function<void(JobTracker&)> fn) {
    QCoreApplication* app = QCoreApplication::instance();
    if (!app) {
        return; // the application is going away; nobody is left to show a result to
    }
    const JobContext job = context;
    QMetaObject::invokeMethod(
        app,
        [job, fn = std::move(fn)] {
            JobTracker* tracker = job.tracker_.data();
            if (!tracker || job.cancelled()) {
                return;
            }
            tracker->running_ = false;
            // Showing a result is a GUI slot like any other: it must not end the process.
            try {
                fn(*tracker);
            } catch (const std::exception& e) {
                emit tracker->failedWith(tracker->label(), QString::fromUtf8(e.what()));
            } catch (...) {
                emit tracker->failedWith(tracker->label(), "unknown error");
            }
            tracker->finishIfCurrent(job.generation());
        },
        Qt::QueuedConnection);
}

void JobTracker::finishIfCurrent(quint64 generation) {
    // fn may have started the next job on this tracker; then that one is what runs now.
    if (shared_->current.load() == generation && !running_) {
        emit finished();
    }
}

} // namespace commprof::jobs
