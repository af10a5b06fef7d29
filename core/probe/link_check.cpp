// SPDX-License-Identifier: GPL-3.0-or-later
#include "link_check.h"

#include "runner/host_network.h"

#include <QJsonArray>

namespace commprof::probe {

void checkLinks(const ProbeOptions& o, ProbeReport& r) {
    QJsonArray left;
    const auto note = [&left](const QString& line) { left.append(line); };
    const int removed = runner::removeLeftoverHosts(note, o.cleanup);
    if (removed > 0 && o.cleanup) {
        r.warnings << QString("removed %1 emulated host(s) left by an earlier run").arg(removed);
    } else if (removed > 0) {
        r.issues << QString("%1 emulated host(s) left by a run that was killed (records in %2); "
                            "remove them with `commprof probe --cleanup`")
                        .arg(removed)
                        .arg(runner::hostRecordDir());
    }
    // Checked after the leftovers: a scratch host of this probe's own is never one of them.
    QJsonObject links = runner::probeLinkEmulation();
    links["left_behind"] = left;
    if (!links["available"].toBool()) {
        // Loopback cells run without it: a matrix with a link is refused by plan.
        r.warnings << "emulated links (link: RATE) are not available: " +
                          links["reason"].toString();
    }
    r.details["links"] = links;
}

} // namespace commprof::probe
