// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// File access for everything commprof reads from or writes into a results folder (and the
// inputs it is handed): a planted symbolic link is refused, never followed; only regular files
// of bounded size are read, so a device, a FIFO or a huge file cannot hang or exhaust memory;
// and every write is checked down to fsync and close before it is renamed into place, so a
// full disk is reported instead of leaving an empty file behind.

#include <QByteArray>
#include <QString>

#include <stdexcept>

namespace commprof::files {

// what() is "PATH: detail".
struct FileError : std::runtime_error {
    FileError(const QString& path, const QString& detail);
    QString path;
    QString detail;
};

enum class Links { Follow, Refuse };

// Reads PATH whole. It must be a regular file of at most maxBytes (files in /proc, which report
// size 0, are read up to the limit). `raise` says how to lift the limit, for the message.
// Throws FileError naming the path.
QByteArray readRegularFile(const QString& path, qint64 maxBytes, Links links,
                           const QString& raise = {});
// The same, empty where readRegularFile throws: for files whose absence is an answer (a process
// that has ended, a record that is not there).
QByteArray readRegularFileOrEmpty(const QString& path, qint64 maxBytes, Links links);

// Opens PATH for reading, non-blocking (a FIFO never waits for a writer), and returns its file
// descriptor, which the caller closes. Throws FileError unless it is a regular file (or, with
// Links::Refuse, when it is a symbolic link).
int openRegularFile(const QString& path, Links links);

// Writes PATH atomically: a fresh temporary file beside it (never following a link), every
// write, fsync and close checked, then renamed over PATH (a link at PATH is replaced, not
// followed). Returns an empty string on success, else "PATH: reason".
QString writeAtomically(const QString& path, const QByteArray& bytes);

// Appends to PATH, creating it; a link at PATH is refused. Empty on success, else the reason.
QString appendTo(const QString& path, const QByteArray& bytes);

// Creates DIR and its missing parents as real directories. An existing component at or below
// `inside` that is a symbolic link is refused. Empty on success, else the reason.
QString makeDirs(const QString& dir, const QString& inside = {});

// True when PATH itself is a symbolic link (dangling or not).
bool isLink(const QString& path);
// "PATH: a symbolic link; ..." saying that commprof refuses it.
QString linkRefused(const QString& path);

// A size or count limit: the environment variable NAME when it holds a positive integer,
// else `fallback`.
qint64 limitFromEnv(const char* name, qint64 fallback);

} // namespace commprof::files
