// SPDX-License-Identifier: GPL-3.0-or-later
#include "whatif_sweep.h"

#include "results/cell_files.h"
#include "spec/layers.h"
#include "trace/statistics.h"

#include <cmath>

namespace commprof::analysis {
namespace {

// The median relative distance of the points the fit was made over from its line.
double residualSpread(const std::vector<SweepPoint>& points, const LinearFit& fit) {
    std::vector<double> off;
    for (const SweepPoint& p : points) {
        const bool fitted = p.bytes >= fit.fromBytes && p.bytes <= fit.toBytes &&
                            (!fit.leftOutFromBytes || p.bytes < *fit.leftOutFromBytes);
        if (fitted && p.slowestUs > 0) {
            off.push_back(std::fabs(p.slowestUs - fit.predictUs(p.bytes)) / p.slowestUs);
        }
    }
    return trace::median(off).value_or(0);
}

QString deviceText(const QString& backend, bool onDevice) {
    return QString("%1 on %2").arg(backend, onDevice ? "a GPU" : "the CPU");
}

} // namespace

std::vector<SweepOffer> sweepOffers(const std::vector<results::CellFiles>& cells) {
    std::vector<SweepOffer> out;
    for (const results::CellFiles& f : cells) {
        if (!f.isSweep()) {
            continue;
        }
        SweepOffer o;
        o.cellDir = f.dir;
        o.cellJson = f.dir + "/cell.json";
        o.cellId = f.id;
        o.layer = f.record.layer;
        o.link = f.record.config.link.isEmpty() ? QString("loopback") : f.record.config.link;
        o.worldSize = f.record.worldSize;
        if (const spec::Layer* l = spec::findLayer(o.layer.toStdString())) {
            o.backend = QString::fromLatin1(l->backend.data(), int(l->backend.size()));
            o.onDevice = l->device != "cpu";
        }
        const results::Completeness c = judgeRead(f);
        if (c.status != "complete") {
            o.problem = QString("the cell is %1 (%2)").arg(c.status, c.reasons.join("; "));
        } else {
            const std::vector<SweepPoint> points = allReducePoints(f.sweeps);
            o.fit = fitLinear(points);
            if (points.empty()) {
                o.problem = "its sweep_rank*.json time no all_reduce (kinds[].kind)";
            } else if (o.fit.refused) {
                o.problem = "its all_reduce fit is refused: " + o.fit.reason;
            } else {
                o.residualSpread = residualSpread(points, o.fit);
            }
        }
        out.push_back(o);
    }
    return out;
}

const SweepOffer* matchingSweep(const std::vector<SweepOffer>& offers, int worldSize,
                                const QString& backend, bool onDevice, const QString& link,
                                QString* why) {
    QStringList misses;
    for (const SweepOffer& o : offers) {
        QString miss;
        if (o.worldSize != worldSize) {
            miss = QString("world_size: %1, the job's is %2").arg(o.worldSize).arg(worldSize);
        } else if (o.backend.isEmpty() || o.backend != backend || o.onDevice != onDevice) {
            miss = QString("layer: %1 (%2), the job ran %3")
                       .arg(o.layer,
                            o.backend.isEmpty() ? QString("a layer commprof does not know")
                                                : deviceText(o.backend, o.onDevice),
                            deviceText(backend, onDevice));
        } else if (!link.isEmpty() && o.link != link) {
            miss = QString("config.link: %1, the job's is %2").arg(o.link, link);
        } else if (!o.problem.isEmpty()) {
            miss = o.problem;
        } else {
            return &o;
        }
        misses << o.cellJson + ": " + miss;
    }
    *why = offers.empty() ? QString("no kind: sweep cell here (a results folder's cells/*, or one "
                                    "cell, whose cell.json has kind: sweep)")
                          : "no sweep cell prices this job's collectives: " + misses.join("; ");
    return nullptr;
}

} // namespace commprof::analysis
