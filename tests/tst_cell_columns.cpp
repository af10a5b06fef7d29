// SPDX-License-Identifier: GPL-3.0-or-later
// The one table of cell columns (store/cell_columns.cpp) against what derives from it: the live
// schema of a migrated SQLite file, a row written and read back, `cells --json`, cells.csv, the
// results view's headers and docs/formats.md.

#include "models/results_cell_model.h"
#include "report/cells_table.h"
#include "store/cell_columns.h"
#include "store/cell_sql.h"
#include "store/queries.h"
#include "store/schema.h"

#include <QFile>
#include <QJsonDocument>
#include <QSet>
#include <QTemporaryDir>
#include <QTest>

using namespace commprof;

namespace {

// Every member set, none to its default, so a column wired to the wrong member shows.
store::CellRow fullRow(const QString& key) {
    store::CellRow r;
    r.key = key;
    r.runDir = "/results/run";
    r.id = "mlp2m_gloo_cpu_ws2_r1";
    r.kind = "ddp";
    r.status = "incomplete";
    r.layer = "gloo_cpu";
    r.interconnect = "host_loopback";
    r.axes = {{"hook", "powersgd"}, {"bucket_cap_mb", "0.25"}, {"model", "mlp2m"}};
    r.model = "=mlp2m";
    r.family = "mlp";
    r.backend = "gloo";
    r.device = "cpu";
    r.binding = "host";
    r.repeat = 1;
    r.reasons = {"no manifest", "rank1.json: a, b"};
    r.worldSize = 2;
    r.params = 2.0e6;
    r.feasible = true;
    r.stepMs = 41.5;
    r.hookCommMs = 3.25;
    r.traceCommMs = 3.5;
    r.hookTraceAgreement = 1.0625;
    r.overlapEfficiency = 0.75;
    r.commOverheadFraction = 0.125;
    r.exposedCommMs = 0.875;
    r.computeMs = 30.5;
    r.bookkeepingMs = 7.5;
    r.agreementFlagged = true;
    r.peakHostBytes = 123456789;
    r.peakDeviceBytes = 42;
    r.hostDemandBytes = 987654321012.0;
    r.deviceDemandBytes = 5;
    r.hookTotalMs = 16;
    r.backendTotalMs = 17;
    r.agreementSteps = 8;
    r.bucketsCompared = 9;
    r.bucketsMatched = 7;
    r.agreementReason = "backend 6.2 % above hook";
    r.backendSource = "gloo:* host spans";
    r.ddpLogger.backwardComputeMs = 12.5;
    r.ddpLogger.backwardCommMs = 4.5;
    r.ddpLogger.overlapMs = 3.5;
    r.ddpLogger.samples = 14;
    r.ddpLogger.ratio = 1.03125;
    r.ddpLogger.reason = "";
    r.slowestRank = 1;
    r.medianSkewMs = 0.5;
    return r;
}

} // namespace

class TstCellColumns : public QObject {
    Q_OBJECT
    QTemporaryDir work_;

private slots:
    void everyColumnIsInTheLiveSchemaAndNoOther() {
        store::Database db(work_.filePath("schema.sqlite"));
        store::migrate(db);
        QStringList live;
        store::Statement s = db.prepare("SELECT name, type FROM pragma_table_info('cells')");
        while (s.step()) {
            live << s.column(0).toString() + " " + s.column(1).toString();
        }
        QStringList declared;
        for (const store::CellColumn& c : store::cellColumns()) {
            if (c.stored()) {
                declared << QString("%1 %2").arg(c.name, c.sqlType);
                QVERIFY2(c.since >= 1 && c.since <= store::kSchemaVersion, c.name);
            }
        }
        QCOMPARE(declared, live); // the same columns, types and order
    }

    void namesAreUniqueAndEveryColumnIsReadable() {
        QSet<QString> names, json, csv, view;
        for (const store::CellColumn& c : store::cellColumns()) {
            QVERIFY2(!names.contains(c.name), c.name);
            names << c.name;
            if (c.json()) {
                QVERIFY2(!json.contains(c.json()), c.json());
                json << c.json();
            }
            if (c.csv()) {
                QVERIFY2(!csv.contains(c.csv()), c.csv());
                csv << c.csv();
            }
            if (c.view) {
                QVERIFY2(!view.contains(c.view), c.view);
                view << c.view;
            }
            QVERIFY2(c.get, c.name);
            QVERIFY2(QString(c.doc).size() > 3, c.name);
            QVERIFY2(c.stored() == (c.set != nullptr), c.name);
            QVERIFY2(c.stored() || c.json() || c.csv() || c.view, c.name); // derived for something
        }
    }

