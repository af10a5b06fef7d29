// SPDX-License-Identifier: GPL-3.0-or-later
// The `link` and `ranks_per_host` settings in the matrix and `commprof plan`: an axis of DDP
// and sweep cells alike, named in ids, cell.json and plan --json; bad input as file:line:col
// errors from plan (exit 2), and refused where links cannot be emulated (neither root nor a
// user namespace to be had, Slurm).

#include "cli_runner.h"
#include "matrix/matrix.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QTemporaryDir>
#include <QTest>

#include <algorithm>

#include <unistd.h>

using namespace commprof;

namespace {

const QByteArray kBase =
    "name: links\n"
    "models:\n"
    "  - {name: mlp, family: mlp, params: 1.0e5}\n"
    "  - {name: sweep, kind: sweep, collectives: [all_reduce], max_bytes: 1024}\n"
    "layers: [{name: gloo_cpu}]\n";

// 1-based line and column of the first `token` in `text`, counted here by hand.
std::pair<int, int> positionOf(const QByteArray& text, const QByteArray& token) {
    const qsizetype at = text.indexOf(token);
    const qsizetype lineStart = text.lastIndexOf('\n', at) + 1;
    return {int(text.left(at).count('\n')) + 1, int(at - lineStart) + 1};
}

} // namespace

class TstLinksPlan : public QObject {
    Q_OBJECT

    QTemporaryDir dir_;

    QString write(const QByteArray& yaml) {
        static int n = 0;
        const QString path = dir_.filePath(QString("m%1.yaml").arg(n++));
        QFile f(path);
        if (!f.open(QIODevice::WriteOnly) || f.write(yaml) != yaml.size()) {
            qFatal("cannot write %s", qPrintable(path));
        }
        return path;
    }

    // `commprof plan` on YAML: exit 2 and "FILE:LINE:COL: KEY: ..." at `token`, with `words`.
    void expectPlanError(const QByteArray& yaml, const QByteArray& token, const QString& key,
                         const QString& words, const QStringList& extra = {}) {
        const QString path = write(yaml);
        const CliResult r = runCli("commprof", QStringList{"plan", path} + extra, 60000);
        QCOMPARE(r.exitCode, 2);
        const auto [line, col] = positionOf(yaml, token);
        const QString expected = QString("%1:%2:%3: %4: ").arg(path).arg(line).arg(col).arg(key);
        QVERIFY2(QString(r.err).contains(expected), qPrintable(expected + " not in " + r.err));
        QVERIFY2(QString(r.err).contains(words), qPrintable(words + " not in " + r.err));
    }

private slots:
    void initTestCase() { QVERIFY(dir_.isValid()); }

    void linkListIsAnAxisOfDdpAndSweepCells() {
        const matrix::Matrix m = matrix::parseMatrix(
            kBase + "world_sizes: [2, 4]\ndefaults: {link: [loopback, 1gbit, 2.5GBIT]}\n",
            "inline.yaml");
        const std::vector<matrix::Cell> cells = matrix::expand(m, {});
        QCOMPARE(int(cells.size()), 2 * 2 * 3); // the sweep too: each link its own fit
        QStringList ids;
        for (const matrix::Cell& c : cells) {
            ids << c.id;
            const auto link = std::find_if(c.axes.begin(), c.axes.end(),
                                           [](const auto& a) { return a.first == "link"; });
            QVERIFY(link != c.axes.end());
            QCOMPARE(link->second, c.config.link);
        }
        QVERIFY2(ids.contains("sweep_gloo_cpu_ws2_link1gbit_r0"), qPrintable(ids.join(' ')));
        QVERIFY(ids.contains("mlp_gloo_cpu_ws4_link2p5gbit_r0"));
        QVERIFY(ids.contains("mlp_gloo_cpu_ws2_loopback_r0"));
    }

