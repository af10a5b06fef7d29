// SPDX-License-Identifier: GPL-3.0-or-later
// What commprof recommend does with results it must not believe, on a real run (an MLP at two
// bucket caps and two batch sizes on gloo_cpu, and an all_reduce sweep) whose files are then
// altered as a disk fault, a bad clock or an edit would: a figure longer than the rank's whole
// run, a setting of the wrong type in cell.json, a negative step, a rank file missing, a cell
// folder that is a link to outside; and two groups that differ only in their batch size.

#include "rank_files.h"
#include "study_helpers.h"

#include <QJsonArray>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTest>

#include <cmath>

namespace {

const QString kCell25 = "mlp1m_gloo_cpu_ws2_b8_cap25_r0";

// The cells `recommend --json` names as dropped, by id, with their reasons joined.
QMap<QString, QString> droppedOf(const QJsonObject& doc) {
    QMap<QString, QString> out;
    for (const QJsonValue& v : doc["dropped"].toArray()) {
        QStringList reasons;
        for (const QJsonValue& r : v["reasons"].toArray()) {
            reasons << r.toString();
        }
        out[v["cell"].toString()] = reasons.join("; ");
    }
    return out;
}

} // namespace

class TstRecommendInputs : public QObject {
    Q_OBJECT
    QTemporaryDir work_;
    QString results_;

    QString copyOf(const QString& name) {
        const QString copy = work_.filePath(name);
        return copyDir(results_, copy) ? copy : QString();
    }

