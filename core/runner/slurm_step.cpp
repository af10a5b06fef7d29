// SPDX-License-Identifier: GPL-3.0-or-later
#include "slurm_step.h"

#include "spec/mapped.h"

#include <QRegularExpression>

#include <algorithm>
#include <cmath>
#include <utility>

namespace commprof::runner {

int slurmMinutes(const matrix::LauncherSpec& spec, double timeoutS) {
    const double seconds = spec.timeLimitS ? double(*spec.timeLimitS) : timeoutS;
    return std::max(1, int(std::ceil(seconds / 60.0)));
}

namespace {

// --nodes and --ntasks-per-node of a world, as matrix::ranksPerNode places it.
QStringList placement(const matrix::LauncherSpec& spec, int worldSize) {
    const std::vector<int> nodes = matrix::ranksPerNode(spec, worldSize);
    return {QString("--nodes=%1").arg(nodes.size()), QString("--ntasks=%1").arg(worldSize),
            QString("--ntasks-per-node=%1").arg(*std::max_element(nodes.begin(), nodes.end()))};
}

} // namespace

QStringList srunOptions(const matrix::LauncherSpec& spec, int worldSize, const QString& name,
                        int minutes, const QStringList& nodeList) {
    // The environment variables the ranks need, passed by name (their values never appear on a
    // command line, where every user of the node could read them).
    const QStringList exports{"ALL", "MASTER_ADDR", "MASTER_PORT", "COMMPROF_STORE_TOKEN",
                              "COMMPROF_RUN_ID"};
    // --verbose for the step id and every task's exit; --label to tell the ranks apart.
    QStringList o{"--verbose",
                  "--label",
                  "--unbuffered",
                  "--kill-on-bad-exit=1",
                  "--job-name=" + name,
                  QString("--time=%1").arg(minutes),
                  "--export=" + exports.join(',')};
    o << placement(spec, worldSize);
    if (!nodeList.isEmpty()) {
        o << "--nodelist=" + nodeList.join(',');
    }
    return o;
}

QStringList sbatchDirectives(const matrix::LauncherSpec& spec, int worldSize, int minutes) {
    QStringList d;
    if (!spec.partition.isEmpty()) {
        d << "--partition=" + spec.partition;
    }
    if (!spec.account.isEmpty()) {
        d << "--account=" + spec.account;
    }
    d << placement(spec, worldSize) << QString("--time=%1").arg(minutes) << spec.extraArgs;
    return d;
}

QString shellQuote(const QString& word) {
    static const QRegularExpression plain("^[A-Za-z0-9_./=:,+@%-]+$");
    return plain.match(word).hasMatch() ? word : "'" + QString(word).replace("'", "'\\''") + "'";
}

QByteArray batchScript(const QString& cellId, const QStringList& directives, int port,
                       const QStringList& srunCommand) {
    QString s = "#!/bin/sh\n";
    for (const QString& d : directives) {
        s += "#SBATCH " + d + "\n";
    }
    const auto quoted = spec::mapped<QStringList>(srunCommand, shellQuote);
    s += QString("# commprof cell %1: its ranks as one srun step in this job's allocation.\n"
                 "# Submitted by `commprof run` with sbatch --wait --parsable --job-name, "
                 "--comment, --output and --chdir;\n"
                 "# COMMPROF_STORE_TOKEN and COMMPROF_RUN_ID come from its environment.\n"
                 "MASTER_ADDR=$(scontrol show hostnames \"$SLURM_JOB_NODELIST\" | head -n 1)\n"
                 "if [ -z \"$MASTER_ADDR\" ]; then\n"
                 "    echo \"commprof: no first host in SLURM_JOB_NODELIST "
                 "('$SLURM_JOB_NODELIST')\" >&2\n"
                 "    exit 1\n"
                 "fi\n"
                 "MASTER_PORT=%2\n"
                 "export MASTER_ADDR MASTER_PORT\n"
                 "echo \"commprof: MASTER_ADDR=$MASTER_ADDR\"\n"
                 "exec %3\n")
             .arg(cellId)
             .arg(port)
             .arg(quoted.join(' '));
    return s.toUtf8();
}

SrunLine splitLabel(const QByteArray& line) {
    static const QRegularExpression label("^\\s*(\\d{1,7}): ");
    const QString text = QString::fromUtf8(line.left(64));
    const QRegularExpressionMatch m = label.match(text);
    if (!m.hasMatch()) {
        return {-1, line};
    }
    return {m.captured(1).toInt(), line.mid(m.captured(0).toUtf8().size())};
}

QString launchedStep(const QByteArray& line) {
    static const QRegularExpression re("launching StepId=(\\d+\\.\\d+)");
    return re.match(QString::fromUtf8(line)).captured(1); // null without a match
}

QString announcedMaster(const QByteArray& line) {
    static const QRegularExpression re("^commprof: MASTER_ADDR=(\\S+)$");
    return re.match(QString::fromUtf8(line).trimmed()).captured(1); // null without a match
}

QString stepdNotice(const QByteArray& line) {
    static const QRegularExpression re("\\*\\*\\* (?:JOB|STEP) .* \\*\\*\\*");
    return re.match(QString::fromUtf8(line)).captured(0); // null without a match
}

bool readTaskExits(const QByteArray& line, std::vector<RankExit>& ranks) {
    static const QRegularExpression re(": tasks? ([0-9,\\-]+): (.+)$");
    const QRegularExpressionMatch m = re.match(QString::fromUtf8(line).trimmed());
    if (!m.hasMatch()) {
        return false;
    }
    const QString what = m.captured(2).trimmed();
    static const QRegularExpression exited("^Exited with exit code (\\d+)");
    const QRegularExpressionMatch code = exited.match(what);
    for (const QString& part : m.captured(1).split(',', Qt::SkipEmptyParts)) {
        const int first = part.section('-', 0, 0).toInt();
        const int last = part.contains('-') ? part.section('-', 1, 1).toInt() : first;
        for (int r = first; r <= last && r < int(ranks.size()); ++r) {
            RankExit& e = ranks[std::size_t(std::max(0, r))];
            e.rank = r;
            e.crashed = !code.hasMatch() && what != "Completed";
            e.exitCode = code.hasMatch() ? code.captured(1).toInt() : (e.crashed ? -1 : 0);
        }
    }
    return true;
}

QString schedulerStateText(const QJsonObject& s) {
    QString text = s["state"].toString();
    for (const auto& [key, part] :
         {std::pair{"job_id", " job %1"}, std::pair{"step_id", " step %1"},
          std::pair{"nodes", " on %1"}, std::pair{"reason", " (%1)"}}) {
        if (!s[key].toString().isEmpty()) {
            text += QString(part).arg(s[key].toString());
        }
    }
    return text;
}

} // namespace commprof::runner
