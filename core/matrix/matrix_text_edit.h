// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Edits of a matrix's YAML text that the designer makes for the user (the budgets, a model
// entry), as the smallest replacement of characters: the rest of the text, its comments and
// layout included, stays as the user wrote it, and the editor can undo the edit in one step.

#include "matrix/matrix.h"

#include <QString>

namespace commprof::matrix {

// Replace `length` characters at `from` (QString indices, as QTextCursor positions) by `text`.
struct TextEdit {
    int from = 0;
    int length = 0;
    QString text;
};

QString applied(const QString& yaml, const TextEdit& edit);

// The top-level `budget:` written as `budget: {host_gib: X, device_gib: Y, reserve_gib: R}`
// (nullopt as `auto`), in place of the key's block or after the last line when there is none.
// Throws MatrixError (naming `file`) when the text does not parse or its top level is not a
// block mapping.
TextEdit budgetEdit(const QString& yaml, const QString& file, const BudgetSpec& budget);

// `entry` (one YAML flow mapping, "{name: a, ...}") added as the last element of the top-level
// `models:` list, flow (`[a, b]`) or block (`- a`) as the list is written; a missing or empty
// `models:` becomes `models: [entry]`. Throws MatrixError as budgetEdit.
TextEdit appendModelEdit(const QString& yaml, const QString& file, const QString& entry);

// `defaults:`'s `key` set to the one value `value` (spelled as YAML), in place of what it holds
// there (a value, a flow list or a block list); the key added as the block's last line where it
// is not there, and `defaults:` added where the text has none. A model entry's or a layer's own
// `key` is left as written. Throws MatrixError as budgetEdit, and where `defaults` is not a block
// mapping.
TextEdit defaultsValueEdit(const QString& yaml, const QString& file, const QString& key,
                           const QString& value);

// The model entry named `model` given `key: value` (spelled as YAML): in place of what it holds
// there, else added to the entry (after its last element in a flow mapping, as its last line in
// a block mapping). The defaults and the other models are left as written, so the value changes
// that model's cells alone. Throws MatrixError as budgetEdit, and where no entry has that name.
TextEdit modelValueEdit(const QString& yaml, const QString& file, const QString& model,
                        const QString& key, const QString& value);

} // namespace commprof::matrix
