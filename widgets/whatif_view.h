// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The What if page: a DDP job's recorded step replayed by the step model, and predicted again
// at the bucket cap, comm hook, link bandwidth and world size its controls say (analysis/
// whatif.h). The figure stacks each step from its parts (whatif_plot.h); the numbers and the
// recommendation are written below it.
//
// Every prediction runs off the GUI thread through a JobTracker: a control changed while one
// runs makes it stale, so an older result never replaces a newer one. The job is replayed once
// (analysis::replay(), with this machine's stored hook calibration and a cell's cell.json) and
// kept beside it: a control predicts the scenarios from that replay, never replays again. Traces
// that are no DDP job (no backward, no all-reduce, no sizes and no parameters) leave the page
// saying why, never an empty figure.
//
// A job that `commprof record` made can be confirmed on itself ("Confirm on this job"): the page
// only offers it and shows how it goes; the confirmation runs elsewhere (the main window's
// ConfirmController, over runner::RecordJob). A job the readers found cut or missing a rank says
// so above the recommendation, so a part is never shown as the whole job.

#include "analysis/confirmation.h"
#include "analysis/ddp_job.h"
#include "analysis/step_parts.h"
#include "analysis/whatif.h"

#include <QWidget>

#include <atomic>
#include <memory>
#include <optional>

class QComboBox;
class QCustomPlot;
class QDoubleSpinBox;
class QHBoxLayout;
class QLabel;
class QProgressBar;
class QPushButton;
class QSpinBox;
class QToolButton;

namespace commprof::jobs {
class JobTracker;
}

namespace commprof::widgets {

// A job replayed once, with its recorded step's parts: what the page predicts every scenario
// from.
struct WhatIfReplay {
    analysis::Replay replay;
    std::optional<analysis::StepParts> recorded;
};

class WhatIfView : public QWidget {
    Q_OBJECT
public:
    // jobs: where predictions run (shown by the owner); null: a tracker of our own.
    explicit WhatIfView(jobs::JobTracker* jobs = nullptr, QWidget* parent = nullptr);

    // The job to replay: the controls go back to its recorded settings.
    void setJob(std::shared_ptr<const analysis::DdpJobAnalysis> job);
    // No job: why (shown instead of the figure).
    void setUnavailable(const QString& why);

    jobs::JobTracker* jobs() const { return jobs_; }

    // What is shown: the last prediction, its scenario that the controls chose, the recorded
    // step's parts; and the page's text (the numbers, or why there are none).
    const std::optional<analysis::WhatIf>& result() const { return result_; }
    const analysis::Scenario* chosen() const;
    const std::optional<analysis::StepParts>& recorded() const { return recorded_; }
    // How many times this page has replayed a job (once per job opened or re-read).
    int replays() const { return replays_->load(); }
    QString message() const { return shownText(message_); } // why nothing is shown, or empty
    // The job's warnings as shown above the recommendation; the confirmation's progress or result.
    QString warningsText() const { return shownText(warnings_); }
    QString confirmationText() const { return shownText(confirmation_); }

    // The setting "Confirm on this job" measures: the recommendation's, or where it keeps the
    // recorded setting, the one the controls chose; nullopt when both are the recorded one.
    std::optional<analysis::Setting> confirmCandidate() const;

    // Whether the shown job can be confirmed on itself (a `commprof record` folder), and why not.
    void setConfirmSource(bool available, const QString& why);
    // A confirmation runs (text: its progress), or ended with `text` (what was measured).
    void setConfirmState(bool running, const QString& text);

signals:
    // The user chose a parameters file (docs/formats.md) for traces without sizes.
    void paramsFileChosen(const QString& path);
    // A prediction is shown (after every change of the controls).
    void shown();
    // "Confirm on this job": measure `candidate` against the recorded setting on the job.
    void confirmRequested(const analysis::Setting& candidate);
    void confirmCancelRequested();

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    QHBoxLayout* makeControls();
    QHBoxLayout* makeConfirmLine();
    void makeResultWidgets();
    void connectControls();
    void predict();
    void display(const analysis::WhatIf& w, std::size_t chosen,
                 const std::optional<analysis::StepParts>& recorded);
    void setControlsEnabled(bool on);
    void updateConfirm();
    QString shownText(const QLabel* label) const; // empty while the label is hidden

    jobs::JobTracker* jobs_ = nullptr;
    std::shared_ptr<const analysis::DdpJobAnalysis> job_;
    // job_ replayed, once it has been; every control predicts from it.
    std::shared_ptr<const WhatIfReplay> replayed_;
    std::shared_ptr<std::atomic<int>> replays_ = std::make_shared<std::atomic<int>>(0);
    bool recordedSettings_ = false; // the next prediction sets the controls to the recording's
    std::optional<analysis::WhatIf> result_;
    std::size_t chosen_ = 0;
    std::optional<analysis::StepParts> recorded_;

    QDoubleSpinBox* cap_ = nullptr;
    QComboBox* hook_ = nullptr;
    QDoubleSpinBox* bandwidth_ = nullptr;
    QSpinBox* world_ = nullptr;
    QPushButton* params_ = nullptr;
    QPushButton* reset_ = nullptr;
    QLabel* message_ = nullptr;
    QCustomPlot* plot_ = nullptr;
    QLabel* numbers_ = nullptr;
    QLabel* recommendation_ = nullptr;
    QLabel* notes_ = nullptr;
    QToolButton* notesFold_ = nullptr;
    QLabel* warnings_ = nullptr;
    QPushButton* confirm_ = nullptr;
    QPushButton* confirmCancel_ = nullptr;
    QProgressBar* confirmProgress_ = nullptr;
    QLabel* confirmation_ = nullptr;
    bool confirmSource_ = false;
    QString confirmWhy_ = "Open a folder made by commprof record to confirm on it";
    bool confirmRunning_ = false;
    bool keepWarnings_ = false; // setUnavailable after a failed prediction keeps them
};

} // namespace commprof::widgets
