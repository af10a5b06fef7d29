// SPDX-License-Identifier: GPL-3.0-or-later
#include "user_namespace.h"

#include <QProcess>
#include <QRegularExpression>
#include <QStandardPaths>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include <fcntl.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

namespace commprof::platform {
namespace {

// Marks the line a child writes, so other output on its stderr is never taken for it.
constexpr char kMarker[] = "commprof-namespace-setup: ";
constexpr int kTrialTimeoutMs = 10000;

// Async-signal-safe: write(2) of the marker, the step and errno in decimal, then _exit.
[[noreturn]] void failStep(const char* step) {
    const int error = errno;
    char digits[16];
    int n = 0;
    int left = error < 0 ? 0 : error;
    do {
        digits[n++] = char('0' + left % 10);
        left /= 10;
    } while (left > 0 && n < int(sizeof digits));
    char line[160];
    std::size_t at = 0;
    const auto put = [&](const char* s, std::size_t len) {
        for (std::size_t i = 0; i < len && at < sizeof line - 1; ++i) {
            line[at++] = s[i];
        }
    };
    put(kMarker, sizeof kMarker - 1);
    put(step, std::strlen(step));
    put(" ", 1);
    while (n > 0 && at < sizeof line - 1) {
        line[at++] = digits[--n];
    }
    line[at++] = '\n';
    [[maybe_unused]] const ssize_t written = ::write(STDERR_FILENO, line, at);
    ::_exit(kNamespaceSetupExit);
}

// Async-signal-safe: nothing while `ok`, else failStep(step).
void require(bool ok, const char* step) {
    if (!ok) {
        failStep(step);
    }
}

// Async-signal-safe: writes all of `text` to `path`.
bool writeWhole(const char* path, const char* text) {
    const int fd = ::open(path, O_WRONLY | O_CLOEXEC);
    if (fd < 0) {
        return false;
    }
    const std::size_t len = std::strlen(text);
    const bool ok = ::write(fd, text, len) == ssize_t(len);
    ::close(fd);
    return ok;
}

QString tryOwnNamespaces() {
    const OwnNamespaceMaps maps = ownNamespaceMaps();
    const QString found = QStandardPaths::findExecutable("true");
    QProcess p;
    p.setStandardInputFile(QProcess::nullDevice());
    p.setChildProcessModifier([maps] { enterOwnNamespacesOrExit(maps); });
    p.start(found.isEmpty() ? QString("/bin/true") : found, {});
    if (!p.waitForFinished(kTrialTimeoutMs)) {
        p.kill();
        p.waitForFinished(1000);
        return QString("a trial of them did not finish: %1").arg(p.errorString());
    }
    if (p.exitStatus() == QProcess::NormalExit && p.exitCode() == 0) {
        return {};
    }
    const QByteArray err = p.readAllStandardError();
    const QString why = namespaceSetupFailure(err);
    return why.isEmpty() ? QString(err).trimmed() : why;
}

} // namespace

OwnNamespaceMaps ownNamespaceMaps() {
    OwnNamespaceMaps maps;
    std::snprintf(maps.uidMap, sizeof maps.uidMap, "0 %u 1", unsigned(::geteuid()));
    std::snprintf(maps.gidMap, sizeof maps.gidMap, "0 %u 1", unsigned(::getegid()));
    return maps;
}

void enterOwnNamespacesOrExit(const OwnNamespaceMaps& maps) {
    require(::unshare(CLONE_NEWUSER | CLONE_NEWNS | CLONE_NEWNET) == 0, "unshare");
    // An unprivileged process may map only its own ids, and its gid only once it has given up
    // setgroups(2) (user_namespaces(7)).
    require(writeWhole("/proc/self/uid_map", maps.uidMap), "uid_map");
    require(writeWhole("/proc/self/setgroups", "deny"), "setgroups");
    require(writeWhole("/proc/self/gid_map", maps.gidMap), "gid_map");
    // Nothing mounted from here on propagates back to the machine's mount namespace (a mount
    // namespace made in a user namespace gets slave mounts at most; private says so outright).
    require(::mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) == 0,
            "mount --make-rprivate /");
    require(::mount("tmpfs", "/run", "tmpfs", MS_NOSUID | MS_NODEV, "mode=0755") == 0,
            "mount tmpfs /run");
    require(::mkdir("/run/netns", 0755) == 0, "mkdir /run/netns");
}

void joinNamespacesOrExit(int userFd, int mountFd, int netFd) {
    require(::setns(userFd, CLONE_NEWUSER) == 0, "setns user");
    require(mountFd < 0 || ::setns(mountFd, CLONE_NEWNS) == 0, "setns mount");
    require(netFd < 0 || ::setns(netFd, CLONE_NEWNET) == 0, "setns net");
}

QString namespaceSetupFailure(const QByteArray& stderrText) {
    static const QRegularExpression line(QString("%1([a-z /_-]+) ([0-9]+)").arg(kMarker));
    const QRegularExpressionMatch m = line.match(QString::fromUtf8(stderrText));
    if (!m.hasMatch()) {
        return {};
    }
    return QString("%1: %2").arg(m.captured(1),
                                 QString::fromLocal8Bit(std::strerror(m.captured(2).toInt())));
}

QString userNamespaceRefusal() {
    // Thread-safe once: plan asks for every matrix, the runner for every cell.
    static const QString refusal = tryOwnNamespaces();
    return refusal;
}

} // namespace commprof::platform
