// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The words of an exported PDF as an independent reader finds them (poppler's pdftotext -bbox),
// with their boxes: whether every word is on the page, and whether any two overlap.

#include "cli_runner.h"

#include <QList>
#include <QRectF>
#include <QRegularExpression>
#include <QSizeF>
#include <QStringList>

struct PdfWord {
    QRectF box;
    QString text;
};

struct PdfPage {
    QSizeF size;
    QList<PdfWord> words;
    QString text() const {
        QStringList out;
        for (const PdfWord& w : words) {
            out << w.text;
        }
        return out.join(' ');
    }
};

inline QString describeWord(const PdfWord& w) {
    return QString("'%1' at %2,%3-%4,%5")
        .arg(w.text)
        .arg(w.box.left())
        .arg(w.box.top())
        .arg(w.box.right())
        .arg(w.box.bottom());
}

// Every word poppler finds on the page, with its box. poppler drops a glyph wholly off the
// page, so a cut text shows as a word at the edge or as a word missing.
inline PdfPage wordsOf(const QString& pdf) {
    PdfPage page;
    const CliResult r = runProgram("pdftotext", {"-bbox", pdf, "-"}, 60000);
    const QString xhtml = QString::fromUtf8(r.out);
    const auto size =
        QRegularExpression(R"re(<page width="([0-9.]+)" height="([0-9.]+)">)re").match(xhtml);
    page.size = {size.captured(1).toDouble(), size.captured(2).toDouble()};
    const QRegularExpression word(R"re(<word xMin="([-0-9.]+)" yMin="([-0-9.]+)" )re"
                                  R"re(xMax="([-0-9.]+)" yMax="([-0-9.]+)">([^<]*)</word>)re");
    for (auto it = word.globalMatch(xhtml); it.hasNext();) {
        const auto m = it.next();
        page.words << PdfWord{QRectF(QPointF(m.captured(1).toDouble(), m.captured(2).toDouble()),
                                     QPointF(m.captured(3).toDouble(), m.captured(4).toDouble())),
                              m.captured(5)};
    }
    return page;
}

// Words whose box is not inside the page with a little air.
inline QStringList offThePage(const PdfPage& page) {
    const QRectF inside = QRectF(QPointF(0, 0), page.size).adjusted(0.5, 0.5, -0.5, -0.5);
    QStringList bad;
    for (const PdfWord& w : page.words) {
        if (!inside.contains(w.box)) {
            bad << describeWord(w);
        }
    }
    return bad;
}

// Pairs of words whose boxes overlap by more than `slackPt` each way (a font's boxes of
// neighbouring lines touch; words drawn over each other overlap by far more).
inline QStringList overlappingWords(const PdfPage& page, double slackPt = 1.0) {
    QStringList bad;
    for (int i = 0; i < page.words.size(); ++i) {
        for (int j = i + 1; j < page.words.size(); ++j) {
            const QRectF both = page.words[i].box.intersected(page.words[j].box);
            if (both.width() > slackPt && both.height() > slackPt) {
                bad << describeWord(page.words[i]) + " over " + describeWord(page.words[j]);
            }
        }
    }
    return bad;
}
