// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Text from results (model names, ids, reasons) as it goes into report files, where a
// spreadsheet or LaTeX would otherwise read it as a formula or a command.

#include <QString>

namespace commprof::report {

// One CSV field: quoted when it holds a comma, quote or line break; a leading '=', '+', '-',
// '@', tab or carriage return is neutralised with a leading apostrophe, so a spreadsheet shows
// the text instead of evaluating it (OWASP's advice on CSV injection).
QString csvField(const QString& text);

// Plain text inside a LaTeX command, in ASCII, so pdflatex with nothing but LaTeX's kernel
// typesets it: every special character escaped, a Latin letter with accents spelled with
// LaTeX's accent commands (\'{e}), tabs and line breaks as spaces (a run of spaces as one),
// and every other character (a control character, a symbol, CJK) as its code point, [U+2713].
QString texText(const QString& text);
// U+2713 -> "[U+2713]": a character spelled in ASCII.
QString codePointText(char32_t c);

} // namespace commprof::report
