#pragma once
// Where commprof-rank is: $COMMPROF_RANK, else beside the running executable, else on PATH.

#include <QString>

namespace commprof::runner {

QString defaultRankProgram();

} // namespace commprof::runner
