// SPDX-License-Identifier: GPL-3.0-or-later
#include "slice_details_panel.h"

#include "layout_helpers.h"
#include "timeline/ruler.h"

#include <QTextBrowser>
#include <QUrl>
#include <QVBoxLayout>

namespace commprof::widgets {
namespace {

using timeline::formatDuration;

QString row(const QString& key, const QString& value) {
    return QString("<tr><td style='color:#555;padding-right:10px'>%1</td><td>%2</td></tr>")
        .arg(key.toHtmlEscaped(), value);
}

QString table(const QString& rows) {
    return "<table cellspacing='0' cellpadding='1'>" + rows + "</table>";
}

QString linkTo(const timeline::SliceRef& s, const QString& text) {
    return QString("<a href='slice:%1:%2'>%3</a>")
        .arg(s.rank)
        .arg(s.event)
        .arg(text.toHtmlEscaped());
}

} // namespace

SliceDetailsPanel::SliceDetailsPanel(QWidget* parent) : QWidget(parent) {
    browser_ = new QTextBrowser(this);
    browser_->setObjectName("sliceDetails");
    browser_->setOpenLinks(false);
    browser_->setFrameShape(QFrame::NoFrame);
    bareLayout<QVBoxLayout>(this)->addWidget(browser_);
    connect(browser_, &QTextBrowser::anchorClicked, this, [this](const QUrl& url) {
        const QStringList parts = url.toString().split(':');
        if (parts.size() == 3 && parts[0] == "slice") {
            emit sliceRequested({parts[1].toInt(), parts[2].toUInt()});
        }
    });
    setMinimumWidth(240);
    render();
}

void SliceDetailsPanel::showSlice(const timeline::SliceDetails& slice,
                                  const timeline::MatchedSlices& matched,
                                  const std::vector<int>& rankNumbers, double originUs) {
    critical_.reset();
    slice_ = slice;
    matched_ = matched;
    rankNumbers_ = rankNumbers;
    sliceOrigin_ = originUs;
    args_.reset();
    argsError_.clear();
    render();
}

void SliceDetailsPanel::showArgs(const std::optional<Args>& args, const QString& error) {
    args_ = args;
    argsError_ = error;
    render();
}

void SliceDetailsPanel::showCriticalStep(const analysis::CriticalStep& step) {
    slice_ = {};
    matched_ = {};
    critical_ = step;
    render();
}

void SliceDetailsPanel::clearSlice() {
    critical_.reset();
    slice_ = {};
    matched_ = {};
    render();
}

void SliceDetailsPanel::showRange(double fromUs, double toUs,
                                  const std::vector<timeline::RankRange>& ranks, double originUs) {
    QString html = QString("<h3>Range %1</h3><p style='color:#555'>from %2 to %3</p>")
                       .arg(formatDuration(toUs - fromUs), formatDuration(fromUs - originUs),
                            formatDuration(toUs - originUs));
    // One column per rank keeps the table narrow at any panel width.
    html += "<table cellspacing='0' cellpadding='2' style='font-size:small'><tr><td></td>";
    for (const auto& r : ranks) {
        html += QString("<td align='right' style='color:#555'>rank %1</td>").arg(r.rankNumber);
    }
    html += "</tr>";
    using M = trace::StepMetrics;
    const std::pair<const char*, double M::*> kinds[] = {
        {"compute", &M::computeUs},         {"communication", &M::commUs},
        {"bookkeeping", &M::bookkeepingUs}, {"memory", &M::memoryUs},
        {"overlap", &M::overlapUs},         {"exposed comm.", &M::exposedCommUs}};
    for (const auto& [label, member] : kinds) {
        // Exposed communication in bold: what a change of bucket or hook wins back.
        const bool bold = member == &M::exposedCommUs;
        html += QString("<tr><td style='color:#555;padding-right:8px'>%1</td>").arg(label);
        for (const auto& r : ranks) {
            const QString v = formatDuration(r.figures.*member);
            html += QString("<td align='right'>%1</td>").arg(bold ? "<b>" + v + "</b>" : v);
        }
        html += "</tr>";
    }
    html += "</table><p style='color:#555'>Union lengths inside the range, as "
            "<tt>commprof trace summarize --window</tt> counts them; exposed communication is "
            "communication not overlapped by compute.</p>";
    rangeHtml_ = html;
    render();
}

void SliceDetailsPanel::clearRange() {
    rangeHtml_.clear();
    render();
}

void SliceDetailsPanel::render() {
    const bool hasSlice = slice_.slice.valid();
    QString html = critical_ ? criticalStepHtml() : QString();
    if (!hasSlice && !critical_ && rangeHtml_.isEmpty()) {
        html = "<p style='color:#666'>Click a slice to see its details. Shift+drag across the "
               "timeline to measure a range.</p>"
               "<p style='color:#666'><b>W</b>/<b>S</b> zoom, <b>A</b>/<b>D</b> pan, "
               "<b>Ctrl</b>+wheel zoom, <b>F</b> fit, <b>Backspace</b> back, "
               "double-click zooms to a slice, <b>Ctrl+F</b> finds slices.</p>";
    }
    if (hasSlice) {
        html += sliceHtml() + flowHtml() + everyRankHtml() + argsHtml();
    }
    if (!rangeHtml_.isEmpty()) {
        html += (hasSlice ? "<hr>" : "") + rangeHtml_;
    }
    browser_->setHtml(html);
}

// The critical path's step: whose it is, the culprit, and where its time went.
QString SliceDetailsPanel::criticalStepHtml() const {
    const analysis::CriticalStep& c = *critical_;
    return QString("<h3 style='margin-bottom:2px'>Critical path, step %1</h3>").arg(c.step) +
           table(row("rank", QString::number(c.rank)) + row("culprit", c.culprit.toHtmlEscaped()) +
                 row("step", formatDuration(c.endUs - c.startUs)) +
                 row("compute", formatDuration(c.computeEndUs - c.startUs)) +
                 row("waited after it", formatDuration(c.backwardEndUs - c.computeEndUs)) +
                 row("optimizer", formatDuration(c.endUs - c.backwardEndUs)));
}

QString SliceDetailsPanel::sliceHtml() const {
    const auto& s = slice_;
    QString rows =
        row("rank", QString::number(s.rankNumber)) + row("category", s.category.toHtmlEscaped()) +
        row("class", s.cls.toHtmlEscaped()) + row("lane", s.lane.toHtmlEscaped()) +
        row("start", formatDuration(s.startUs - sliceOrigin_)) +
        row("duration", formatDuration(s.durationUs)) + row("self time", formatDuration(s.selfUs));
    if (s.stream >= 0) {
        rows += row("stream", QString::number(s.stream));
    }
    if (s.correlation >= 0) {
        rows += row("correlation", QString::number(s.correlation));
    }
    return QString("<h3 style='margin-bottom:2px'>%1</h3>").arg(s.name.toHtmlEscaped()) +
           table(rows);
}

// The slices it launched or was launched by, each a link.
QString SliceDetailsPanel::flowHtml() const {
    const auto& s = slice_;
    if (s.partners.empty()) {
        return {};
    }
    QString rows;
    for (const auto& p : s.partners) {
        rows += row(p.isDevice ? "launched →" : "← launched by",
                    linkTo(p.slice, p.name) +
                        QString("<br><span style='color:#666'>%1, %2, at %3</span>")
                            .arg(p.lane.toHtmlEscaped(), p.via.toHtmlEscaped(),
                                 formatDuration(p.startUs - sliceOrigin_)));
    }
    return "<h4 style='margin-bottom:2px'>Flow</h4>" + table(rows);
}

// The same slice on every rank: each one's start after the first's, and the ranks without it.
QString SliceDetailsPanel::everyRankHtml() const {
    if (matched_.slices.size() <= 1 && matched_.unmatchedRanks.empty()) {
        return {};
    }
    const QString skew =
        matched_.slices.size() > 1 ? ": skew " + formatDuration(matched_.skewUs) : QString();
    QString html = "<h4 style='margin-bottom:2px'>On every rank" + skew + "</h4>";
    html += QString("<p style='color:#666;margin-top:0'>matched by %1</p>")
                .arg(matched_.matchedBy.toHtmlEscaped());
    QString rows;
    const auto rankName = [this](int r) {
        return QString("rank %1").arg(r < int(rankNumbers_.size()) ? rankNumbers_[std::size_t(r)]
                                                                   : r);
    };
    const double first = *std::min_element(matched_.startsUs.begin(), matched_.startsUs.end());
    for (std::size_t i = 0; i < matched_.slices.size(); ++i) {
        const auto& m = matched_.slices[i];
        const bool last = m.rank == matched_.lastRank && matched_.skewUs > 0;
        const QString text =
            "+" + formatDuration(matched_.startsUs[i] - first) + (last ? " (last)" : "");
        rows += row(rankName(m.rank), linkTo(m, text));
    }
    // Said, not guessed: a neighbouring step's instance would show a step as skew.
    for (int r : matched_.unmatchedRanks) {
        rows += row(rankName(r), "<span style='color:#a00'>unmatched: none at this place</span>");
    }
    return html + table(rows);
}

// The slice's args, read in the background: reading, none, their error, or a row each.
QString SliceDetailsPanel::argsHtml() const {
    QString html = "<h4 style='margin-bottom:2px'>Args</h4>";
    if (!argsError_.isEmpty()) {
        html += QString("<p style='color:#a00'>%1</p>").arg(argsError_.toHtmlEscaped());
    } else if (!args_) {
        html += "<p style='color:#666'>reading…</p>";
    } else if (args_->empty()) {
        html += "<p style='color:#666'>none</p>";
    } else {
        QString rows;
        for (const auto& [key, value] : *args_) {
            rows += row(QString::fromStdString(key),
                        "<tt>" + QString::fromStdString(value).toHtmlEscaped() + "</tt>");
        }
        html += table(rows);
    }
    return html;
}

} // namespace commprof::widgets
