// SPDX-License-Identifier: GPL-3.0-or-later
// The lines of macros.tex. Every name is \commprof followed by ASCII letters, and no two
// \newcommand lines define the same name: a label (a layer) whose spelled name would clash with
// a name the report owns or with another label's is given an alternative, said in a comment.
#pragma once

#include <QString>

#include <vector>

namespace commprof::report {

// gloo_cpu -> GlooCpu, tcp2 -> TcpTwo, réseau -> Reseau: ASCII letters, each word capitalised,
// digits spelled as words, accents dropped, anything else a word break.
QString letterName(const QString& text);
// 16 -> OneSix.
QString numberName(int n);
// A TeX comment's text: one line of printable ASCII (other characters as code points).
QString commentText(const QString& text);

class MacroSheet {
public:
    void comment(const QString& text) { lines_.push_back({Line::Comment, text, {}, {}}); }
    // A name the report owns (CompleteCells, HeadlineStepMs); VALUE is TeX as it goes in.
    void define(const QString& name, const QString& value);
    // A figure of LABEL: \commprof<LABEL's name><SUFFIX>.
    void defineFor(const QString& label, const QString& suffix, const QString& value);
    QString tex() const;

private:
    struct Line {
        enum Kind { Comment, Own, Labelled } kind;
        QString label; // the comment's text for a Comment
        QString name;  // the suffix for a Labelled line
        QString value;
    };
    std::vector<Line> lines_;
};

} // namespace commprof::report
