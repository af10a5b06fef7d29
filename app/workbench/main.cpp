// SPDX-License-Identifier: GPL-3.0-or-later
// commprof-workbench: options in workbench_options.cpp (also its man page and completions).

#include "application.h"
#include "jobs/job_tracker.h"
#include "main_window.h"
#include "matrix_designer.h"
#include "run_monitor.h"
#include "unattended.h"
#include "workbench_options.h"

#include <QCommandLineParser>
#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QFileInfo>
#include <QRegularExpression>
#include <QScreen>
#include <QSettings>
#include <QThreadPool>
#include <QTimer>

#include <cstdio>
#include <functional>
#include <map>
#include <memory>
#include <string>

namespace {

constexpr int kShotMinWaitMs = 2500;
constexpr int kShotMidRunMs = 9000;
constexpr int kShotPoints = 40;
constexpr int kShotMaxWaitMs = 600000;
// --size: far above any screen Qt would map, low enough that a window and its pictures
// (4 bytes a pixel, one per view) stay a few hundred MB and seconds.
constexpr int kMinSide = 320;
constexpr int kMaxSide = 8192;
constexpr int kUsageExit = 2;
// How long a window manager may take to frame the window: 25 looks, 20 ms apart.
constexpr int kFramePollMs = 20;
constexpr int kFramePolls = 25;

int usageError(const QString& message) {
    std::fprintf(stderr, "commprof-workbench: %s\n", qPrintable(message));
    return kUsageExit;
}

// "1366x768" as a size within the bounds; an invalid size otherwise.
QSize windowSize(const QString& text) {
    static const QRegularExpression form("^(\\d{1,6})x(\\d{1,6})$");
    const QRegularExpressionMatch m = form.match(text);
    const QSize size = m.hasMatch() ? QSize(m.captured(1).toInt(), m.captured(2).toInt()) : QSize();
    const bool within = size.width() >= kMinSide && size.width() <= kMaxSide &&
                        size.height() >= kMinSide && size.height() <= kMaxSide;
    return within ? size : QSize();
}

// --size is what a screen of that size shows: the window's frame, title bar and borders
// included. Sizing the inside put the title bar and the status bar off a 1366x768 screen. A
// window manager reports the frame's margins once it has framed the window, some turns of the
// event loop after show; then the inside is the size less them, and a frame that would run off
// the screen starts at its corner. Without a window manager (offscreen, bare X) the frame is the
// window. `done` runs once the size is settled either way.
void fitFrame(QWidget& window, QSize size, std::function<void()> done) {
    auto* timer = new QTimer(&window);
    timer->setInterval(kFramePollMs);
    QObject::connect(timer, &QTimer::timeout, &window,
                     [&window, size, timer, done, tries = 0]() mutable {
                         const QSize margins = window.frameGeometry().size() - window.size();
                         // The offscreen platform's frame is 2 px no screen shows: its
                         // pictures keep the size asked for.
                         const bool framed = (margins.width() > 0 || margins.height() > 0) &&
                                             QGuiApplication::platformName() != "offscreen";
                         if (!framed && ++tries < kFramePolls) {
                             return;
                         }
                         timer->deleteLater();
                         timer->stop();
                         if (framed) {
                             window.resize(size - margins);
                             const QRect screen = window.screen()->availableGeometry();
                             if (!screen.contains(QRect(window.pos(), size))) {
                                 window.move(screen.topLeft());
                             }
                         }
                         QTimer::singleShot(0, &window, done);
                     });
    timer->start();
}

bool busy(const commprof::workbench::MainWindow& w) {
    return w.resultsJobs()->running() || w.traceJobs()->running() ||
           w.designer()->planner()->running() || w.exportJobs()->running() ||
           w.probeJobs()->running() || w.diffJobs()->running();
}

} // namespace

