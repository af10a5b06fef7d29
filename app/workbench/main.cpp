// SPDX-License-Identifier: GPL-3.0-or-later
// commprof-workbench: options in workbench_options.cpp (also its man page and completions).

#include "application.h"
#include "jobs/job_tracker.h"
#include "main_window.h"
#include "matrix_designer.h"
#include "models/run_controller.h"
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
#include <memory>
#include <optional>
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
// included. A window manager reports the frame's margins once it has framed the window, some
// turns of the event loop after show; then the inside is the size less them, and a frame that
// would run off the screen starts at its corner. Without a window manager (offscreen, bare X)
// the frame is the window. A size under the smallest the window's contents allow cannot be had
// (the layout holds the window at that smallest as it is shown): said, with the size it is.
void fitShownWindow(QWidget& window, QSize size) {
    auto* timer = new QTimer(&window);
    timer->setInterval(kFramePollMs);
    QObject::connect(timer, &QTimer::timeout, &window, [&window, size, timer, tries = 0]() mutable {
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
        QTimer::singleShot(0, &window, [&window, size] {
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
    });
    timer->start();
}

bool busy(const commprof::workbench::MainWindow& w) {
    return w.resultsJobs()->running() || w.traceJobs()->running() ||
           w.designer()->planner()->running() || w.exportJobs()->running() ||
           w.probeJobs()->running() || w.diffJobs()->running();
}

// --help and --version, answered before a window system is needed, so they work on a machine
// without a display; nullopt when the line asks for neither.
std::optional<int> answerWithoutDisplay(int argc, char** argv) {
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
    return std::nullopt;
}

// The names a desktop, its dock and QSettings know the program by.
void nameApplication() {
    QApplication::setApplicationName("commprof-workbench");
    QApplication::setApplicationVersion(COMMPROF_VERSION);
    QApplication::setDesktopFileName("org.commprof.workbench");
    QApplication::setWindowIcon(QIcon(":/commprof/commprof.svg"));
}

// Every option but --help and --version comes from the table the man page is made from; the
// parser then answers by name ("results", "size", ...). Exits on a flag it does not know.
void readFlags(QCommandLineParser& parser, const QApplication& app) {
    parser.setApplicationDescription(
        QString::fromStdString(commprof::workbench::workbenchProgram().summary));
    parser.addHelpOption();
    parser.addVersionOption();
    for (const auto& o : commprof::workbench::workbenchProgram().options) {
        const QString name = QString::fromStdString(o.flag).mid(2);
        if (name == "help" || name == "version") {
            continue;
        }
        parser.addOption(QCommandLineOption(name, QString::fromStdString(o.help),
                                            QString::fromStdString(o.value)));
    }
    parser.process(app);
}

// --screenshot's folder, made now: said before anything loads, not after it has all been waited
// for. An empty string when it can be written to, else the usage error.
QString prepareScreenshotFolder(const QString& out) {
    if (QFileInfo(out).exists() && !QFileInfo(out).isDir()) {
        return QString("--screenshot %1: exists and is not a folder").arg(out);
    }
    if (!QDir().mkpath(out)) {
        return QString("--screenshot %1: cannot create the folder").arg(out);
    }
    return {};
}

// --size, else the geometry the last session saved, else most of the screen.
void sizeWindow(QWidget& window, QSize size) {
    if (size.isValid()) {
        window.resize(size);
    } else if (QSettings("commprof", "workbench").value("geometry").isNull()) {
        const QRect screen = QGuiApplication::primaryScreen()->availableGeometry();
        window.resize(screen.size() * 0.92);
    }
}

// The matrix the designer starts with: --matrix; else, unless results are opened instead, the
// project's file when run from the project, else the copy built into the program (untitled, so
// Save asks where).
void openStartMatrix(commprof::workbench::MainWindow& window, const QCommandLineParser& flags) {
    if (flags.isSet("matrix")) {
        window.openMatrix(flags.value("matrix"));
        return;
    }
    if (flags.isSet("results")) {
        return;
    }
    const QString smoke = "configs/experiments/smoke.yaml";
    if (QFile::exists(smoke)) {
        window.openMatrix(smoke);
        return;
    }
    QFile embedded(":/commprof/default_matrix.yaml");
    if (embedded.open(QIODevice::ReadOnly)) {
        window.designer()->setText(QString::fromUtf8(embedded.readAll()), {});
    }
}

// What the line asks the window to open or start, in the order the views depend on.
void openRequested(commprof::workbench::MainWindow& window, const QCommandLineParser& flags) {
    openStartMatrix(window, flags);
    if (flags.isSet("results")) {
        window.openResults(flags.value("results"));
    }
    if (flags.isSet("trace")) {
        window.openTrace(flags.value("trace"));
    }
    if (flags.isSet("output")) {
        window.setRunOutput(flags.value("output"));
    }
    if (flags.isSet("probe")) {
        window.runProbe();
    }
    if (flags.isSet("compare")) {
        const QStringList dirs = flags.value("compare").split(',');
        if (dirs.size() == 2) {
            window.compareRuns(dirs[0], dirs[1]);
        }
    }
    if (flags.isSet("run")) {
        // After the first plan of the matrix has arrived.
        QObject::connect(
            window.designer(), &commprof::widgets::MatrixDesigner::planChanged, &window,
            [&window] { window.startRun(); }, Qt::SingleShotConnection);
    }
    if (flags.isSet("select")) {
        QObject::connect(&window, &commprof::workbench::MainWindow::resultsOpened, &window,
                         [&window, id = flags.value("select")] { window.selectResultsCell(id); });
    }
}

// Pictures into `out` once everything asked for is loaded, or mid-run (for the run monitor)
// once the live plot has a few iterations' buckets to show; then the application exits.
void screenshotWhenReady(commprof::workbench::MainWindow& window, const QString& out, bool midRun) {
    auto* clock = new QElapsedTimer;
    clock->start();
    auto* poll = new QTimer(&window);
    QObject::connect(poll, &QTimer::timeout, &window, [&window, out, clock, poll, midRun] {
        const qint64 t = clock->elapsed();
        const bool ready =
            midRun ? t > kShotMidRunMs && (window.monitor()->plottedPoints() >= kShotPoints ||
                                           !window.monitor()->controller()->running())
                   : t > kShotMinWaitMs && !busy(window);
        if (!ready && t < kShotMaxWaitMs) {
            return;
        }
        poll->stop();
        QTimer::singleShot(500, &window, [&window, out] {
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

} // namespace

int main(int argc, char** argv) {
    if (const std::optional<int> answered = answerWithoutDisplay(argc, argv)) {
        return *answered;
    }
    commprof::workbench::Application app(argc, argv);
    nameApplication();
    QCommandLineParser flags;
    readFlags(flags, app);

    QSize size;
    if (flags.isSet("size") && !(size = windowSize(flags.value("size"))).isValid()) {
        return usageError(QString("--size: expected WxH, each from %1 to %2, got '%3'")
                              .arg(kMinSide)
                              .arg(kMaxSide)
                              .arg(flags.value("size")));
    }
    std::unique_ptr<commprof::workbench::UnattendedDialogs> unattended;
    if (flags.isSet("screenshot")) {
        if (const QString e = prepareScreenshotFolder(flags.value("screenshot")); !e.isEmpty()) {
            return usageError(e);
        }
        unattended = std::make_unique<commprof::workbench::UnattendedDialogs>();
    }

    commprof::workbench::MainWindow window;
    app.setErrorSink([&window](const QString& e) { window.reportError("Unexpected error", e); });
    sizeWindow(window, size);
    openRequested(window, flags);
    window.show();
    if (size.isValid()) {
        fitShownWindow(window, size);
    }
    if (flags.isSet("screenshot")) {
        screenshotWhenReady(window, flags.value("screenshot"), flags.isSet("run"));
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
