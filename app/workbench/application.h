// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The workbench's application object: the last line of defence for "no input may end the
// process". An exception that escapes a slot or an event handler is caught here and shown,
// instead of terminating the program.

#include <QApplication>

#include <cstdio>
#include <functional>

namespace commprof::workbench {

class Application : public QApplication {
    Q_OBJECT
public:
    using QApplication::QApplication;
    bool notify(QObject* receiver, QEvent* event) override {
        QString error;
        try {
            return QApplication::notify(receiver, event);
        } catch (const std::exception& e) {
            error = QString::fromUtf8(e.what());
        } catch (...) {
            error = "unknown error";
        }
        std::fprintf(stderr, "commprof-workbench: unexpected error: %s\n", qPrintable(error));
        if (sink_) {
            sink_(error);
        }
        return false;
    }
    void setErrorSink(std::function<void(const QString&)> sink) { sink_ = std::move(sink); }

private:
    std::function<void(const QString&)> sink_;
};

} // namespace commprof::workbench
