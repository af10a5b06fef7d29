// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Gzip for trace tests: reading a fixture's text back, and writing gzip files (bombs
// included) with zlib, independently of the parser's own ISA-L reader.

#include <QByteArray>
#include <QFile>
#include <QString>

#include <zlib.h>

inline QByteArray gunzip(const QString& path) {
    gzFile in = gzopen(path.toLocal8Bit().constData(), "rb");
    QByteArray out;
    if (!in) {
        return out; // a missing fixture reads as empty, and the test's own check says so
    }
    char buf[1 << 16];
    int got = 0;
    while ((got = gzread(in, buf, sizeof buf)) > 0) {
        out.append(buf, got);
    }
    gzclose(in);
    return out;
}

// One gzip member holding `head` followed by `bytes` copies of `fill`.
inline QByteArray gzipMember(const QByteArray& head, char fill, qint64 bytes) {
    z_stream z{};
    deflateInit2(&z, 9, Z_DEFLATED, 31, 9, Z_DEFAULT_STRATEGY);
    QByteArray out;
    const QByteArray block(1 << 20, fill);
    char buf[1 << 16];
    auto pump = [&](const QByteArray& in, int flush) {
        z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.constData()));
        z.avail_in = uInt(in.size());
        do {
            z.next_out = reinterpret_cast<Bytef*>(buf);
            z.avail_out = sizeof buf;
            deflate(&z, flush);
            out.append(buf, int(sizeof buf - z.avail_out));
        } while (z.avail_out == 0);
    };
    pump(head, Z_NO_FLUSH);
    for (qint64 done = 0; done < bytes; done += block.size()) {
        pump(block, Z_NO_FLUSH);
    }
    pump({}, Z_FINISH);
    deflateEnd(&z);
    return out;
}

// A gzip file of `members` members of 64 MiB of `fill` each (the first after `head`): gzip
// readers decompress them back to back, so 20 MB of file can stand for 20 GiB of text.
inline void writeGzipBomb(const QString& path, const QByteArray& head, char fill, int members) {
    const QByteArray first = gzipMember(head, fill, 64 << 20);
    const QByteArray rest = gzipMember({}, fill, 64 << 20);
    QFile f(path);
    f.open(QIODevice::WriteOnly);
    f.write(first);
    for (int i = 1; i < members; ++i) {
        f.write(rest);
    }
}
