// commprof-workbench [--results DIR] [--trace FILE] [--screenshot OUTDIR]

#include "main_window.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QTimer>

int main(int argc, char** argv) {
    QApplication app(argc, argv);
    QApplication::setApplicationName("commprof-workbench");
    QCommandLineParser parser;
    parser.setApplicationDescription(
        "Measure what data-parallel training spends on communication.");
    parser.addHelpOption();
    const QCommandLineOption results("results", "Open a results directory.", "DIR");
    const QCommandLineOption traceOpt("trace", "Open a Chrome trace.", "FILE");
    const QCommandLineOption shot("screenshot", "Render each main view to OUTDIR/*.png and exit.",
                                  "OUTDIR");
    const QCommandLineOption probeOpt("probe", "Run the environment probe at start.");
    const QCommandLineOption compareOpt("compare", "Compare two fingerprinted runs: A,B.", "A,B");
    const QCommandLineOption matrixOpt("matrix", "Open an experiment matrix in the designer.",
                                       "YAML");
    const QCommandLineOption runOpt(
        "run", "Start running the matrix at once (into --results, or results/<matrix name>).");
    const QCommandLineOption selectOpt("select", "Select a cell of the results.", "CELL_ID");
    parser.addOptions(
        {results, traceOpt, shot, probeOpt, compareOpt, matrixOpt, runOpt, selectOpt});
    parser.process(app);

    commprof::workbench::MainWindow window;
    window.resize(1280, 800);
    if (parser.isSet(results)) {
        window.openResults(parser.value(results));
    }
    if (parser.isSet(traceOpt)) {
        window.openTrace(parser.value(traceOpt));
    }
    window.openMatrix(parser.isSet(matrixOpt) ? parser.value(matrixOpt)
                                              : QString("configs/experiments/smoke.yaml"));
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
        window.startRun();
    }
    if (parser.isSet(selectOpt)) {
        QTimer::singleShot(3000, &window,
                           [&] { window.selectResultsCell(parser.value(selectOpt)); });
    }
    if (parser.isSet(shot)) {
        window.show();
        const int wait = parser.isSet(runOpt) ? 9000 : parser.isSet(probeOpt) ? 6000 : 4500;
        QTimer::singleShot(wait, &window, [&] {
            const bool ok = window.saveScreenshots(parser.value(shot));
            QApplication::exit(ok ? 0 : 1);
        });
        return QApplication::exec();
    }
    window.show();
    return QApplication::exec();
}
