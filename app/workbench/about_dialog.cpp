// SPDX-License-Identifier: GPL-3.0-or-later
#include "about_dialog.h"

#include "jobs/job_tracker.h"
#include "runner/rank_program.h"

#include <QDialogButtonBox>
#include <QHBoxLayout>
#include <QIcon>
#include <QJsonObject>
#include <QVBoxLayout>

namespace commprof::workbench {

// What `commprof-rank --version --json` says about its libtorch, in words; throws with the
// reason when the program cannot be run or answers something else.
static QString rankLibtorchVersion(const QString& rankProgram) {
    const QJsonObject v = runner::rankVersion(rankProgram);
    QStringList traits{
        v["cuda_build"].toBool() ? "CUDA build" : "CPU only",
        QString("Gloo %1").arg(v["gloo"].toBool() ? "yes" : "no"),
        QString("NCCL %1").arg(v["nccl"].toBool() ? v["nccl_version"].toString() : QString("no")),
        QString("Kineto %1").arg(v["kineto"].toBool() ? "yes" : "no")};
    return QString("%1 (%2)").arg(v["torch_version"].toString(), traits.join(", "));
}

AboutDialog::AboutDialog(QWidget* parent) : QDialog(parent) {
    setWindowTitle("About commprof");
    auto* icon = new QLabel(this);
    icon->setPixmap(QIcon(":/commprof/commprof.svg").pixmap(64, 64));
    auto* what = new QLabel("<b>commprof workbench</b><br>Measures what data-parallel training "
                            "spends on communication.",
                            this);
    what->setWordWrap(true);
    versions_ = new QLabel(this);
    versions_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close, this);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    auto* top = new QHBoxLayout;
    top->addWidget(icon, 0, Qt::AlignTop);
    top->addWidget(what, 1);
    auto* layout = new QVBoxLayout(this);
    layout->addLayout(top);
    layout->addWidget(versions_);
    layout->addWidget(buttons);
    showVersions("asking commprof-rank...");

    const QString rank = runner::defaultRankProgram();
    auto* query = new jobs::JobTracker(this);
    query->start(
        "Asking commprof-rank for its version",
        [rank](const jobs::JobContext&) { return rankLibtorchVersion(rank); },
        [this](const QString& v) {
            showVersions(v);
            emit rankVersionKnown();
        },
        [this](const QString& e) {
            showVersions("unknown: " + e);
            emit rankVersionKnown();
        });
}

void AboutDialog::showVersions(const QString& libtorch) {
    versions_->setText(QString("commprof %1<br>libtorch %2<br>Qt %3 (built with %4)")
                           .arg(QStringLiteral(COMMPROF_VERSION), libtorch.toHtmlEscaped(),
                                qVersion(), QT_VERSION_STR));
}

} // namespace commprof::workbench
