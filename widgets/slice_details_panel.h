// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The timeline's details panel: the selected slice (name, category, class, lane, start,
// duration, self time, its args as the trace wrote them, its launch or kernel partners as
// links, and its instances on the other ranks with their skew), and the measured range's
// figures on every rank. Display only: the inspector hands it values.

#include "analysis/critical_path.h"
#include "timeline/slice_details.h"

#include <QWidget>

#include <optional>
#include <string>
#include <utility>
#include <vector>

class QTextBrowser;

namespace commprof::widgets {

class SliceDetailsPanel : public QWidget {
    Q_OBJECT
public:
    using Args = std::vector<std::pair<std::string, std::string>>;

    explicit SliceDetailsPanel(QWidget* parent = nullptr);

    // Times are shown relative to `originUs` (the ruler's zero).
    void showSlice(const timeline::SliceDetails& slice, const timeline::MatchedSlices& matched,
                   const std::vector<int>& rankNumbers, double originUs);
    // nullopt: still being read; an empty error and no args: the event has none.
    void showArgs(const std::optional<Args>& args, const QString& error = {});
    void showRange(double fromUs, double toUs, const std::vector<timeline::RankRange>& ranks,
                   double originUs);
    void clearSlice();
    void clearRange();
    // A step of the critical path, clicked on the timeline, in the selected slice's place.
    void showCriticalStep(const analysis::CriticalStep& step);
    bool showsCriticalStep() const { return critical_.has_value(); }

signals:
    void sliceRequested(timeline::SliceRef slice);

private:
    void render();
    QString criticalStepHtml() const;
    QString sliceHtml() const;
    QString flowHtml() const;
    QString everyRankHtml() const;
    QString argsHtml() const;

    QTextBrowser* browser_ = nullptr;
    timeline::SliceDetails slice_;
    timeline::MatchedSlices matched_;
    std::vector<int> rankNumbers_;
    double sliceOrigin_ = 0;
    std::optional<Args> args_;
    QString argsError_;
    QString rangeHtml_;
    std::optional<analysis::CriticalStep> critical_;
};

} // namespace commprof::widgets
