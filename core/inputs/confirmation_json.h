// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// `commprof confirm --json` (analysis/confirmation.h's record): its writer and its reader side
// by side, so the CLI that writes it and the workbench that reads it back agree.

#include "analysis/confirmation.h"

#include <QJsonObject>

#include <optional>

namespace commprof::inputs {

QJsonObject toJson(const analysis::Confirmation& c);
// nullopt when `o` is not a confirmation (no recorded or candidate setting).
std::optional<analysis::Confirmation> confirmationFromJson(const QJsonObject& o);

} // namespace commprof::inputs
