// SPDX-License-Identifier: GPL-3.0-or-later
#include "whatif_view.h"

#include "analysis/cell_settings.h"
#include "analysis/number_text.h"
#include "analysis/recommendation.h"
#include "inputs/cell_settings_file.h"
#include "jobs/job_tracker.h"
#include "layout_helpers.h"
#include "report/ddp_step_graph_text.h"
#include "results/hook_calibration.h"
#include "spec/comm_hooks.h"
#include "whatif_plot.h"

#include <qcustomplot.h>

#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFileDialog>
#include <QHBoxLayout>
#include <QLabel>
#include <QProgressBar>
#include <QPushButton>
#include <QSpinBox>
#include <QTimer>
#include <QVBoxLayout>

#include <algorithm>
#include <stdexcept>

namespace commprof::widgets {
namespace {

// Caps go down to 1/16 MiB, so the box keeps four decimals, but it shows only the ones a
// value has ("1 MiB", "0.0625 MiB"), as the matrix and the CLI write caps.
class CapSpinBox : public QDoubleSpinBox {
public:
    using QDoubleSpinBox::QDoubleSpinBox;
    QString textFromValue(double value) const override {
        QString text = QDoubleSpinBox::textFromValue(value);
        const QChar point = locale().decimalPoint().front();
        if (text.contains(point)) {
            while (text.endsWith('0'))
                text.chop(1);
            if (text.endsWith(point))
                text.chop(1);
        }
        return text;
    }
};

// What the controls allow: a cap from 64 KiB to 4 GiB (DDP takes any; these bound the model's
// buckets), a link from a hundredth to a thousand times the recorded, up to a million ranks.
constexpr double kMinCapMb = 0.0625, kMaxCapMb = 4096;
constexpr double kMinBandwidthX = 0.01, kMaxBandwidthX = 1000;
constexpr int kMaxWorldSize = 1000000;

struct Predicted {
    analysis::WhatIf w;
    std::size_t chosen = 0;
    std::shared_ptr<const WhatIfReplay> replayed; // what it was predicted from
};

// The scenario of cap and hook among w's; the first when none matches.
std::size_t scenarioOf(const analysis::WhatIf& w, double capMb, const QString& hook) {
    const auto it = std::ranges::find_if(
        w.scenarios, [&](const auto& s) { return s.capMb == capMb && s.hook == hook; });
    return it == w.scenarios.end() ? 0 : std::size_t(it - w.scenarios.begin());
}

QString ms(double v) {
    return QString::number(v, 'f', 2);
}

// Where the prediction's inputs came from, in one line: the collective cost (the trace's own
// collectives, or a sweep's cell where they cannot pin it down), the backward's loss beside a
// collective, each hook's own work, and the replay's own error on the recording.
QString inputsLine(const analysis::WhatIf& w) {
    const auto percent = [](double v) { return QString::number(v * 100, 'f', 0); };
    const QString method = w.costMethod.section(" (", 0, 0);
    QStringList parts{
        w.costFrom == "sweep"
            ? QString("collective cost from the sweep cell %1 (%2)").arg(w.costSweep, method)
            : QString("collective cost from the trace (%1)").arg(method),
        QString("the backward loses %1 % (%2..%3 %) of a collective's time beside "
                "it, from %4")
            .arg(percent(w.cost.contention), percent(w.contentionLow), percent(w.contentionHigh),
                 w.contentionFrom == "trace" ? QString("the trace")
                 : w.contentionFrom == "unknown"
                     ? QString("neither the trace nor a calibration (that whole range is in "
                               "the interval)")
                     : w.contentionFrom)};
    for (const auto& [hook, from] : w.hookWorkFrom) {
        parts << QString("%1's own work %2")
                     .arg(hook, from == "recording" ? QString("in the recording")
                                : from == "unknown"
                                    ? QString("unknown (commprof calibrate hooks measures it)")
                                    : "from " + from);
    }
    parts << QString("the replay %1 % off the recorded step (in every interval)")
                 .arg(QString::number(w.replayErrorFraction * 100, 'f', 1));
    return "Inputs: " + parts.join("; ") + ".";
}

// A label of text the user may select and copy, wrapped to the page's width.
QLabel* textLabel(const char* name, QWidget* parent) {
    auto* l = new QLabel(parent);
    l->setObjectName(name);
    l->setTextFormat(Qt::PlainText);
    l->setTextInteractionFlags(Qt::TextSelectableByMouse);
    l->setWordWrap(true);
    return l;
}

} // namespace

WhatIfView::WhatIfView(jobs::JobTracker* jobs, QWidget* parent)
    : QWidget(parent), jobs_(jobs ? jobs : new jobs::JobTracker(this)) {
    QHBoxLayout* controls = makeControls();
    QHBoxLayout* confirmLine = makeConfirmLine();
    makeResultWidgets();
    auto* layout = bareLayout<QVBoxLayout>(this);
    layout->addLayout(controls);
    layout->addLayout(confirmLine);
    layout->addWidget(warnings_);
    layout->addWidget(message_, 1);
    layout->addWidget(plot_, 4);
    layout->addWidget(numbers_);
    layout->addWidget(recommendation_);
    layout->addWidget(notesFold_);
    layout->addWidget(notes_);
    connectControls();
    setUnavailable("Open a DDP job's traces (File > Open trace folder, or a cell with its "
                   "ranks) to replay its step here.");
}

// The settings a user changes (cap, hook, bandwidth, world size), then the actions on the job.
QHBoxLayout* WhatIfView::makeControls() {
    cap_ = new CapSpinBox(this);
    cap_->setObjectName("whatIfCap");
    cap_->setRange(kMinCapMb, kMaxCapMb);
    cap_->setDecimals(4);
    cap_->setSuffix(" MiB");
    cap_->setToolTip("DDP's bucket_cap_mb: the buckets the gradients are sent in");
    hook_ = new QComboBox(this);
    hook_->setObjectName("whatIfHook");
    for (const spec::CommHook& h : spec::kCommHooks) {
        hook_->addItem(QString::fromLatin1(h.name.data(), int(h.name.size())));
    }
    hook_->setToolTip("The comm hook: what goes on the wire per bucket");
    bandwidth_ = new QDoubleSpinBox(this);
    bandwidth_->setObjectName("whatIfBandwidth");
    bandwidth_->setRange(kMinBandwidthX, kMaxBandwidthX);
    bandwidth_->setDecimals(2);
    bandwidth_->setValue(1);
    bandwidth_->setSuffix(" x");
    bandwidth_->setToolTip("The link's bandwidth as a multiple of the recorded one");
    world_ = new QSpinBox(this);
    world_->setObjectName("whatIfWorldSize");
    world_->setRange(2, kMaxWorldSize);
    world_->setToolTip("Ranks in the job: the ring all-reduce's cost at that many, compute per "
                       "rank unchanged");
    params_ = new QPushButton("&Parameters file...", this);
    params_->setToolTip("The model's parameters (docs/formats.md, DDP parameters): for traces "
                        "that do not size their collectives");
    reset_ = new QPushButton("&Recorded settings", this);
    reset_->setToolTip("Back to the cap, hook, bandwidth and world size the job ran with");

    auto* controls = new QHBoxLayout;
    controls->setContentsMargins(6, 4, 6, 4);
    for (const auto& [text, field] :
         std::initializer_list<std::pair<const char*, QWidget*>>{{"Bucket &cap", cap_},
                                                                 {"&Hook", hook_},
                                                                 {"&Bandwidth", bandwidth_},
                                                                 {"&World size", world_}}) {
        auto* label = new QLabel(text, this);
        label->setBuddy(field);
        controls->addWidget(label);
        controls->addWidget(field);
    }
    controls->addStretch(1);
    // Actions on the job itself sit here, after the settings and before the parameters file.
    confirm_ = new QPushButton("C&onfirm on this job", this);
    confirm_->setObjectName("whatIfConfirm");
    controls->addWidget(reset_);
    controls->addWidget(confirm_);
    controls->addWidget(params_);
    return controls;
}

// The confirmation's progress, Cancel and result: a line of its own under the controls, hidden
// until one is started.
QHBoxLayout* WhatIfView::makeConfirmLine() {
    confirmProgress_ = new QProgressBar(this);
    confirmProgress_->setObjectName("whatIfConfirmProgress");
    confirmProgress_->setRange(0, 0); // confirm reports rounds, not a fraction
    confirmProgress_->setMaximumWidth(160);
    confirmCancel_ = new QPushButton("Cancel confirmation", this);
    confirmCancel_->setObjectName("whatIfConfirmCancel");
    confirmation_ = textLabel("whatIfConfirmation", this);
    auto* confirmLine = new QHBoxLayout;
    confirmLine->setContentsMargins(6, 0, 6, 0);
    confirmLine->addWidget(confirmProgress_);
    confirmLine->addWidget(confirmation_, 1);
    confirmLine->addWidget(confirmCancel_);
    setConfirmState(false, {}); // hidden until one is started
    return confirmLine;
}

// The job's warnings, why nothing is shown, the figure, its numbers, the recommendation and the
// model's notes.
void WhatIfView::makeResultWidgets() {
    // What the readers found wrong with the job (a cut trace, a missing rank): above the
    // numbers, in bold, since every number below is of what was read.
    warnings_ = textLabel("whatIfWarnings", this);
    warnings_->setContentsMargins(6, 2, 6, 2);
    QFont bold = warnings_->font();
    bold.setBold(true);
    warnings_->setFont(bold);
    QPalette p = warnings_->palette();
    p.setColor(QPalette::WindowText, QColor(0xb0, 0x30, 0x00));
    warnings_->setPalette(p);
    warnings_->hide();

    message_ = new QLabel(this);
    message_->setObjectName("whatIfMessage");
    message_->setWordWrap(true);
    message_->setTextFormat(Qt::PlainText);
    message_->setAlignment(Qt::AlignCenter);
    plot_ = new QCustomPlot(this);
    plot_->setObjectName("whatIfPlot");
    plot_->installEventFilter(this);
    numbers_ = textLabel("whatIfNumbers", this);
    recommendation_ = textLabel("whatIfRecommendation", this);
    recommendation_->setFont(bold);
    // What the model assumed or could not model (one rank's trace, a hook no calibration
    // covers): the grounds of the numbers above, folded under them.
    notes_ = textLabel("whatIfNotes", this);
    notes_->setForegroundRole(QPalette::PlaceholderText);
    notesFold_ = makeFold("Model notes", notes_, this);
    notesFold_->setObjectName("whatIfNotesFold");
    notesFold_->hide();
}

// A changed setting predicts again; the buttons ask for the recording's settings, a parameters
// file, a confirmation or its end.
void WhatIfView::connectControls() {
    const auto changed = [this] {
        if (job_) {
            predict();
        }
    };
    connect(cap_, &QDoubleSpinBox::valueChanged, this, changed);
    connect(hook_, &QComboBox::currentIndexChanged, this, changed);
    connect(bandwidth_, &QDoubleSpinBox::valueChanged, this, changed);
    connect(world_, &QSpinBox::valueChanged, this, changed);
    connect(reset_, &QPushButton::clicked, this, [this] {
        if (job_) {
            recordedSettings_ = true;
            predict();
        }
    });
    connect(params_, &QPushButton::clicked, this, [this] {
        const QString path = QFileDialog::getOpenFileName(this, "DDP parameters file", {},
                                                          "JSON (*.json);;All files (*)");
        if (!path.isEmpty()) {
            emit paramsFileChosen(path);
        }
    });
    connect(confirm_, &QPushButton::clicked, this, [this] {
        if (const auto candidate = confirmCandidate(); candidate && !confirmRunning_) {
            emit confirmRequested(*candidate);
        }
    });
    connect(confirmCancel_, &QPushButton::clicked, this, &WhatIfView::confirmCancelRequested);
}

void WhatIfView::setJob(std::shared_ptr<const analysis::DdpJobAnalysis> job) {
    job_ = std::move(job);
    replayed_.reset();
    if (!job_) {
        setUnavailable("No DDP job is open.");
        return;
    }
    recordedSettings_ = true;
    const QString warnings = report::describeWarnings(job_->job).trimmed();
    warnings_->setText(warnings);
    warnings_->setVisible(!warnings.isEmpty());
    predict();
}

void WhatIfView::setUnavailable(const QString& why) {
    jobs_->cancel();
    job_.reset(); // a new job (or the same with its parameters) comes through setJob
    replayed_.reset();
    result_.reset();
    recorded_.reset();
    message_->setText(why);
    message_->show();
    plot_->hide();
    numbers_->clear();
    recommendation_->clear();
    notes_->clear();
    notesFold_->hide();
    notesFold_->setChecked(false);
    setControlsEnabled(false);
    params_->setEnabled(true);
    // A job that could not be replayed keeps its warnings on show: they may say why.
    if (!keepWarnings_) {
        warnings_->clear();
        warnings_->hide();
    }
    updateConfirm();
}

std::optional<analysis::Setting> WhatIfView::confirmCandidate() const {
    if (!result_) {
        return std::nullopt;
    }
    const auto& rec = result_->recommendation;
    analysis::Setting s{rec.capMb, rec.hook};
    if (rec.keep || (s.bucketCapMb == result_->recordedCapMb && s.hook == result_->hook)) {
        const analysis::Scenario* c = chosen();
        if (!c || (c->capMb == result_->recordedCapMb && c->hook == result_->hook)) {
            return std::nullopt;
        }
        s = {c->capMb, c->hook};
    }
    return s;
}

void WhatIfView::updateConfirm() {
    const auto candidate = confirmCandidate();
    QString why;
    if (confirmRunning_) {
        why = "A confirmation runs: wait for it or cancel it";
    } else if (!confirmSource_) {
        why = confirmWhy_;
    } else if (!result_) {
        why = "No prediction is shown to confirm";
    } else if (!candidate) {
        why = "The recommendation keeps the recorded setting: choose another bucket cap or hook "
              "to confirm it on the job";
    }
    confirm_->setEnabled(why.isEmpty());
    confirm_->setToolTip(
        why.isEmpty()
            ? QString("Run the job under its recorded setting and under bucket_cap_mb %1, hook "
                      "%2, alternating (commprof confirm), and compare the measured difference "
                      "with the prediction")
                  .arg(candidate->bucketCapMb)
                  .arg(candidate->hook)
            : why);
}

void WhatIfView::setConfirmSource(bool available, const QString& why) {
    confirmSource_ = available;
    confirmWhy_ = why;
    if (!confirmRunning_) {
        confirmation_->clear();
        confirmation_->hide();
    }
    updateConfirm();
}

void WhatIfView::setConfirmState(bool running, const QString& text) {
    confirmRunning_ = running;
    confirmation_->setText(text);
    confirmation_->setVisible(running || !text.isEmpty());
    confirmProgress_->setVisible(running);
    confirmCancel_->setVisible(running);
    updateConfirm();
}

void WhatIfView::setControlsEnabled(bool on) {
    for (QWidget* w : std::initializer_list<QWidget*>{cap_, hook_, bandwidth_, world_, reset_}) {
        w->setEnabled(on);
    }
}

void WhatIfView::predict() {
    const auto job = job_;
    analysis::WhatIfOptions options;
    const bool recorded = recordedSettings_;
    const double cap = cap_->value();
    const QString hook = hook_->currentText();
    if (!recorded) {
        // The chosen cap among DDP's usual ones, for the recommendation to weigh it against.
        options.capsMb = analysis::kStandardCapsMb;
        options.capsMb.push_back(cap);
        options.hooks = QStringList{hook};
        options.bandwidthX = bandwidth_->value();
        options.worldSize = world_->value();
    }
    if (!result_) {
        message_->setText("Replaying the recorded step...");
    }
    // The job's replay where it has one: a control changes the scenarios, not the replay.
    const std::shared_ptr<const WhatIfReplay> kept = replayed_;
    const std::shared_ptr<std::atomic<int>> replays = replays_;
    jobs_->start(
        kept ? "Predicting the step" : "Replaying the recorded step",
        [job, options, recorded, cap, hook, kept, replays](const jobs::JobContext&) {
            Predicted p;
            QString why;
            p.replayed = kept;
            if (!p.replayed) {
                // A results cell's traces are read with the settings its cell.json records, and
                // with this machine's hook calibration where one is stored (a broken one is not
                // used: the page's notes say a hook's work is unknown then).
                analysis::WhatIfOptions recording;
                QString calibrationWhy;
                recording.hookCalibration = results::storedHookCalibration(&calibrationWhy);
                if (!job->job.steps.empty()) {
                    recording.cell = inputs::cellSettingsBeside(
                        {QString::fromStdString(job->job.steps.front().source)});
                }
                const analysis::DdpParams* params = job->job.params ? &*job->job.params : nullptr;
                ++*replays;
                std::optional<analysis::Replay> r =
                    analysis::replay(job->graph, params, recording, &why);
                if (!r) {
                    throw std::runtime_error(("Nothing to replay: " + why).toStdString());
                }
                p.replayed = std::make_shared<const WhatIfReplay>(
                    WhatIfReplay{std::move(*r), analysis::recordedParts(job->graph)});
            }
            std::optional<analysis::WhatIf> w = analysis::whatIf(p.replayed->replay, options, &why);
            if (!w) {
                throw std::runtime_error(("Nothing to predict: " + why).toStdString());
            }
            p.w = std::move(*w);
            p.chosen = recorded ? scenarioOf(p.w, p.w.recordedCapMb, p.w.hook)
                                : scenarioOf(p.w, cap, hook);
            return p;
        },
        [this, recorded, job](const Predicted& p) {
            if (job == job_) {
                replayed_ = p.replayed;
            }
            if (recorded) {
                // The controls show the recording's settings; setting them predicts nothing more.
                const QSignalBlocker b1(cap_), b2(hook_), b3(bandwidth_), b4(world_);
                cap_->setValue(p.w.recordedCapMb);
                const int h = hook_->findText(p.w.hook);
                hook_->setCurrentIndex(h >= 0 ? h : 0);
                bandwidth_->setValue(1);
                world_->setValue(std::clamp(p.w.worldSize, 2, kMaxWorldSize));
                recordedSettings_ = false;
            }
            display(p.w, p.chosen, p.replayed->recorded);
        },
        [this](const QString& why) {
            keepWarnings_ = true;
            setUnavailable(why);
            keepWarnings_ = false;
        });
}

const analysis::Scenario* WhatIfView::chosen() const {
    return result_ && chosen_ < result_->scenarios.size() ? &result_->scenarios[chosen_] : nullptr;
}

void WhatIfView::display(const analysis::WhatIf& w, std::size_t chosen,
                         const std::optional<analysis::StepParts>& recorded) {
    result_ = w;
    chosen_ = chosen;
    recorded_ = recorded;
    message_->hide();
    message_->clear();
    plot_->show();
    setControlsEnabled(true);
    drawWhatIf(*plot_, whatIfFigure(w, recorded, chosen));
    placeLegend(*plot_);
    plot_->replot();

    QStringList lines;
    if (recorded) {
        lines << QString("Recorded: median step %1 ms = compute %2 + exposed comm. %3 + straggler "
                         "wait %4 + optimizer %5 ms (%6, %7, %8 at %9 MiB)")
                     .arg(ms(w.stepMs), ms(recorded->computeMs), ms(recorded->exposedCommMs),
                          ms(recorded->stragglerWaitMs), ms(recorded->optimizerMs), w.hook,
                          analysis::countText(w.worldSize, "rank"),
                          analysis::countText(w.recordedBuckets, "bucket"),
                          analysis::mb(w.recordedCapMb));
    }
    lines << QString("Replayed by the model: %1 ms \u00b1 %2 (%3 % from the recording)")
                 .arg(ms(w.replayed.stepMs), ms(w.replayed.uncertaintyMs))
                 .arg(w.stepMs > 0 ? (w.replayed.stepMs / w.stepMs - 1) * 100 : 0, 0, 'f', 1);
    if (const analysis::Scenario* s = this->chosen()) {
        lines << QString("What if %1: %2 ms \u00b1 %3 = compute %4 + exposed comm. %5 + optimizer "
                         "%6 ms, %7%8")
                     .arg(scenarioText(*s), ms(s->stepMs), ms(s->uncertaintyMs), ms(s->computeMs),
                          ms(s->exposedMs), ms(s->optimizerMs),
                          analysis::countText(s->buckets, "bucket"))
                     .arg(s->recordedLayout ? QString(" (the recorded buckets)")
                          : s->hookWorkUnknown
                              ? QString(" (no change: the hooks' own work is unknown on this "
                                        "machine; with none it would be %1 ms)")
                                    .arg(ms(s->modelStepMs))
                          : s->noChange
                              ? QString(" (no change: the trace cannot tell this setting from "
                                        "the recorded one; the model alone says %1 ms)")
                                    .arg(ms(s->modelStepMs))
                              : QString());
    }
    lines << inputsLine(w);
    lines << QString("\u00b1 is a %1.").arg(QString::fromLatin1(analysis::kIntervalMeaning));
    numbers_->setText(lines.join('\n'));
    notes_->setText(w.notes.isEmpty() ? QString() : "\u2022 " + w.notes.join("\n\u2022 "));
    notesFold_->setText(QString("Model notes (%1)").arg(w.notes.size()));
    notesFold_->setVisible(!w.notes.isEmpty());
    recommendation_->setText((job_ && job_->job.incomplete
                                  ? QString("Recommendation (from an incomplete job: only the part "
                                            "that was read): ")
                                  : QString("Recommendation: ")) +
                             w.recommendation.reason);
    updateConfirm();
    emit shown();
}

bool WhatIfView::eventFilter(QObject* watched, QEvent* event) {
    if (watched == plot_ && event->type() == QEvent::Resize) {
        // After the resize is laid out: the title, the note and where the legend fits depend on
        // the new size (the page may have been drawn while hidden).
        QTimer::singleShot(0, plot_, [plot = plot_] {
            fitTitle(*plot);
            placeLegend(*plot);
        });
    }
    return QWidget::eventFilter(watched, event);
}

QString WhatIfView::shownText(const QLabel* label) const {
    return label->isVisibleTo(this) ? label->text() : QString();
}

} // namespace commprof::widgets