    // Positions hold across versions: new columns go at the end (tests and readers index them).
    void csvColumnsKeepTheirPositions() {
        const std::vector<const store::CellColumn*> columns = store::csvColumns();
        QStringList header;
        for (std::size_t i = 0; i < columns.size(); ++i) {
            QVERIFY2(columns[i], qPrintable(QString("no column at position %1").arg(i)));
            header << columns[i]->csv();
        }
        QCOMPARE(header.join(','),
                 QString("id,status,reasons,model,params,layer,interconnect,world_size,step_ms,"
                         "hook_comm_ms,trace_comm_ms,hook_trace_agreement,agreement_flagged,"
                         "overlap_efficiency,comm_overhead_fraction,exposed_comm_ms,"
                         "peak_host_bytes,peak_device_bytes,host_demand_bytes,"
                         "device_demand_bytes,kind,predicted_allreduce_ms,measured_allreduce_ms,"
                         "prediction_off_by,ddp_backward_compute_ms,ddp_backward_comm_ms,"
                         "ddp_hook_ratio,overlap_tax_ms,overlap_tax_percent"));
    }

    void aRowComesBackAsWritten() {
        store::Database db(work_.filePath("rows.sqlite"));
        store::migrate(db);
        const store::CellRow full = fullRow("/results/run/cells/a");
        store::CellRow empty; // every optional figure absent
        empty.key = "/results/run/cells/b";
        empty.runDir = full.runDir;
        empty.id = "z"; // after the full row (by run_dir, id)
        empty.status = "failed";
        store::insertCellRow(db, full);
        store::insertCellRow(db, empty);
        const std::vector<store::CellRow> rows = store::cells(db, full.runDir);
        QCOMPARE(rows.size(), std::size_t(2));
        for (const auto& [written, read] : {std::pair{full, rows[0]}, std::pair{empty, rows[1]}}) {
            for (const store::CellColumn& c : store::cellColumns()) {
                QCOMPARE(c.get(read, {}), c.get(written, {}));
            }
        }
        QCOMPARE(rows[0].reasons, full.reasons);
        QCOMPARE(rows[0].feasible, std::optional<bool>(true));
        QCOMPARE(rows[0].slowestRank, std::optional<int>(1));
        QVERIFY(!rows[1].feasible && !rows[1].stepMs && !rows[1].slowestRank);
    }

    // A cell the store could not take keeps its figures null, and its kind the schema's default.
    void anUnstorableCellStoresOnlyWhoItIs() {
        store::Database db(work_.filePath("unstorable.sqlite"));
        store::migrate(db);
        store::insertCellRow(db, fullRow("k"), store::CellColumnsWritten::Identity);
        store::Statement s =
            db.prepare("SELECT run_dir, id, status, reasons, typeof(world_size), typeof(params), "
                       "typeof(agreement_steps), kind FROM cells");
        QVERIFY(s.step());
        QStringList got;
        for (int i = 0; i < s.columnCount(); ++i) {
            got << s.column(i).toString();
        }
        QCOMPARE(got, QStringList({"/results/run", "mlp2m_gloo_cpu_ws2_r1", "incomplete",
                                   R"(["no manifest","rank1.json: a, b"])", "null", "null", "null",
                                   "ddp"}));
    }

    void cellsJsonKeysAndValues() {
        store::CellRow row = fullRow("k");
        row.overlapTaxMs = 1.5; // derived when read: set here as the query would
        row.overlapTaxPercent = 12.5;
        row.overlapTwin = "mlp2m_gloo_cpu_ws2_local_r1";
        QCOMPARE(
            QString::fromUtf8(QJsonDocument(store::toJson(row)).toJson(QJsonDocument::Compact)),
            QString(
                R"({"agreement_flagged":true,"agreement_reason":"backend 6.2 % above hook",)"
                R"("axes":{"bucket_cap_mb":"0.25","hook":"powersgd","model":"mlp2m"},)"
                R"("backend_source":"gloo:* host spans","backend_total_ms":17,)"
                R"("bucket_cap_mb":0.25,)"
                R"("buckets_compared":9,"buckets_matched":7,"comm_ms":3.5,)"
                R"("comm_overhead_fraction":0.125,)"
                R"("ddp_backward_comm_ms":4.5,"ddp_backward_compute_ms":12.5,)"
                R"("ddp_hook_flagged":false,"ddp_hook_ratio":1.03125,"ddp_hook_reason":"",)"
                R"("ddp_overlap_ms":3.5,"ddp_samples":14,"device_demand_bytes":5,)"
                R"("exposed_comm_ms":0.875,"hook":"powersgd","hook_comm_ms":3.25,"hook_total_ms":16,)"
                R"("hook_trace_agreement":1.0625,"host_demand_bytes":987654321012,)"
                R"("id":"mlp2m_gloo_cpu_ws2_r1","interconnect":"host_loopback",)"
                R"("kind":"ddp","layer":"gloo_cpu","median_skew_ms":0.5,"model":"=mlp2m",)"
                R"("overlap_efficiency":0.75,"overlap_tax_ms":1.5,"overlap_tax_percent":12.5,)"
                R"("overlap_twin":"mlp2m_gloo_cpu_ws2_local_r1","params":2000000,)"
                R"("peak_device_bytes":42,)"
                R"("peak_host_bytes":123456789,"reasons":["no manifest","rank1.json: a, b"],)"
                R"("slowest_rank":1,"status":"incomplete","step_ms":41.5,"trace_comm_ms":3.5,)"
                R"("world_size":2})"));
        // Without a trace, comm_ms is the hook's; undefined figures are null.
        row.traceCommMs.reset();
        row.slowestRank.reset();
        row.deviceDemandBytes.reset();
        const QJsonObject o = store::toJson(row);
        QCOMPARE(o["comm_ms"].toDouble(), 3.25);
        QVERIFY(o["slowest_rank"].isNull() && o["device_demand_bytes"].isNull() &&
                o["trace_comm_ms"].isNull());
    }