    void oneLinkIsStillNamedLoopbackIsNot() {
        const auto ids = [](const QByteArray& defaults) {
            QStringList out;
            for (const matrix::Cell& c : matrix::expand(
                     matrix::parseMatrix(kBase + "world_sizes: [2]\n" + defaults, "i.yaml"), {})) {
                out << c.id;
            }
            return out;
        };
        QCOMPARE(
            ids("defaults: {link: 500mbit}\n"),
            QStringList({"mlp_gloo_cpu_ws2_link500mbit_r0", "sweep_gloo_cpu_ws2_link500mbit_r0"}));
        // Ids of matrices that never name a link stay what they were.
        QCOMPARE(ids("defaults: {link: loopback}\n"),
                 QStringList({"mlp_gloo_cpu_ws2_r0", "sweep_gloo_cpu_ws2_r0"}));
        QCOMPARE(ids(""), QStringList({"mlp_gloo_cpu_ws2_r0", "sweep_gloo_cpu_ws2_r0"}));
    }

    void planJsonCarriesTheLink() {
        if (::geteuid() != 0) {
            QSKIP("checked as root: a normal user plans a link only where the kernel gives it a "
                  "user namespace (refusedWithoutRootOrUserNamespaces)");
        }
        const QString path =
            write(kBase + "world_sizes: [4]\n"
                          "defaults: {link: [loopback, 10gbit], ranks_per_host: 2}\n");
        const CliResult r = runCli("commprof", {"plan", path, "--json"}, 60000);
        QCOMPARE(r.exitCode, 0);
        QStringList seen;
        for (const QJsonValue v : r.json()["cells"].toArray()) {
            const QJsonObject c = v.toObject();
            seen << c["config"].toObject()["link"].toString() + "/" +
                        QString::number(c["config"].toObject()["ranks_per_host"].toInt()) + "/" +
                        c["axes"].toObject()["link"].toString();
        }
        seen.sort();
        QCOMPARE(seen, QStringList({"10gbit/2/10gbit", "10gbit/2/10gbit", "loopback/2/loopback",
                                    "loopback/2/loopback"}));
    }

    void badRatesAreErrorsAtTheValue() {
        expectPlanError(kBase + "world_sizes: [2]\ndefaults: {link: [1gbit, fastgbit]}\n",
                        "fastgbit", "link", "unparsable rate 'fastgbit'");
        expectPlanError(kBase + "world_sizes: [2]\ndefaults: {link: 10gbps}\n", "10gbps", "link",
                        "unparsable rate '10gbps'");
        expectPlanError(kBase + "world_sizes: [2]\ndefaults: {link: 0mbit}\n", "0mbit", "link",
                        "a rate of 0");
        expectPlanError(kBase + "world_sizes: [2]\ndefaults: {ranks_per_host: 0}\n", "0}",
                        "ranks_per_host", "");
    }

    // One rate written two ways is one value listed twice, as DDP settings refuse it; a link
    // at the top of the matrix is said to belong under defaults or a model.
    void oneRateWrittenTwiceAndLinkAtTheTop() {
        expectPlanError(kBase + "world_sizes: [2]\ndefaults: {link: [1gbit, 1000mbit]}\n",
                        "1000mbit", "link",
                        "1000mbit is listed twice (it is the rate of the "
                        "earlier 1gbit)");
        expectPlanError(kBase + "world_sizes: [2]\ndefaults: {link: [0.5gbit, 500mbit]}\n",
                        "500mbit", "link", "listed twice");
        expectPlanError(kBase + "world_sizes: [2]\nlink: 1gbit\n", "link: 1gbit", "link",
                        "write it under defaults (for every model) or in a model's entry");
        // Two rates stay two cells each.
        const CliResult r = runCli(
            "commprof",
            {"plan", write(kBase + "world_sizes: [2]\ndefaults: {link: [1gbit, 100mbit]}\n")},
            60000);
        QVERIFY2(r.exitCode == 0, r.err.constData());
    }

    void hostsMustDivideTheWorld() {
        expectPlanError(kBase + "world_sizes: [4, 6]\ndefaults: {ranks_per_host: 4}\n", "6]",
                        "world_sizes", "world size 6 is not a whole number of hosts");
        if (::geteuid() == 0) {
            expectPlanError(kBase +
                                "world_sizes: [2]\ndefaults: {link: 1gbit, ranks_per_host: 2}\n",
                            "2]", "world_sizes", "is one host");
        }
    }

