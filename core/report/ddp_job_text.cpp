// SPDX-License-Identifier: GPL-3.0-or-later
#include "ddp_job_text.h"

#include <QJsonArray>

namespace commprof::report {

QString describeWarnings(const analysis::DdpJob& job) {
    QString out;
    if (job.incomplete) {
        out += "warning: incomplete job: a rank's trace is cut or missing, so what follows is "
               "part of the job, not the whole\n";
    }
    for (const QString& w : job.warnings) {
        out += "warning: " + w + "\n";
    }
    return out;
}

QJsonObject withWarnings(QJsonObject doc, const analysis::DdpJob& job) {
    doc.insert("warnings", QJsonArray::fromStringList(job.warnings));
    doc.insert("incomplete", job.incomplete);
    return doc;
}

} // namespace commprof::report
