// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// What the GUI journey tests share: settings kept out of the user's, a real smoke run to open,
// and answering the modal dialogs the window asks.

#include "cli_runner.h"

#include <QAbstractButton>
#include <QApplication>
#include <QDir>
#include <QFile>
#include <QImage>
#include <QRect>
#include <QMessageBox>
#include <QSettings>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTimer>

// Settings in a folder of this process's own, emptied: no layout or recent list from elsewhere,
// and none shared with a suite running beside this one (Qt's test mode alone gives every suite
// the same ~/.qttest).
// Pixels of exactly COLOUR in IMAGE, within AREA where one is given (a plot's or a lane's).
inline int pixelsOf(const QImage& image, QColor colour, QRect area = {}) {
    const QImage rgb = image.convertToFormat(QImage::Format_RGB32);
    const QRect box = area.isNull() ? rgb.rect() : area.intersected(rgb.rect());
    const QRgb want = colour.rgb() & 0xffffff;
    int n = 0;
    for (int y = box.top(); y <= box.bottom(); ++y) {
        const auto* line = reinterpret_cast<const QRgb*>(rgb.constScanLine(y));
        for (int x = box.left(); x <= box.right(); ++x) {
            n += (line[x] & 0xffffff) == want;
        }
    }
    return n;
}

inline void isolateSettings() {
    static const QTemporaryDir own;
    QStandardPaths::setTestModeEnabled(true);
    QSettings::setPath(QSettings::NativeFormat, QSettings::UserScope, own.path());
    QSettings::setPath(QSettings::IniFormat, QSettings::UserScope, own.path());
    QSettings("commprof", "workbench").clear();
}

inline QString readFile(const QString& path) {
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? QString::fromUtf8(f.readAll()) : QString();
}

inline bool writeFile(const QString& path, const QByteArray& bytes) {
    QFile f(path);
    return f.open(QIODevice::WriteOnly) && f.write(bytes) == bytes.size();
}

// Runs `commprof run smoke.yaml --out DIR` for real. Returns the error, or empty.
inline QString runSmoke(const QString& dir) {
    const CliResult r = runCli(
        "commprof", {"run", COMMPROF_SOURCE_DIR "/configs/experiments/smoke.yaml", "--out", dir});
    return r.exitCode == 0 ? QString() : QString::fromUtf8(r.err);
}

// A real smoke run in a temporary folder, made once per suite (initTestCase calls make()).
struct SmokeRun {
    QTemporaryDir work;
    QString dir;
    QString make() {
        isolateSettings();
        dir = QDir(work.path()).filePath("smoke");
        return runSmoke(dir);
    }
};

// Answers the next modal message box within timeoutMs: records its text, presses a button.
class DialogAnswer : public QObject {
public:
    explicit DialogAnswer(QMessageBox::StandardButton button, int timeoutMs = 20000)
        : button_(button) {
        timer_.setInterval(20);
        QObject::connect(&timer_, &QTimer::timeout, this, [this, timeoutMs] {
            waited_ += 20;
            auto* box = qobject_cast<QMessageBox*>(QApplication::activeModalWidget());
            if (box) {
                text_ = box->text() + "\n" + box->informativeText();
                timer_.stop();
                if (QAbstractButton* b = box->button(button_)) {
                    b->click();
                } else {
                    box->reject();
                }
            } else if (waited_ > timeoutMs) {
                timer_.stop();
            }
        });
        timer_.start();
    }
    bool seen() const { return !text_.isNull(); }
    QString text() const { return text_; }

private:
    QMessageBox::StandardButton button_;
    QTimer timer_;
    QString text_;
    int waited_ = 0;
};
