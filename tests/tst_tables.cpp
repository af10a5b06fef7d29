// SPDX-License-Identifier: GPL-3.0-or-later
// One table per concept: the layer and model-family tables drive the matrix and feasibility,
// and the matrix is one product of axes. Each check compares against a hand enumeration or a
// hand calculation, not against the tables' own output.

#include "feasibility/cell_json.h"
#include "feasibility/footprint.h"
#include "host_cells.h"
#include "matrix/axes.h"
#include "matrix/exclusion.h"
#include "matrix/knobs.h"
#include "matrix/matrix.h"
#include "spec/layers.h"
#include "spec/model_families.h"

#include <QTest>

#include <array>

using namespace commprof;

namespace {

matrix::Matrix parse(const QString& yaml) {
    return matrix::parseMatrix(yaml.toUtf8(), "inline.yaml");
}

matrix::Axis axis(const QString& key, int n) {
    matrix::Axis a;
    a.key = key;
    for (int i = 0; i < n; ++i) {
        a.values.push_back({QString::number(i), key + QString::number(i)});
    }
    return a;
}

// The product of `axes` with no exclude rule.
void kept(const std::vector<matrix::Axis>& axes,
          const std::function<bool(const std::vector<std::size_t>&)>& visit) {
    matrix::ModelExclusions({}, matrix::ModelSpec{}, axes).forEachKept(visit);
}

} // namespace

class TstTables : public QObject {
    Q_OBJECT
private slots:
    // The product visits what three nested loops would, in their order.
    void productIsTheNestedLoops() {
        QStringList expected;
        for (int a = 0; a < 2; ++a) {
            for (int b = 0; b < 3; ++b) {
                for (int c = 0; c < 2; ++c) {
                    expected << QString("%1%2%3").arg(a).arg(b).arg(c);
                }
            }
        }
        QStringList seen;
        kept({axis("a", 2), axis("b", 3), axis("c", 2)}, [&](const auto& at) {
            seen << QString("%1%2%3").arg(at[0]).arg(at[1]).arg(at[2]);
            return true;
        });
        QCOMPARE(seen, expected);
        QCOMPARE(matrix::combinations({axis("a", 2), axis("b", 3), axis("c", 2)}), 12.0);
    }

    void productStopsWhenAskedAndOnAnEmptyAxis() {
        int visits = 0;
        kept({axis("a", 10), axis("b", 10)}, [&](const auto&) { return ++visits < 5; });
        QCOMPARE(visits, 5);
        visits = 0;
        kept({axis("a", 3), axis("b", 0)}, [&](const auto&) {
            ++visits;
            return true;
        });
        QCOMPARE(visits, 0);
    }

    // Every cell says which value each axis took, model first, and excludes match on those.
    void cellsCarryTheirAxisValues() {
        const auto cells = matrix::expand(
            parse("name: t\nrepeats: 2\nmodels: [{name: a, params: 1e6}]\nlayers: [{name: "
                  "gloo_cpu}, {name: nccl}]\nworld_sizes: [1, 2]\nexclude: [{layer: nccl, "
                  "world_size: 2}]\n"),
            {1});
        // 2 layers x 2 world sizes x 2 repeats, less nccl at 2 ranks (2 repeats)
        QCOMPARE(cells.size(), std::size_t(6));
        const auto& last = cells.back();
        QCOMPARE(last.id, QString("a_nccl_ws1_r1"));
        const std::vector<std::pair<QString, QString>> axes{
            {"model", "a"}, {"layer", "nccl"}, {"world_size", "1"}, {"repeat", "1"}};
        QCOMPARE(last.axes, axes);
    }

    // The layer table is what the matrix knows: its names, and each layer's facts.
    void everyLayerOfTheTableIsAMatrixLayer() {
        QString yaml = "name: t\nmodels: [{name: a, params: 1e6}]\nlayers: [";
        for (const spec::Layer& l : spec::kLayers) {
            yaml +=
                QString("{name: %1}, ").arg(QString::fromUtf8(l.name.data(), int(l.name.size())));
        }
        yaml.chop(2);
        yaml += "]\nworld_sizes: [2]\n";
        const auto cells = matrix::expand(parse(yaml), {2});
        QCOMPARE(cells.size(), spec::kLayers.size());
        for (std::size_t i = 0; i < cells.size(); ++i) {
            const spec::Layer& l = spec::kLayers[i];
            QCOMPARE(cells[i].layer.backend.toStdString(), std::string(l.backend));
            QCOMPARE(cells[i].layer.device.toStdString(), std::string(l.device));
            QCOMPARE(cells[i].layer.interconnect.toStdString(), std::string(l.interconnect));
        }
        // The rank derives its layer from --backend and --device alone.
        QCOMPARE(std::string(spec::layerOf("gloo", "cpu")->name), std::string("gloo_cpu"));
        QCOMPARE(std::string(spec::layerOf("gloo", "cuda")->name), std::string("gloo_cuda"));
        QCOMPARE(std::string(spec::layerOf("nccl", "cuda")->name), std::string("nccl"));
        QVERIFY(!spec::layerOf("mpi", "cpu"));
    }

