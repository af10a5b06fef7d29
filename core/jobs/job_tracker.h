// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// One way to run slow work off the GUI thread, after KDAB hotspot's job tracker: every request
// gets a generation number, and a newer request (or cancel()) makes every older one stale. A
// stale job's result, error and progress never reach the GUI, so a slow earlier request can
// never overwrite a newer one. The work gets a JobContext to ask whether it is still wanted
// and to report progress. Whatever it throws is caught on the worker thread and delivered as
// an error message: no input can end the process from a worker.
//
// Results are delivered on the thread the tracker lives in (the GUI thread), through the
// application object, after checking that the tracker still exists: a window closed while its
// job runs is never called back.

#include <QObject>
#include <QPointer>
#include <QString>

#include <atomic>
#include <exception>
#include <functional>
#include <memory>

namespace commprof::jobs {

// Thrown by JobContext::throwIfCancelled(); a tracker treats it as a silent end, not an error,
// as it does whatever a job throws once it is stale (work that passed cancelled() on to a
// parser stops with the parser's own exception).
struct Cancelled : std::exception {
    const char* what() const noexcept override { return "cancelled"; }
};

class JobTracker;

namespace detail {
struct Shared {
    std::atomic<quint64> current{0};
};
} // namespace detail

class JobContext {
public:
    JobContext(std::shared_ptr<detail::Shared> shared, quint64 generation,
               QPointer<JobTracker> tracker);
    quint64 generation() const { return generation_; }
    // True once a newer job started, cancel() was called, or the tracker is gone.
    bool cancelled() const { return shared_->current.load() != generation_; }
    void throwIfCancelled() const;
    // Shown beside the job's label while it runs; total 0 means "busy, no measure".
    void progress(int done, int total, const QString& what = {}) const;

private:
    friend class JobTracker;
    std::shared_ptr<detail::Shared> shared_;
    quint64 generation_;
    QPointer<JobTracker> tracker_;
};

class JobTracker : public QObject {
    Q_OBJECT
public:
    explicit JobTracker(QObject* parent = nullptr);
    ~JobTracker() override; // every job still running becomes stale

    // Runs work(const JobContext&) -> Result on the pool; then, on this object's thread and
    // only if no newer job started meanwhile, done(Result) or failed(message). Returns the
    // job's generation.
    template <typename Work, typename Done>
    quint64 start(const QString& label, Work work, Done done,
                  std::function<void(const QString&)> failed = {}) {
        using Result = decltype(work(std::declval<const JobContext&>()));
        const quint64 generation = begin(label);
        JobContext context(shared_, generation, this);
        auto deliverDone = std::make_shared<Done>(std::move(done));
        auto deliverFailed = std::make_shared<std::function<void(const QString&)>>(failed);
        runOnPool([context, work = std::move(work), deliverDone, deliverFailed]() mutable {
            if (context.cancelled()) {
                return; // a newer request came before this one even started
            }
            QString error;
            try {
                auto result = std::make_shared<Result>(work(context));
                deliver(context,
                        [deliverDone, result](JobTracker&) { (*deliverDone)(std::move(*result)); });
                return;
            } catch (const Cancelled&) {
                return;
            } catch (const std::exception& e) {
                error = QString::fromUtf8(e.what());
            } catch (...) {
                error = "unknown error";
            }
            if (context.cancelled()) {
                return; // work told to stop (a parser's own "cancelled") ends silently too
            }
            deliver(context, [deliverFailed, error](JobTracker& tracker) {
                if (*deliverFailed) {
                    (*deliverFailed)(error);
                }
                emit tracker.failedWith(tracker.label(), error);
            });
        });
        return generation;
    }

    // Work that must run on the GUI thread (drawing with widgets), cut into steps: one step
    // per turn of the event loop, so the window stays live, with progress after each and the
    // same generation rule (a newer job or cancel() stops the rest). step(i) may throw; then
    // failed(message) is called and no later step runs.
    quint64 startSteps(const QString& label, int count, std::function<void(int)> step,
                       std::function<void()> done, std::function<void(const QString&)> failed = {});

    // Makes the running job stale: its result will be dropped. Emits finished() at once.
    void cancel();
    bool running() const { return running_; }
    QString label() const { return label_; }

signals:
    void started(const QString& label);
    void progressed(int done, int total, const QString& what);
    void failedWith(const QString& label, const QString& message);
    void finished(); // idle again: done, failed or cancelled

private:
    quint64 begin(const QString& label);
    static void runOnPool(std::function<void()> task);
    // Calls fn on the tracker's thread if the job is still the current one, then marks the
    // tracker idle. Safe to call from any thread, also after the tracker is gone.
    static void deliver(const JobContext& context, std::function<void(JobTracker&)> fn);
    void finishIfCurrent(quint64 generation);
    struct Steps;
    void runStep(const std::shared_ptr<Steps>& steps, int index);

    std::shared_ptr<detail::Shared> shared_ = std::make_shared<detail::Shared>();
    bool running_ = false;
    QString label_;
};

} // namespace commprof::jobs