    bool editRank(const QString& results, const QString& cell, int rank,
                  const std::function<void(QJsonObject&)>& edit) {
        const QString path = QString("%1/cells/%2/rank%3.json").arg(results, cell).arg(rank);
        QJsonObject doc = readJsonFile(path);
        edit(doc);
        return writeJsonFile(path, doc);
    }

private slots:
    void initTestCase() {
        QVERIFY(work_.isValid());
        const QString defaults = R"(  iterations: 10
  warmup: 3
  batch_size: [8, 16]
  bucket_cap_mb: [1, 25]
  first_bucket_mb: 1
  timeout_s: 240
)";
        results_ = work_.filePath("results");
        const CliResult run =
            runStudy(work_,
                     sweptStudy("recommend_inputs", defaults,
                                "{name: mlp1m, family: mlp, params: 1.0e6}", 8388608),
                     results_, 400000);
        QVERIFY2(run.exitCode == 0, run.err.constData());
        QVERIFY(QFileInfo::exists(results_ + "/cells/" + kCell25 + "/rank0.json"));
    }

    // A step of 1e300 ms and a forward of 1e306 ms (JSON holds no inf): longer than the rank's
    // own wall time, so the cell is incomplete with the field named, and nothing printed holds
    // inf, nan or a null where a number was due.
    void figuresLongerThanTheRunMakeTheCellIncomplete() {
        const QString copy = copyOf("overlong");
        QVERIFY(editRank(copy, kCell25, 0, [](QJsonObject& doc) {
            QJsonArray its = doc["iterations"].toArray();
            QJsonObject it = its[5].toObject();
            it["step_ms"] = 1e300;
            it["forward_ms"] = 1e306;
            its[5] = it;
            doc["iterations"] = its;
        }));
        const CliResult r = runCli("commprof", {"recommend", copy, "--json"});
        QVERIFY2(r.exitCode == 0 || r.exitCode == 1, r.err.constData());
        const QMap<QString, QString> dropped = droppedOf(r.json());
        QVERIFY2(dropped.contains(kCell25), r.out.constData());
        QVERIFY2(dropped[kCell25].contains("iterations[5].forward_ms") &&
                     dropped[kCell25].contains("wall time"),
                 qPrintable(dropped[kCell25]));
        for (const QJsonValue& g : r.json()["groups"].toArray()) {
            for (const QJsonValue& c : g["candidates"].toArray()) {
                QVERIFY(c["predicted_step_ms"].isDouble());
                QVERIFY(std::isfinite(c["predicted_step_ms"].toDouble()));
            }
        }
        const CliResult text = runCli("commprof", {"recommend", copy});
        QVERIFY(!text.out.contains("inf") && !text.out.contains("nan"));
        QVERIFY2(text.out.contains(("left out: " + kCell25).toUtf8()), text.out.constData());
        const CliResult cells = runCli("commprof", {"cells", copy, "--json"});
        QCOMPARE(cells.exitCode, 0);
        bool seen = false;
        for (const QJsonValue& c : cells.json()["cells"].toArray()) {
            if (c["id"].toString() == kCell25) {
                seen = true;
                QCOMPARE(c["status"].toString(), QString("incomplete"));
            }
        }
        QVERIFY(seen);
    }

    // config.bucket_cap_mb written as the string "1": refused with the field named, never taken
    // as DDP's default 25 MiB.
    void aSettingOfTheWrongTypeIsRefused() {
        const QString copy = copyOf("wrongtype");
        const QString path = copy + "/cells/" + kCell25 + "/cell.json";
        QJsonObject cell = readJsonFile(path);
        QJsonObject config = cell["config"].toObject();
        config["bucket_cap_mb"] = "1";
        cell["config"] = config;
        QVERIFY(writeJsonFile(path, cell));
        const CliResult r = runCli("commprof", {"recommend", copy, "--json"});
        const QMap<QString, QString> dropped = droppedOf(r.json());
        QVERIFY2(dropped.value(kCell25).contains("config.bucket_cap_mb: expected a number, found "
                                                 "a string \"1\""),
                 r.out.constData());
        for (const QJsonValue& g : r.json()["groups"].toArray()) {
            QVERIFY(!g["cells"].toArray().contains(kCell25));
        }
    }

    // Every cell left out is named with why: a negative step, a rank file missing; a cell folder
    // that is a link to outside the results is refused as `cells` refuses it (exit 2).
    void everyDroppedCellIsNamed() {
        const QString copy = copyOf("drops");
        const QString negative = "mlp1m_gloo_cpu_ws2_b8_cap1_r0";
        QVERIFY(editRank(copy, negative, 0, [](QJsonObject& doc) {
            QJsonArray its = doc["iterations"].toArray();
            QJsonObject it = its[4].toObject();
            it["step_ms"] = -3.0;
            its[4] = it;
            doc["iterations"] = its;
        }));
        const QString missing = "mlp1m_gloo_cpu_ws2_b16_cap25_r0";
        QVERIFY(QFile::remove(copy + "/cells/" + missing + "/rank1.json"));
        const CliResult r = runCli("commprof", {"recommend", copy, "--json"});
        const QMap<QString, QString> dropped = droppedOf(r.json());
        QVERIFY2(dropped.value(negative).contains("iterations[4].step_ms"), r.out.constData());
        QVERIFY2(dropped.value(missing).contains("1 rank files, world_size 2"), r.out.constData());
        const CliResult text = runCli("commprof", {"recommend", copy});
        QVERIFY(text.out.contains(("left out: " + negative).toUtf8()));
        QVERIFY(text.out.contains(("left out: " + missing).toUtf8()));

        const QString linked = copyOf("linked");
        const QString outside = work_.filePath("outside_cell");
        QVERIFY(QDir().rename(linked + "/cells/" + kCell25, outside));
        QVERIFY(QFile::link(outside, linked + "/cells/" + kCell25));
        const CliResult refused = runCli("commprof", {"recommend", linked, "--json"});
        QCOMPARE(refused.exitCode, 2);
        QVERIFY2(refused.err.contains(kCell25.toUtf8()) && refused.err.contains("link"),
                 refused.err.constData());
        QVERIFY(refused.out.isEmpty());
    }

    // The two groups differ only in their batch size, which the heading did not print.
    void groupsThatDifferOnlyInASettingHaveDistinctHeadings() {
        const CliResult text = runCli("commprof", {"recommend", results_});
        QVERIFY2(text.exitCode == 0 || text.exitCode == 1, text.err.constData());
        QStringList headings;
        for (const QString& line : QString::fromUtf8(text.out).split('\n')) {
            if (!line.isEmpty() && !line.startsWith(' ')) {
                headings << line;
            }
        }
        QCOMPARE(headings.size(), 2);
        QVERIFY2(headings[0] != headings[1], qPrintable(headings.join('\n')));
        QVERIFY2(headings.join('\n').contains("batch_size 8") &&
                     headings.join('\n').contains("batch_size 16"),
                 qPrintable(headings.join('\n')));
        const CliResult json = runCli("commprof", {"recommend", results_, "--json"});
        QSet<QString> settings;
        for (const QJsonValue& g : json.json()["groups"].toArray()) {
            settings << QString::number(g["settings"]["batch_size"].toDouble());
        }
        QCOMPARE(settings, (QSet<QString>{"8", "16"}));
    }
};

QTEST_APPLESS_MAIN(TstRecommendInputs)
#include "tst_recommend_inputs.moc"
