// SPDX-License-Identifier: GPL-3.0-or-later
// The matrix and rank-file fuzzers' corpora (tests/data/fuzz_matrix, tests/data/fuzz_rank_file),
// replayed on every run through the code the fuzzers drive (tests/fuzz/*_input.h): each input
// is accepted, or refused with a reason; an abort, a NaN or a broken promise ends the test.

#include "fuzz/matrix_input.h"
#include "fuzz/rank_file_input.h"

#include <QDir>
#include <QFile>
#include <QTest>

namespace {

// (accepted, refused) over every file of the corpus.
template <typename Exercise> QPair<int, int> replay(const QString& corpus, Exercise exercise) {
    int accepted = 0;
    int refused = 0;
    const QDir dir(corpus);
    for (const QString& name : dir.entryList(QDir::Files)) {
        QFile f(dir.filePath(name));
        if (!f.open(QIODevice::ReadOnly)) {
            continue;
        }
        const QByteArray bytes = f.readAll();
        (exercise(bytes.constData(), std::size_t(bytes.size())) ? accepted : refused)++;
    }
    return {accepted, refused};
}

} // namespace

class TstFuzzCorpora : public QObject {
    Q_OBJECT
private slots:
    // Each corpus must still hold inputs of both kinds: enough accepted to reach the deep
    // paths, enough refused to reach every error branch.
    void corpusReplays_data() {
        QTest::addColumn<QString>("corpus");
        QTest::newRow("matrix") << "fuzz_matrix";
        QTest::newRow("rank-file") << "fuzz_rank_file";
    }
    void corpusReplays() {
        QFETCH(QString, corpus);
        const auto exercise = corpus == "fuzz_matrix" ? commprof::fuzz::exerciseMatrix
                                                      : commprof::fuzz::exerciseRankFile;
        const auto [accepted, refused] = replay(COMMPROF_TEST_DATA "/" + corpus, exercise);
        qInfo("%s corpus: %d accepted, %d refused", QTest::currentDataTag(), accepted, refused);
        QVERIFY(accepted >= 5);
        QVERIFY(refused >= 20);
    }
};

QTEST_GUILESS_MAIN(TstFuzzCorpora)
#include "tst_fuzz_corpora.moc"