    void cellsCsvRowFromTheTable() {
        analysis::DdpPrediction d;
        d.predictedUsPerStep = 2500;
        d.measuredUsPerStep = 2000;
        report::Predictions predictions;
        predictions["mlp2m_gloo_cpu_ws2_r1"] = store::StoredPrediction{"sweep_ws2", {}, d};
        store::CellRow without = fullRow("k");
        without.id = "other";
        without.hookCommMs.reset();
        const QStringList lines =
            report::cellsCsv({fullRow("k"), without}, predictions).split('\n');
        QCOMPARE(lines.size(), 4); // header, two rows, and the last line's end
        QCOMPARE(
            lines[1],
            QString(R"(mlp2m_gloo_cpu_ws2_r1,incomplete,"no manifest; rank1.json: a, b",)"
                    "'=mlp2m,2e+06,gloo_cpu,host_loopback,2,41.5,3.25,3.5,1.0625,1,0.75,"
                    "0.125,0.875,123456789,42,987654321012,5,ddp,2.5,2,0.25,12.5,4.5,1.03125,,"));
        QCOMPARE(lines[2],
                 QString(R"(other,incomplete,"no manifest; rank1.json: a, b",)"
                         "'=mlp2m,2e+06,gloo_cpu,host_loopback,2,41.5,,3.5,1.0625,1,0.75,"
                         "0.125,0.875,123456789,42,987654321012,5,ddp,,,,12.5,4.5,1.03125,,"));
    }

    void resultsViewHeaders() {
        models::ResultsCellModel m;
        QStringList headers;
        for (int i = 0; i < m.columnCount(); ++i) {
            headers << m.headerData(i, Qt::Horizontal).toString();
        }
        QCOMPARE(headers, QStringList({"cell", "kind", "status", "model", "layer", "ranks", "hook",
                                       "cap MiB", "repeat", "step ms", "comm ms/step",
                                       "exposed comm", "backend/hook", "reasons / notes"}));
    }

    // A column added after version 4 gets its ALTER TABLE from its line alone.
    void aLaterColumnAltersTheTable() {
        const std::vector<store::CellColumn> later = {
            {.name = "x_ms", .sqlType = "REAL", .since = 5, .doc = "a later figure"},
            {.name = "x_derived", .since = 5, .doc = "not stored"}};
        QCOMPARE(store::cellsColumnsAddedIn(5, later),
                 QString("ALTER TABLE cells ADD COLUMN x_ms REAL;\n"));
        QCOMPARE(store::cellsColumnsAddedIn(6, later), QString());
        store::Database db(work_.filePath("later.sqlite"));
        store::migrate(db);
        db.exec(store::cellsColumnsAddedIn(5, later));
        store::Statement s =
            db.prepare("SELECT type FROM pragma_table_info('cells') WHERE name = 'x_ms'");
        QVERIFY(s.step());
        QCOMPARE(s.column(0).toString(), QString("REAL"));
    }

    void formatsDocListsEveryColumn() {
        QFile f(COMMPROF_SOURCE_DIR "/docs/formats.md");
        QVERIFY(f.open(QIODevice::ReadOnly));
        const QString doc = QString::fromUtf8(f.readAll());
        const QString begin = "<!-- cell columns: generated from core/store/cell_columns.cpp -->\n";
        const QString end = "<!-- end of cell columns -->";
        const qsizetype from = doc.indexOf(begin);
        const qsizetype to = doc.indexOf(end);
        QVERIFY2(from >= 0 && to > from, "docs/formats.md lacks the cell columns markers");
        const QString listed = doc.mid(from + begin.size(), to - from - begin.size());
        const QString expected = store::cellColumnsMarkdown();
        if (listed != expected) {
            QFile out(work_.filePath("cell_columns.md"));
            out.open(QIODevice::WriteOnly);
            out.write(expected.toUtf8());
            qWarning().noquote() << "docs/formats.md's cell columns differ from the table; "
                                    "between the markers it should read:\n"
                                 << expected;
        }
        QCOMPARE(listed, expected);
    }
};

QTEST_GUILESS_MAIN(TstCellColumns)
#include "tst_cell_columns.moc"
