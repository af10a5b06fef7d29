// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Builds small Chrome traces by hand for tests: one line per event, so each test reads like
// the timeline it describes.

#include <QString>
#include <QStringList>

class TraceBuilder {
public:
    TraceBuilder& complete(const QString& name, double ts, double dur, const QString& cat = {},
                           int tid = 1, bool onStream = false) {
        QString e = QString(R"({"ph":"X","name":"%1","ts":%2,"dur":%3,"pid":1,"tid":%4)")
                        .arg(name)
                        .arg(ts, 0, 'f', 3)
                        .arg(dur, 0, 'f', 3)
                        .arg(tid);
        if (!cat.isEmpty()) {
            e += QString(R"(,"cat":"%1")").arg(cat);
        }
        if (onStream) {
            e += R"(,"args":{"stream":7,"device":0})";
        }
        events_ << e + "}";
        return *this;
    }
    TraceBuilder& kernel(const QString& name, double ts, double dur) {
        return complete(name, ts, dur, "kernel", 7, true);
    }
    TraceBuilder& memcpy(const QString& name, double ts, double dur) {
        return complete(name, ts, dur, "gpu_memcpy", 7, true);
    }
    // A device event (pid 0, stream 7) and its launch on host thread `tid`, joined by
    // args.correlation as Kineto writes them.
    TraceBuilder& launched(const QString& cat, const QString& name, double ts, double dur,
                           int correlation, double launchTs, int tid = 1) {
        events_ << QString(R"({"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","ts":%1,)"
                           R"("dur":1,"pid":1,"tid":%2,"args":{"correlation":%3}})")
                       .arg(launchTs, 0, 'f', 3)
                       .arg(tid)
                       .arg(correlation);
        events_ << QString(R"({"ph":"X","cat":"%1","name":"%2","ts":%3,"dur":%4,"pid":0,)"
                           R"("tid":7,"args":{"stream":7,"correlation":%5}})")
                       .arg(cat, name)
                       .arg(ts, 0, 'f', 3)
                       .arg(dur, 0, 'f', 3)
                       .arg(correlation);
        return *this;
    }
    TraceBuilder& begin(const QString& name, double ts, int tid = 1) {
        events_ << QString(R"({"ph":"B","name":"%1","ts":%2,"pid":1,"tid":%3})")
                       .arg(name)
                       .arg(ts)
                       .arg(tid);
        return *this;
    }
    TraceBuilder& end(double ts, int tid = 1) {
        events_ << QString(R"({"ph":"E","ts":%1,"pid":1,"tid":%2})").arg(ts).arg(tid);
        return *this;
    }
    TraceBuilder& raw(const QString& json) {
        events_ << json;
        return *this;
    }
    QString object() const { return "{\"traceEvents\":[" + events_.join(",\n") + "]}"; }
    QString array() const { return "[" + events_.join(",\n") + "]"; }

private:
    QStringList events_;
};