    void anUnknownLayerListsTheTable() {
        try {
            parse("name: t\nmodels: [{name: a, params: 1e6}]\nlayers: [{name: ucc}]\n"
                  "world_sizes: [2]\n");
            QFAIL("an unknown layer was accepted");
        } catch (const matrix::MatrixError& e) {
            QCOMPARE(e.line, 3);
            QCOMPARE(QString(e.what()),
                     QString("inline.yaml:3:17: name: unknown layer 'ucc' (gloo_cpu, gloo_cuda, "
                             "nccl)"));
        }
    }

    // A family is sized by its own rule: at 1e6 parameters the transformer's activations,
    // by hand from docs/feasibility.md, are not the MLP's.
    void eachFamilySizesItsOwnActivations() {
        matrix::Cell cell = glooCpuCell(1e6, 1);
        cell.config.batchSize = 8;
        const feasibility::Coefficients k;
        const feasibility::MachineBudget budget = hostBudget64GiB();
        const auto activations = [&](const QString& family) {
            cell.model.family = family;
            for (const auto& t : feasibility::estimate(cell, k, budget).host.terms) {
                if (t.name == "activations") {
                    return t.bytes;
                }
            }
            return -1.0;
        };
        // mlp at 1e6: h = floor((-1 + sqrt(1 + 4e6 / 7)) / 2) = 377; out = round((1e6 - 6 (377^2
        // + 377)) / 378) = 384; (6 x 8 x 377 x 3 + 8 x 384 x 2) x 4 bytes.
        QCOMPARE(activations("mlp"), (6.0 * 8 * 377 * 3 + 8.0 * 384 * 2) * 4);
        // transformer at 1e6: d = 128 (2 heads), out = round((1e6 - 4 (12 x 128^2 + 13 x 128))
        // / 129) = 1604; per block 8 x 16 x 128 x 17 x 4 + 8 x 2 x 16 x 16 x 8.
        const double perBlock = 8.0 * 16 * 128 * 17 * 4 + 8.0 * 2 * 16 * 16 * 8;
        QCOMPARE(activations("transformer"), 4 * perBlock + 8.0 * 16 * 1604 * 8);
    }

    // A family this build does not know is never sized as an MLP: the cell cannot be planned.
    void anUnknownFamilyIsNeverSizedAsAnotherOne() {
        matrix::Cell cell = glooCpuCell(1e6, 1);
        cell.model.family = "mixture_of_experts";
        const feasibility::MachineBudget budget = hostBudget64GiB();
        const auto e = feasibility::estimate(cell, feasibility::Coefficients{}, budget);
        QVERIFY(!e.feasible);
        QVERIFY(e.host.terms.empty());
        QCOMPARE(e.reason, QString("unknown model family 'mixture_of_experts' (mlp, transformer)"));
    }

    // DDP settings as lists: the product, in order, with the varying ones in the id.
    void settingListsAreAxes() {
        const auto cells = matrix::expand(
            parse("name: t\ndefaults: {bucket_cap_mb: [0.25, 4], hook: [allreduce, powersgd]}\n"
                  "models:\n  - {name: a, params: 1e6}\n  - {name: b, params: 1e6, hook: local}\n"
                  "  - {name: s, kind: sweep}\nlayers: [{name: gloo_cpu}]\nworld_sizes: [2]\n"
                  "exclude: [{model: a, hook: powersgd, bucket_cap_mb: 4}]\n"),
            {0});
        QStringList ids;
        for (const auto& c : cells) {
            ids << c.id;
        }
        // a: 2 caps x 2 hooks less one; b: its own hook; the sweep once, with no settings.
        QCOMPARE(ids,
                 (QStringList{"a_gloo_cpu_ws2_cap0p25_allreduce_r0",
                              "a_gloo_cpu_ws2_cap0p25_powersgd_r0",
                              "a_gloo_cpu_ws2_cap4_allreduce_r0", "b_gloo_cpu_ws2_cap0p25_local_r0",
                              "b_gloo_cpu_ws2_cap4_local_r0", "s_gloo_cpu_ws2_r0"}));
        QCOMPARE(cells[1].config.bucketCapMb, 0.25);
        QCOMPARE(cells[1].config.hook, QString("powersgd"));
        QCOMPARE(cells[3].config.hook, QString("local"));
    }