int main(int argc, char** argv) {
    // Answered before a window system is needed, so they work on a machine without a display.
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        if (a == "--help" || a == "-h") {
            std::fputs(commprof::options::helpText(commprof::workbench::workbenchProgram()).c_str(),
                       stdout);
            return 0;
        }
        if (a == "--version" || a == "-v") {
            std::printf("commprof-workbench %s\n", COMMPROF_VERSION);
            return 0;
        }
    }
    commprof::workbench::Application app(argc, argv);
    QApplication::setApplicationName("commprof-workbench");
    QApplication::setApplicationVersion(COMMPROF_VERSION);
    QApplication::setDesktopFileName("org.commprof.workbench");
    QApplication::setWindowIcon(QIcon(":/commprof/commprof.svg"));
    QCommandLineParser parser;
    parser.setApplicationDescription(
        QString::fromStdString(commprof::workbench::workbenchProgram().summary));
    parser.addHelpOption();
    parser.addVersionOption();
    // Every other option comes from the table the man page is made from.
    std::map<QString, QCommandLineOption> opt;
    for (const auto& o : commprof::workbench::workbenchProgram().options) {
        const QString name = QString::fromStdString(o.flag).mid(2);
        if (name == "help" || name == "version") {
            continue;
        }
        QCommandLineOption option(name, QString::fromStdString(o.help),
                                  QString::fromStdString(o.value));
        parser.addOption(option);
        opt.emplace(name, option);
    }
    const QCommandLineOption& results = opt.at("results");
    const QCommandLineOption& traceOpt = opt.at("trace");
    const QCommandLineOption& shot = opt.at("screenshot");
    const QCommandLineOption& probeOpt = opt.at("probe");
    const QCommandLineOption& compareOpt = opt.at("compare");
    const QCommandLineOption& matrixOpt = opt.at("matrix");
    const QCommandLineOption& runOpt = opt.at("run");
    const QCommandLineOption& outputOpt = opt.at("output");
    const QCommandLineOption& selectOpt = opt.at("select");
    const QCommandLineOption& sizeOpt = opt.at("size");
    parser.process(app);

    QSize size;
    if (parser.isSet(sizeOpt) && !(size = windowSize(parser.value(sizeOpt))).isValid()) {
        return usageError(QString("--size: expected WxH, each from %1 to %2, got '%3'")
                              .arg(kMinSide)
                              .arg(kMaxSide)
                              .arg(parser.value(sizeOpt)));
    }
    // Said before anything loads, not after it has all been waited for.
    std::unique_ptr<commprof::workbench::UnattendedDialogs> unattended;
    if (parser.isSet(shot)) {
        const QString out = parser.value(shot);
        if (QFileInfo(out).exists() && !QFileInfo(out).isDir()) {
            return usageError(QString("--screenshot %1: exists and is not a folder").arg(out));
        }
        if (!QDir().mkpath(out)) {
            return usageError(QString("--screenshot %1: cannot create the folder").arg(out));
        }
        unattended = std::make_unique<commprof::workbench::UnattendedDialogs>();
    }

    commprof::workbench::MainWindow window;
    app.setErrorSink([&window](const QString& e) { window.reportError("Unexpected error", e); });
    if (size.isValid()) {
        window.resize(size);
    } else if (QSettings("commprof", "workbench").value("geometry").isNull()) {
        const QRect screen = QGuiApplication::primaryScreen()->availableGeometry();
        window.resize(screen.size() * 0.92);
    }
    if (parser.isSet(matrixOpt)) {
        window.openMatrix(parser.value(matrixOpt));
    } else if (!parser.isSet(results)) {
        // The default matrix: the project's file when run from the project, else the copy
        // built into the program (untitled, so Save asks where).
        const QString smoke = "configs/experiments/smoke.yaml";
        if (QFile::exists(smoke)) {
            window.openMatrix(smoke);
        } else {
            QFile embedded(":/commprof/default_matrix.yaml");
            if (embedded.open(QIODevice::ReadOnly)) {
                window.designer()->setText(QString::fromUtf8(embedded.readAll()), {});
            }
        }
    }
    if (parser.isSet(results)) {
        window.openResults(parser.value(results));
    }
    if (parser.isSet(traceOpt)) {
        window.openTrace(parser.value(traceOpt));
    }
    if (parser.isSet(outputOpt)) {
        window.setRunOutput(parser.value(outputOpt));
    }
    if (parser.isSet(probeOpt)) {
        window.runProbe();
    }
    if (parser.isSet(compareOpt)) {
        const QStringList dirs = parser.value(compareOpt).split(',');
        if (dirs.size() == 2) {
            window.compareRuns(dirs[0], dirs[1]);
        }
    }
    if (parser.isSet(runOpt)) {
        // After the first plan of the matrix has arrived.
        QObject::connect(
            window.designer(), &commprof::widgets::MatrixDesigner::planChanged, &window,
            [&window] { window.startRun(); }, Qt::SingleShotConnection);
    }
    if (parser.isSet(selectOpt)) {
        QObject::connect(&window, &commprof::workbench::MainWindow::resultsOpened, &window,
                         [&window, id = parser.value(selectOpt)] { window.selectResultsCell(id); });
    }
    window.show();
    if (size.isValid()) {
        // A size under the smallest the window's contents allow cannot be had (the layout
        // holds the window at that smallest as it is shown): said, with the size it is.
        fitFrame(window, size, [&window, size] {
            const QSize frame = QGuiApplication::platformName() == "offscreen"
                                    ? window.size()
                                    : window.frameGeometry().size();
            if (frame != size) {
                std::fprintf(stderr,
                             "commprof-workbench: --size %dx%d is smaller than the window's "
                             "contents allow; the window is %dx%d\n",
                             size.width(), size.height(), frame.width(), frame.height());
            }
        });
    }
    if (parser.isSet(shot)) {
        // Pictures once everything asked for is loaded (or mid-run, for the run monitor).
        auto* clock = new QElapsedTimer;
        clock->start();
        auto* poll = new QTimer(&window);
        const bool midRun = parser.isSet(runOpt);
        QObject::connect(poll, &QTimer::timeout, &window, [&, clock, poll, midRun] {
            const qint64 t = clock->elapsed();
            // Mid-run: once the live plot has a few iterations' buckets to show.
            const bool ready =
                midRun ? t > kShotMidRunMs && (window.monitor()->plottedPoints() >= kShotPoints ||
                                               !window.monitor()->running())
                       : t > kShotMinWaitMs && !busy(window);
            if (!ready && t < kShotMaxWaitMs) {
                return;
            }
            poll->stop();
            QTimer::singleShot(500, &window, [&window, out = parser.value(shot)] {
                if (window.saveScreenshots(out)) {
                    QApplication::exit(0);
                    return;
                }
                std::fprintf(stderr,
                             "commprof-workbench: --screenshot %s: a picture could not "
                             "be written there\n",
                             qPrintable(out));
                QApplication::exit(1);
            });
        });
        poll->start(200);
    }
    // A dialog refused before the loop began (a results folder that is not one) ends it now.
    const int code = unattended && unattended->refused()
                         ? commprof::workbench::UnattendedDialogs::kExitCode
                         : QApplication::exec();
    // Jobs still at work (a probe forming ranks) finish while the application object they
    // rely on is alive; their results go nowhere.
    QThreadPool::globalInstance()->waitForDone();
    return code;
}