    void slurmUsesTheRealNetwork() {
        const QByteArray yaml = kBase + "world_sizes: [2]\n"
                                        "defaults: {link: 2gbit}\n"
                                        "launcher: {kind: slurm}\n";
        expectPlanError(yaml, "2gbit", "link", "under the Slurm launcher");
        // --launcher slurm on the command line too, over a local matrix.
        expectPlanError(kBase + "world_sizes: [2]\ndefaults: {link: [loopback, 2gbit]}\n", "2gbit",
                        "link", "under the Slurm launcher", {"--launcher", "slurm"});
    }

    // A normal user may emulate links where the kernel gives it a user namespace of its own
    // (util-linux's unshare, not commprof, says whether it does), and plan refuses the link,
    // saying why, where it does not: there a user namespace whose user.max_user_namespaces is
    // used up stands in for a kernel that allows none.
    void refusedWithoutRootOrUserNamespaces() {
        const QByteArray yaml = kBase + "world_sizes: [2]\ndefaults: {link: 1gbit}\n";
        const QString path = write(yaml);
        QFile::setPermissions(path, QFileDevice::ReadOwner | QFileDevice::ReadOther |
                                        QFileDevice::ReadGroup);
        QFile::setPermissions(dir_.path(), QFileDevice::ReadOwner | QFileDevice::WriteOwner |
                                               QFileDevice::ExeOwner | QFileDevice::ExeOther |
                                               QFileDevice::ReadOther);
        // As root: as nobody, through setpriv; as a normal user: as itself.
        const QStringList asUser = ::geteuid() == 0 ? QStringList{"setpriv", "--reuid=65534",
                                                                  "--regid=65534", "--clear-groups"}
                                                    : QStringList{};
        const auto asTheUser = [&asUser](const QStringList& command) {
            const QStringList all = asUser + command;
            return runProgram(all.first(), all.mid(1), 60000);
        };
        const QString commprof = COMMPROF_BIN_DIR "/commprof";
        const CliResult userns =
            asTheUser({"unshare", "--user", "--map-root-user", "--net", "--mount", "true"});
        if (userns.exitCode == 125 || QString(userns.err).contains("setpriv")) {
            QSKIP(qPrintable("cannot drop to nobody here: " + userns.err));
        }
        const CliResult plain = asTheUser({commprof, "plan", path});
        const auto [line, col] = positionOf(yaml, "1gbit");
        const QString at = QString("%1:%2:%3: link: ").arg(path).arg(line).arg(col);
        if (userns.exitCode == 0) {
            QVERIFY2(plain.exitCode == 0, plain.err.constData());
        } else {
            QCOMPARE(plain.exitCode, 2);
            QVERIFY2(QString(plain.err).contains(at), plain.err.constData());
            QVERIFY2(plain.err.contains("need root or unprivileged user namespaces"),
                     plain.err.constData());
        }
        // No user namespace to be had: one level down, with room for that level only. That
        // level is made, and one more refused there, by util-linux first.
        const QString uid = QString::number(::geteuid() == 0 ? 65534 : ::geteuid());
        const auto oneLevelDown = [&](const QString& command, const QStringList& args) {
            return asTheUser(QStringList{"unshare", "--user", "--map-root-user", "sh", "-c",
                                         "echo 1 > /proc/sys/user/max_user_namespaces && exec "
                                         "unshare --user --map-user=" +
                                             uid + " --map-group=" + uid + " " + command} +
                             args);
        };
        const CliResult level = oneLevelDown("true", {});
        const CliResult noMore = oneLevelDown("unshare --user --map-root-user true", {});
        if (level.exitCode != 0 || !noMore.err.contains("No space left on device")) {
            QSKIP(qPrintable("cannot make a user namespace without room for another here: " +
                             level.err + noMore.err));
        }
        const CliResult refused = oneLevelDown("\"$0\" plan \"$1\"", {commprof, path});
        QCOMPARE(refused.exitCode, 2);
        QVERIFY2(QString(refused.err).contains(at), refused.err.constData());
        QVERIFY2(refused.err.contains("need root or unprivileged user namespaces"),
                 refused.err.constData());
        QVERIFY2(refused.err.contains("No space left on device"), refused.err.constData());
        if (::geteuid() == 0) {
            // And as root the same matrix plans.
            QCOMPARE(runCli("commprof", {"plan", path}, 60000).exitCode, 0);
        }
    }
};

QTEST_GUILESS_MAIN(TstLinksPlan)
#include "tst_links_plan.moc"