    void settingListErrorsPointAtTheValue_data() {
        QTest::addColumn<QString>("yaml");
        QTest::addColumn<QString>("error");
        const QString tail = "models: [{name: a, params: 1e6}]\nlayers: [{name: gloo_cpu}]\n"
                             "world_sizes: [2]\n";
        QTest::newRow("unknown hook")
            << "name: t\ndefaults: {hook: [allreduce, gossip]}\n" + tail
            << "inline.yaml:2:30: hook: 'gossip' is not one of allreduce, fp16_compress, "
               "bf16_compress, powersgd, local";
        QTest::newRow("empty list") << "name: t\ndefaults: {bucket_cap_mb: []}\n" + tail
                                    << "inline.yaml:2:27: bucket_cap_mb: an empty list: give at "
                                       "least one value";
        QTest::newRow("list where a value must be")
            << "name: t\ndefaults: {iterations: [10, 20]}\n" + tail
            << "inline.yaml:2:24: iterations: expected a number";
        QTest::newRow("twice") << "name: t\ndefaults: {batch_size: [8, 8]}\n" + tail
                               << "inline.yaml:2:28: batch_size: 8 is listed twice";
        QTest::newRow("a layer overriding an axis")
            << "name: t\ndefaults: {bucket_cap_mb: [1, 4]}\nmodels: [{name: a, params: 1e6}]\n"
               "layers: [{name: gloo_cpu, overrides: {bucket_cap_mb: 2}}]\nworld_sizes: [2]\n"
            << "inline.yaml:4:54: bucket_cap_mb: bucket_cap_mb is a list in defaults, an axis of "
               "the matrix: a layer cannot override it (exclude the cells instead)";
        QTest::newRow("a list in a layer")
            << "name: t\nmodels: [{name: a, params: 1e6}]\nlayers: [{name: gloo_cpu, "
               "overrides: {hook: [local]}}]\nworld_sizes: [2]\n"
            << "inline.yaml:3:45: hook: a list is allowed in defaults or a model entry, not in "
               "overrides";
    }
    void settingListErrorsPointAtTheValue() {
        QFETCH(QString, yaml);
        QFETCH(QString, error);
        try {
            matrix::expand(parse(yaml), {0});
            QFAIL("accepted");
        } catch (const matrix::MatrixError& e) {
            QVERIFY2(QString(e.what()).startsWith(error), e.what());
        }
    }

    // What cell.json's config says of the settings reads back as the settings (ingest relies
    // on it to key the store's axes), for every row of the table.
    void settingsReadBackFromCellJson() {
        matrix::RunConfig c;
        c.batchSize = 8;
        c.bucketCapMb = 0.25;
        c.firstBucketMb = 2;
        c.gradientAsBucketView = true;
        c.staticGraph = true;
        c.hook = "powersgd";
        const matrix::RunConfig back = matrix::knobsFromJson(matrix::runConfigJson(c));
        QCOMPARE(back.batchSize, 8);
        QCOMPARE(back.bucketCapMb, 0.25);
        QCOMPARE(back.firstBucketMb, 2.0);
        QVERIFY(back.gradientAsBucketView);
        QVERIFY(back.staticGraph);
        QCOMPARE(back.hook, QString("powersgd"));
        QCOMPARE(
            matrix::knobArguments(back),
            (QStringList{"--batch-size", "8", "--bucket-cap-mb", "0.25", "--first-bucket-mb", "2",
                         "--gradient-as-bucket-view", "--static-graph", "--hook", "powersgd"}));
    }

    // Each setting's part of a cell id, and its value through a RunConfig and back, as the
    // table's rows spell them.
    void eachSettingHasItsIdPart() {
        const std::array<std::array<QString, 3>, 9> settings{{
            {"batch_size", "16", "b16"},
            {"bucket_cap_mb", "0.25", "cap0p25"},
            {"first_bucket_mb", "1.5", "first1p5"},
            {"gradient_as_bucket_view", "true", "view"},
            {"gradient_as_bucket_view", "false", "copy"},
            {"static_graph", "true", "static"},
            {"static_graph", "false", "dynamic"},
            {"hook", "powersgd", "powersgd"},
            {"ranks_per_host", "2", "rph2"},
        }};
        for (const auto& [key, value, id] : settings) {
            const matrix::Knob* knob = matrix::findKnob(key);
            QVERIFY2(knob, qPrintable(key));
            QCOMPARE(knob->idPart(value), id);
            matrix::RunConfig c;
            knob->apply(c, value);
            QCOMPARE(knob->valueOf(c), value);
        }
    }

    // Ten settings of ten values each on one model: 10^10 cells, refused by the limit at once.
    void aMillionCombinationsMeetTheLimit() {
        QString lists;
        for (const char* key : {"bucket_cap_mb", "first_bucket_mb", "batch_size"}) {
            lists += QString("%1: [").arg(key);
            for (int i = 1; i <= 101; ++i) {
                lists += QString::number(i) + (i < 101 ? ", " : "], ");
            }
        }
        lists.chop(2);
        const auto m = parse("name: t\ndefaults: {" + lists +
                             "}\nmodels: [{name: a, params: 1e6}]\nlayers: [{name: "
                             "gloo_cpu}]\nworld_sizes: [2]\n");
        try {
            matrix::expand(m, {0});
            QFAIL("accepted");
        } catch (const matrix::MatrixError& e) {
            QVERIFY2(QString(e.what()).contains("1 models x 1 layers x 1 world sizes x 101 batch "
                                                "sizes x 101 bucket caps x 101 first bucket caps "
                                                "x 1 repeats = 1030301 before exclusions"),
                     e.what());
        }
    }
};

QTEST_GUILESS_MAIN(TstTables)
#include "tst_tables.moc"
