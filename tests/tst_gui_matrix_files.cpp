// SPDX-License-Identifier: GPL-3.0-or-later
// Journey: edit a matrix, save it, open it again: the same text. The window marks unsaved
// edits in its title, Ctrl+S saves, Save As moves the matrix to a new file, and a matrix that
// cannot be read is said so.

#include "code_editor.h"
#include "gui_helpers.h"
#include "main_window.h"
#include "matrix_designer.h"
#include "message_bar.h"

#include <QFile>
#include <QFileDialog>
#include <QPlainTextEdit>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>

using namespace commprof;

class TstGuiMatrixFiles : public QObject {
    Q_OBJECT
    QTemporaryDir work_;

private slots:
    void initTestCase() { isolateSettings(); }

    void editSaveReopenGivesTheSameText() {
        const QString path = work_.filePath("mine.yaml");
        QVERIFY(QFile::copy(COMMPROF_SOURCE_DIR "/configs/experiments/smoke.yaml", path));
        QFile::setPermissions(path, QFile::ReadOwner | QFile::WriteOwner);
        QString typed;
        {
            workbench::MainWindow w;
            w.show();
            w.activateWindow();
            QVERIFY(QTest::qWaitForWindowActive(&w)); // shortcuts go to the active window
            QVERIFY(w.openMatrix(path));
            QVERIFY(!w.isWindowModified());
            QVERIFY(w.windowTitle().startsWith("mine.yaml"));
            // Typed as a user types: at the end of the text.
            QPlainTextEdit* editor = w.designer()->editor();
            editor->setFocus();
            editor->moveCursor(QTextCursor::End);
            QTest::keyClicks(editor, "# tuned by hand");
            QTest::keyClick(editor, Qt::Key_Return);
            QVERIFY(w.isWindowModified());
            typed = editor->toPlainText();
            QVERIFY(typed.endsWith("# tuned by hand\n"));
            QCOMPARE(readFile(path),
                     readFile(COMMPROF_SOURCE_DIR "/configs/experiments/smoke.yaml"));
            QTest::keySequence(&w, QKeySequence::Save); // Ctrl+S, through the menu's action
            QVERIFY(!w.isWindowModified());
            QCOMPARE(readFile(path), typed);
        }
        workbench::MainWindow again;
        QVERIFY(again.openMatrix(path));
        QCOMPARE(again.designer()->editor()->toPlainText(), typed);
        QVERIFY(!again.isWindowModified());
    }

    void saveAsMovesTheMatrixToTheNewFile() {
        workbench::MainWindow w;
        QVERIFY(w.openMatrix(COMMPROF_SOURCE_DIR "/configs/experiments/smoke.yaml"));
        w.designer()->editor()->appendPlainText("# variant");
        const QString target = work_.filePath("variant.yaml");
        QVERIFY(w.saveMatrixAs(target));
        QCOMPARE(w.designer()->fileName(), target);
        QCOMPARE(readFile(target), w.designer()->editor()->toPlainText());
        QVERIFY(w.windowTitle().startsWith("variant.yaml"));
        // The project's file was not touched.
        QVERIFY(
            !readFile(COMMPROF_SOURCE_DIR "/configs/experiments/smoke.yaml").contains("variant"));
    }

    void aMissingMatrixIsSaidSo() {
        workbench::MainWindow w;
        const QString missing = work_.filePath("no_such.yaml");
        QVERIFY(!w.openMatrix(missing));
        QCOMPARE(w.messages()->count(), 1);
        QVERIFY2(w.messages()->shownMessages().first().contains(missing),
                 qPrintable(w.messages()->shownMessages().first()));
    }

    void aFileThatCannotBeWrittenIsSaidSoAndStaysModified() {
        workbench::MainWindow w;
        QVERIFY(w.openMatrix(COMMPROF_SOURCE_DIR "/configs/experiments/smoke.yaml"));
        w.designer()->editor()->appendPlainText("# x");
        QVERIFY(!w.saveMatrixAs(work_.filePath("no/such/folder/x.yaml")));
        QVERIFY(w.isWindowModified());
        QVERIFY(w.messages()->shownMessages().first().contains("cannot save"));
    }
};

QTEST_MAIN(TstGuiMatrixFiles)
#include "tst_gui_matrix_files.moc"
