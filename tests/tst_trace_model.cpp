// SPDX-License-Identifier: GPL-3.0-or-later
// What a parsed Trace offers beyond its figures (names, correlation ids, launch links,
// collective arguments, each event's full args on demand), checked against an independent
// reading of the same file with Qt's own JSON parser.

#include "gzip_files.h"
#include "trace/event_details.h"
#include "trace/trace_reader.h"
#include "trace_builder.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QTest>

using namespace commprof::trace;

namespace {

const QString kNccl = COMMPROF_TEST_DATA "/traces/kineto_nccl_ddp_ws2_rank0.json.gz";

// The fixture as Qt reads it: every X event with its args.
QJsonArray qtEvents() {
    const QJsonObject doc = QJsonDocument::fromJson(gunzip(kNccl)).object();
    return doc["traceEvents"].toArray();
}

} // namespace

class TstTraceModel : public QObject {
    Q_OBJECT
private slots:
    void eventsMatchAnIndependentReading() {
        const Trace t = readTraceFile(kNccl.toStdString());
        QJsonArray xs;
        for (const auto& v : qtEvents()) {
            if (v.toObject()["ph"].toString() == "X") {
                xs.append(v);
            }
        }
        QCOMPARE(qsizetype(t.events.size()), xs.size());
        std::size_t withCorrelation = 0;
        for (qsizetype i = 0; i < xs.size(); i += 97) {
            const QJsonObject q = xs[i].toObject();
            const TraceEvent& e = t.events[std::size_t(i)];
            QCOMPARE(QString::fromStdString(t.name(e)), q["name"].toString());
            QCOMPARE(e.startUs, q["ts"].toDouble());
            const QJsonObject args = q["args"].toObject();
            QCOMPARE(e.correlation, args.contains("correlation")
                                        ? std::int64_t(args["correlation"].toDouble())
                                        : std::int64_t(-1));
            withCorrelation += e.correlation >= 0;
            QCOMPARE(e.onStream, args.contains("stream"));
        }
        QVERIFY(withCorrelation > 10);
    }

    void detailsReReadOneEventsArgs() {
        const Trace t = readTraceFile(kNccl.toStdString());
        EventDetails details(t.source);
        std::size_t checked = 0;
        for (std::size_t i = 0; i < t.events.size(); i += 1013) {
            const TraceEvent& e = t.events[i];
            const QJsonObject object =
                QJsonDocument::fromJson(QByteArray::fromStdString(details.objectJson(e.offset)))
                    .object();
            QCOMPARE(QString::fromStdString(t.name(e)), object["name"].toString());
            QCOMPARE(e.startUs, object["ts"].toDouble());
            const auto args = details.args(e.offset);
            QCOMPARE(qsizetype(args.size()), object["args"].toObject().size());
            for (const auto& [key, value] : args) {
                const QJsonValue expected = object["args"].toObject()[QString::fromStdString(key)];
                QVERIFY2(!expected.isUndefined(), key.c_str());
            }
            ++checked;
        }
        QVERIFY(checked > 20);
        QVERIFY_THROWS_EXCEPTION(TraceError, details.objectJson(t.textBytes + 10));
    }

    void lanesAreNamedAsTheTraceNamesThem() {
        const Trace t = readTraceFile(kNccl.toStdString());
        // The fixture's metadata: {"name":"process_name","pid":0,"args":{"name":"python3.10"}}
        // and {"name":"process_labels","pid":0,"args":{"labels":"GPU 0"}}.
        QCOMPARE(QString::fromStdString(t.processes.at(0).name), QString("python3.10"));
        QCOMPARE(QString::fromStdString(t.processes.at(0).labels), QString("GPU 0"));
        const TraceEvent* kernel = nullptr;
        for (const auto& e : t.events) {
            if (t.category(e) == "kernel") {
                kernel = &e;
                break;
            }
        }
        QVERIFY(kernel);
        const QString lane = QString::fromStdString(t.laneName(kernel->pid, kernel->tid));
        QVERIFY2(lane.startsWith("python3.10 (GPU 0) / stream "), qPrintable(lane));
        QVERIFY(t.threads.at({kernel->pid, kernel->tid}).sortIndex.has_value());
        // Without metadata, the numbers.
        const Trace bare = parseTraceText(
            TraceBuilder().complete("aten::mm", 0, 1).object().toStdString(), "bare");
        QCOMPARE(QString::fromStdString(bare.laneName(1, 1)), QString("process 1 / thread 1"));
    }

    void launchLinksJoinRuntimeCallsAndKernels() {
        const Trace t = readTraceFile(kNccl.toStdString());
        QVERIFY(t.flows.size() > 100);
        for (const FlowLink& f : t.flows) {
            const TraceEvent& launch = t.events[f.launch];
            const TraceEvent& device = t.events[f.device];
            QVERIFY(!launch.deviceWork());
            QVERIFY(device.deviceWork());
            QCOMPARE(launch.correlation, device.correlation);
        }
    }

    void collectiveArgumentsAreKept() {
        const Trace t = readTraceFile(kNccl.toStdString());
        QVERIFY(!t.comms.empty());
        QVERIFY(t.distributed.present);
        QCOMPARE(t.distributed.worldSize, std::optional<std::int64_t>(2));
        QCOMPARE(QString::fromStdString(t.distributed.ncclVersion), QString("2.17.1"));
        // Every NCCL kernel carries PyTorch 2.x's message args here: DDP's first broadcast of
        // the parameters, then the gradient all-reduces.
        std::size_t allReduces = 0;
        for (const auto& r : t.collectives) {
            QVERIFY(r.onDevice);
            const QString kind = QString::fromStdString(r.kind);
            QVERIFY2(kind == "all_reduce" || kind == "broadcast", qPrintable(kind));
            QVERIFY(r.inNelems.has_value());
            QCOMPARE(r.groupSize, std::optional<std::int64_t>(2));
            allReduces += kind == "all_reduce";
        }
        QVERIFY(allReduces > 10);
    }
};

QTEST_APPLESS_MAIN(TstTraceModel)
#include "tst_trace_model.moc"
