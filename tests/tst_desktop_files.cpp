// The desktop integration installs where desktops look (cmake --install, component desktop):
// an icon that renders, a desktop entry that starts the workbench with that icon, and AppStream
// metadata naming the same application. appstreamcli validates the metadata where installed.

#include "cli_runner.h"

#include <QDir>
#include <QImage>
#include <QPainter>
#include <QProcess>
#include <QSettings>
#include <QStandardPaths>
#include <QSvgRenderer>
#include <QTemporaryDir>
#include <QTest>

class TstDesktopFiles : public QObject {
    Q_OBJECT
    QTemporaryDir prefix_;

private slots:
    void initTestCase() {
        QProcess install;
        install.start("cmake", {"--install", COMMPROF_BINARY_DIR, "--component", "desktop",
                                "--prefix", prefix_.path()});
        QVERIFY(install.waitForFinished(60000));
        QVERIFY2(install.exitCode() == 0, install.readAllStandardError().constData());
    }

    void theIconRenders() {
        const QString icon =
            prefix_.filePath("share/icons/hicolor/scalable/apps/org.commprof.Workbench.svg");
        QSvgRenderer svg(icon);
        QVERIFY(svg.isValid());
        QImage image(64, 64, QImage::Format_ARGB32);
        image.fill(Qt::transparent);
        QPainter p(&image);
        svg.render(&p);
        p.end();
        QSet<QRgb> colours;
        for (int y = 0; y < 64; y += 2) {
            for (int x = 0; x < 64; x += 2) {
                colours.insert(image.pixel(x, y));
            }
        }
        QVERIFY(colours.size() > 5);
    }

    void theDesktopEntryStartsTheWorkbenchWithThatIcon() {
        QSettings entry(prefix_.filePath("share/applications/org.commprof.Workbench.desktop"),
                        QSettings::IniFormat);
        entry.beginGroup("Desktop Entry");
        QCOMPARE(entry.value("Type").toString(), QString("Application"));
        QCOMPARE(entry.value("Exec").toString(), QString("commprof-workbench"));
        QCOMPARE(entry.value("Icon").toString(), QString("org.commprof.Workbench"));
        QVERIFY(QFile::exists(QString(COMMPROF_BIN_DIR "/") + entry.value("Exec").toString()));
    }

    void theMetadataNamesTheSameApplication() {
        const QString path = prefix_.filePath("share/metainfo/org.commprof.Workbench.metainfo.xml");
        QFile f(path);
        QVERIFY(f.open(QIODevice::ReadOnly));
        const QString xml = QString::fromUtf8(f.readAll());
        QVERIFY(xml.contains("<id>org.commprof.Workbench</id>"));
        QVERIFY(xml.contains(R"(<launchable type="desktop-id">org.commprof.Workbench.desktop)"));
        const QString appstream = QStandardPaths::findExecutable("appstreamcli");
        if (appstream.isEmpty()) {
            QSKIP("appstreamcli is not installed; the file checks above still ran");
        }
        QProcess validate;
        validate.start(appstream, {"validate", "--no-net", "--pedantic", path});
        QVERIFY(validate.waitForFinished(60000));
        QVERIFY2(validate.exitCode() == 0, validate.readAllStandardOutput().constData());
    }
};

QTEST_MAIN(TstDesktopFiles)
#include "tst_desktop_files.moc"
