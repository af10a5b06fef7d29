// SPDX-License-Identifier: GPL-3.0-or-later
// Rank 0's rendezvous store under abuse: a client written here from the protocol's description
// (app/rank/store_protocol.h) talks to a real commprof-rank, then a real second rank must
// still complete the cell. Frames: u32 little-endian length, then the body; a field is a u32
// length and its bytes; replies start with a status byte ('K' done, 'T' timed out, 'E' refused).

#include "rank_files.h"
#include "runner/rank_pool.h"

#include <QElapsedTimer>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>
#include <QThread>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include <memory>

using commprof::runner::RankPool;

namespace {

QByteArray u32(quint32 v) {
    QByteArray out;
    for (int i = 0; i < 4; ++i) {
        out += char((v >> (8 * i)) & 0xff);
    }
    return out;
}
QByteArray field(const QByteArray& bytes) {
    return u32(quint32(bytes.size())) + bytes;
}
QByteArray framed(const QByteArray& body) {
    return u32(quint32(body.size())) + body;
}
QByteArray hello(const QByteArray& token) {
    return framed("h" + field(token));
}
QByteArray setRequest(const QByteArray& key, const QByteArray& value) {
    return framed("s" + field(key) + field(value));
}
QByteArray waitRequest(char op, quint32 timeoutMs, const QList<QByteArray>& keys) {
    QByteArray body(1, op);
    body += u32(timeoutMs) + u32(quint32(keys.size()));
    for (const auto& k : keys) {
        body += field(k);
    }
    return framed(body);
}

// A plain TCP client to 127.0.0.1:port.
class RawClient {
public:
    explicit RawClient(int port) {
        fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
        sockaddr_in a{};
        a.sin_family = AF_INET;
        a.sin_port = htons(quint16(port));
        a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        if (::connect(fd_, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) {
            ::close(fd_);
            fd_ = -1;
        }
    }
    ~RawClient() {
        if (fd_ >= 0) {
            ::close(fd_);
        }
    }
    RawClient(const RawClient&) = delete;
    RawClient& operator=(const RawClient&) = delete;
    bool connected() const { return fd_ >= 0; }
    bool send(const QByteArray& bytes) {
        return ::send(fd_, bytes.data(), std::size_t(bytes.size()), MSG_NOSIGNAL) ==
               ssize_t(bytes.size());
    }
    // One reply body; empty with `closed` set when the server closed the connection, empty
    // with `closed` unset when nothing came within the time.
    QByteArray reply(int timeoutMs, bool* closed = nullptr) {
        QByteArray& in = received_;
        QElapsedTimer t;
        t.start();
        if (closed) {
            *closed = false;
        }
        while (t.elapsed() < timeoutMs) {
            if (in.size() >= 4) {
                const quint32 n = quint32(quint8(in[0])) | quint32(quint8(in[1])) << 8 |
                                  quint32(quint8(in[2])) << 16 | quint32(quint8(in[3])) << 24;
                if (quint32(in.size()) - 4 >= n) {
                    QByteArray body = in.mid(4, int(n));
                    in.remove(0, int(n) + 4);
                    return body;
                }
            }
            pollfd p{fd_, POLLIN, 0};
            if (::poll(&p, 1, 50) <= 0) {
                continue;
            }
            char buf[4096];
            const ssize_t got = ::recv(fd_, buf, sizeof buf, 0);
            if (got <= 0) {
                if (closed) {
                    *closed = true;
                }
                return {};
            }
            in.append(buf, int(got));
        }
        return {};
    }
    // True when the server closes the connection within the time, with no reply before.
    bool closedWithoutReply(int timeoutMs) {
        bool closed = false;
        const QByteArray r = reply(timeoutMs, &closed);
        return closed && r.isEmpty();
    }

private:
    int fd_ = -1;
    QByteArray received_; // bytes past the last reply returned
};

qint64 procStatus(qint64 pid, const QByteArray& key) {
    QFile f(QString("/proc/%1/status").arg(pid));
    if (!f.open(QIODevice::ReadOnly)) {
        return -1;
    }
    for (const QByteArray& line : f.readAll().split('\n')) {
        if (line.startsWith(key + ":")) {
            return line.mid(key.size() + 1).simplified().split(' ').value(0).toLongLong();
        }
    }
    return -1;
}

qint64 openFiles(qint64 pid) {
    return QDir(QString("/proc/%1/fd").arg(pid))
        .entryList(QDir::NoDotAndDotDot | QDir::AllEntries | QDir::System)
        .size();
}

const QString kToken = "3f9c0b1e7a5d4c2e8b6f0a1d3c5e7f90";

// A two-rank cell on a free loopback port: rank 0 first, the abuse, then rank 1.
class Cell {
public:
    Cell(const QString& dir, const QString& token0, const QString& token1)
        : dir_(dir), port_(RankPool::freeLoopbackPort()), tokens_{token0, token1} {}
    // Both ranks with the token, or both without one.
    Cell(const QString& dir, bool withToken)
        : Cell(dir, withToken ? kToken : QString(), withToken ? kToken : QString()) {}
    ~Cell() {
        for (auto& p : ranks_) {
            if (p && p->state() != QProcess::NotRunning) {
                p->kill();
                p->waitForFinished(5000);
            }
        }
    }
    int port() const { return port_; }
    QProcess& rank(int r) { return *ranks_[std::size_t(r)]; }

    bool start(int r) {
        auto p = std::make_unique<QProcess>();
        p->setProcessEnvironment(rankEnvironment(r, 2, port_, tokens_[r]));
        p->start(rankBinary(), {"--params", "4e5", "--iterations", "3", "--warmup", "1",
                                "--batch-size", "8", "--threads", "1", "--out", dir_,
                                "--rendezvous-timeout-s", "20", "--collective-timeout-s", "20"});
        const bool ok = p->waitForStarted(10000);
        ranks_[std::size_t(r)] = std::move(p);
        return ok;
    }

    // Rank 0 started and its store accepting connections.
    bool startServing() {
        if (!start(0)) {
            return false;
        }
        QElapsedTimer t;
        t.start();
        while (t.elapsed() < 20000) {
            if (RawClient(port_).connected()) {
                return true;
            }
            if (rank(0).state() == QProcess::NotRunning) {
                return false;
            }
            QThread::msleep(20);
        }
        return false;
    }

    // A connection to the store that has said hello with rank 0's token, if it has one.
    std::unique_ptr<RawClient> client() {
        auto c = std::make_unique<RawClient>(port_);
        if (!tokens_[0].isNull() &&
            !(c->send(hello(tokens_[0].toLatin1())) && c->reply(5000) == "K")) {
            return nullptr;
        }
        return c;
    }

    // Starts rank 1; then as finish().
    QString completeWithRank1(int limitMs = 90000) {
        return start(1) ? finish(limitMs) : QString("rank 1 did not start");
    }

    // Both ranks exit 0 and wrote their files within the limit; the reason otherwise.
    QString finish(int limitMs = 90000) {
        QString problems;
        QElapsedTimer t;
        t.start();
        for (int r = 0; r < 2; ++r) {
            QProcess& p = rank(r);
            const int left = int(std::max<qint64>(1, limitMs - t.elapsed()));
            if (!p.waitForFinished(left) && p.state() != QProcess::NotRunning) {
                problems += QString("rank %1 still running after %2 ms\n").arg(r).arg(limitMs);
                p.kill();
                p.waitForFinished(5000);
            }
            if (p.exitStatus() != QProcess::NormalExit || p.exitCode() != 0) {
                problems += QString("rank %1: %2 exit %3: %4\n")
                                .arg(r)
                                .arg(p.exitStatus() == QProcess::CrashExit ? "crash" : "normal")
                                .arg(p.exitCode())
                                .arg(QString(p.readAllStandardError()).trimmed());
            }
            if (!QFile::exists(QString("%1/rank%2.json").arg(dir_).arg(r))) {
                problems += QString("rank%1.json missing\n").arg(r);
            }
        }
        return problems;
    }

private:
    QString dir_;
    int port_;
    QString tokens_[2];
    std::unique_ptr<QProcess> ranks_[2];
};

struct Abuse {
    const char* name;
    QByteArray request;
    QByteArray expect; // "closed", or each reply's first byte
};

QList<Abuse> abuses() {
    return {
        {"get of zero keys", framed("g" + u32(1000) + u32(0)), "closed"},
        {"get of two keys", waitRequest('g', 1000, {"commprof/arrived/0", "commprof/arrived/0"}),
         "closed"},
        {"length 0", u32(0), "closed"},
        {"key count beyond the body", framed("w" + u32(10) + u32(0xFFFFFFFFu)), "closed"},
        {"key count beyond the limit",
         framed("c" + u32(70000) + QByteArray(qsizetype{70000} * 4, '\0')), "closed"},
        {"value over 16 MiB", setRequest("big", QByteArray((16 << 20) + 16, 'v')), "closed"},
        {"key over 4 KiB", setRequest(QByteArray(5000, 'k'), "v"), "closed"},
        {"bytes after the request", framed("n" + QByteArray("junk")), "closed"},
        {"unknown op", framed("?"), "closed"},
        {"add of a non-number", framed("a" + field("counter") + field("12abc")), "E"},
        {"add beyond 64 bits", framed("a" + field("counter") + field("9223372036854775808")), "E"},
        {"add that overflows",
         framed("a" + field("overflow") + field("9223372036854775807")) +
             framed("a" + field("overflow") + field("1")),
         "KE"},
    };
}

// Sends the abuse on a connection of its own and checks the store's answer.
bool abuseIsAnswered(Cell& cell, const QByteArray& request, const QByteArray& expect) {
    const auto abuser = cell.client();
    if (!abuser) {
        return false;
    }
    // The server may close before an oversized request is all sent.
    abuser->send(request);
    if (expect == "closed") {
        return abuser->closedWithoutReply(10000);
    }
    QByteArray statuses;
    for (int i = 0; i < expect.size(); ++i) {
        statuses += abuser->reply(10000).left(1);
    }
    return statuses == expect;
}

} // namespace

class TstRankStore : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() {
        // The flood needs more descriptors than the default soft limit.
        rlimit lim{};
        ::getrlimit(RLIMIT_NOFILE, &lim);
        lim.rlim_cur = std::min<rlim_t>(lim.rlim_max, 8192);
        ::setrlimit(RLIMIT_NOFILE, &lim);
        QVERIFY2(lim.rlim_cur >= 2100, "the flood needs 2,100 file descriptors");
    }

    void cellCompletesWithToken() {
        QTemporaryDir dir;
        Cell cell(dir.path(), kToken, kToken);
        QVERIFY(cell.startServing());
        const QString problems = cell.completeWithRank1();
        QVERIFY2(problems.isEmpty(), qPrintable(problems));
        QVERIFY(!QString(cell.rank(0).readAllStandardError()).contains("warning"));
    }

    void withoutTokenTheRankWarnsOnce() {
        QTemporaryDir dir;
        Cell cell(dir.path(), QString(), QString());
        QVERIFY(cell.startServing());
        const QString problems = cell.completeWithRank1();
        QVERIFY2(problems.isEmpty(), qPrintable(problems));
        const QString err = cell.rank(0).readAllStandardError();
        QCOMPARE(err.count("COMMPROF_STORE_TOKEN is not set"), 1);
        QVERIFY(!QString(cell.rank(1).readAllStandardError()).contains("COMMPROF_STORE_TOKEN"));
    }

    void rankWithAnotherTokenIsRefused() {
        QTemporaryDir dir;
        Cell cell(dir.path(), kToken, "not-the-token");
        QVERIFY(cell.startServing());
        QVERIFY(cell.start(1));
        QVERIFY(cell.rank(1).waitForFinished(60000));
        QCOMPARE(cell.rank(1).exitCode(), 3);
        const QString err = cell.rank(1).readAllStandardError();
        QVERIFY2(err.contains("refused this rank") && err.contains("COMMPROF_STORE_TOKEN"),
                 qPrintable(err));
    }

    void foreignClientCannotJoinOrForgeArrival() {
        QTemporaryDir dir;
        Cell cell(dir.path(), kToken, kToken);
        QVERIFY(cell.startServing());
        // No hello: the forged arrival of rank 1 is not even read.
        RawClient forger(cell.port());
        QVERIFY(forger.send(setRequest("commprof/arrived/1", QByteArray(1, '\1'))));
        QVERIFY(forger.closedWithoutReply(5000));
        // A wrong token is refused with a reason, then the connection closes.
        RawClient guesser(cell.port());
        QVERIFY(guesser.send(hello("0000")));
        QCOMPARE(guesser.reply(5000).left(1), QByteArray("E"));
        QVERIFY(guesser.send(setRequest("commprof/arrived/1", QByteArray(1, '\1'))));
        QVERIFY(guesser.closedWithoutReply(5000));
        // A client holding the token sees that rank 1 has not arrived.
        RawClient insider(cell.port());
        QVERIFY(insider.send(hello(kToken.toLatin1())));
        QCOMPARE(insider.reply(5000), QByteArray("K"));
        QVERIFY(insider.send(framed("c" + u32(1) + field("commprof/arrived/1"))));
        QCOMPARE(insider.reply(5000), QByteArray("K0"));
        const QString problems = cell.completeWithRank1();
        QVERIFY2(problems.isEmpty(), qPrintable(problems));
    }

    // Every abuse, each on a connection of its own, sent by a client that holds the token (a
    // confused insider) or, with the store running without one, by anyone. After each, rank 0
    // still runs and serves another client; after all of them the cell completes and rank 0
    // writes its file.
    void abusesLeaveTheStoreServing_data() { hugeLengthHeaderAllocatesNothing_data(); }
    void abusesLeaveTheStoreServing() {
        QFETCH(bool, withToken);
        QTemporaryDir dir;
        Cell cell(dir.path(), withToken);
        QVERIFY(cell.startServing());
        for (const auto& a : abuses()) {
            QVERIFY2(abuseIsAnswered(cell, a.request, a.expect), a.name);
            QVERIFY2(cell.rank(0).state() == QProcess::Running, a.name);
            const auto next = cell.client();
            QVERIFY2(next, a.name);
            QVERIFY(next->send(setRequest("after", "1")));
            QCOMPARE(next->reply(5000), QByteArray("K"));
            QVERIFY(next->send(waitRequest('g', 1000, {"after"})));
            QCOMPARE(next->reply(5000), QByteArray("K1"));
        }
        const QString problems = cell.completeWithRank1();
        QVERIFY2(problems.isEmpty(), qPrintable(problems));
    }

    void hugeLengthHeaderAllocatesNothing_data() {
        QTest::addColumn<bool>("withToken");
        QTest::newRow("token") << true;
        QTest::newRow("no token") << false;
    }
    void hugeLengthHeaderAllocatesNothing() {
        QFETCH(bool, withToken);
        QTemporaryDir dir;
        Cell cell(dir.path(), withToken);
        QVERIFY(cell.startServing());
        const qint64 pid = cell.rank(0).processId();
        const qint64 rssBefore = procStatus(pid, "VmRSS");
        const auto abuser = cell.client();
        QVERIFY(abuser);
        QVERIFY(abuser->send(u32(0xFFFFFFFFu) + "s"));
        QVERIFY(abuser->closedWithoutReply(10000));
        const qint64 peak = procStatus(pid, "VmHWM");
        QVERIFY2(
            peak - rssBefore < qint64{64} * 1024,
            qPrintable(
                QString("rank 0 grew from %1 kB to a peak of %2 kB").arg(rssBefore).arg(peak)));
        const QString problems = cell.completeWithRank1();
        QVERIFY2(problems.isEmpty(), qPrintable(problems));
    }

    // A wait of 2^32-1 ms on a key that never comes: rank 0 still finishes and writes its file
    // well within the deadline.
    void endlessWaitDoesNotHoldRankZero_data() { hugeLengthHeaderAllocatesNothing_data(); }
    void endlessWaitDoesNotHoldRankZero() {
        QFETCH(bool, withToken);
        QTemporaryDir dir;
        Cell cell(dir.path(), withToken);
        QVERIFY(cell.startServing());
        const auto abuser = cell.client();
        QVERIFY(abuser);
        QVERIFY(abuser->send(waitRequest('w', 0xFFFFFFFFu, {"never/arrives"})));
        const auto getter = cell.client();
        QVERIFY(getter);
        QVERIFY(getter->send(waitRequest('g', 0xFFFFFFFFu, {"never/arrives/either"})));
        QElapsedTimer t;
        t.start();
        const QString problems = cell.completeWithRank1(60000);
        QVERIFY2(problems.isEmpty(), qPrintable(problems));
        QVERIFY(t.elapsed() < 60000);
    }

    // However long a client asks to wait, the store answers within the rank's own timeouts.
    void waitIsCappedByTheRankTimeouts() {
        QTemporaryDir dir;
        const int port = RankPool::freeLoopbackPort();
        QProcess rank;
        rank.setProcessEnvironment(rankEnvironment(0, 1, port, kToken));
        // A world of one trains on alone, long past the 4 s cap.
        rank.start(rankBinary(),
                   {"--params", "4e5", "--iterations", "1000000", "--threads", "1", "--out",
                    dir.path(), "--rendezvous-timeout-s", "4", "--collective-timeout-s", "3"});
        QVERIFY(rank.waitForStarted());
        QElapsedTimer t;
        t.start();
        std::unique_ptr<RawClient> client;
        while (!client && t.elapsed() < 20000) {
            auto c = std::make_unique<RawClient>(port);
            if (c->connected()) {
                client = std::move(c);
            } else {
                QThread::msleep(20);
            }
        }
        QVERIFY(client);
        QVERIFY(client->send(hello(kToken.toLatin1())));
        QCOMPARE(client->reply(5000), QByteArray("K"));
        QVERIFY(client->send(waitRequest('w', 0xFFFFFFFFu, {"never/arrives"})));
        t.restart();
        const QByteArray answer = client->reply(30000);
        const qint64 waited = t.elapsed();
        const bool running = rank.state() == QProcess::Running;
        rank.kill();
        rank.waitForFinished(5000);
        QCOMPARE(answer, QByteArray("T"));
        QVERIFY2(waited >= 3500 && waited < 15000, qPrintable(QString::number(waited)));
        QVERIFY(running);
    }

    // 2,000 connections cost rank 0 no threads, and the strangers among them cannot crowd out
    // rank 1.
    void connectionFloodIsBounded_data() { hugeLengthHeaderAllocatesNothing_data(); }
    void connectionFloodIsBounded() {
        QFETCH(bool, withToken);
        QTemporaryDir dir;
        Cell cell(dir.path(), withToken);
        QVERIFY(cell.startServing());
        const qint64 pid = cell.rank(0).processId();
        QThread::msleep(300);
        const qint64 threadsBefore = procStatus(pid, "Threads");
        const qint64 fdsBefore = openFiles(pid);
        std::vector<std::unique_ptr<RawClient>> flood;
        flood.reserve(2000);
        for (int i = 0; i < 2000; ++i) {
            flood.push_back(std::make_unique<RawClient>(cell.port()));
        }
        QThread::msleep(500);
        const qint64 threadsDuring = procStatus(pid, "Threads");
        QVERIFY2(threadsDuring <= threadsBefore + 2,
                 qPrintable(QString("%1 threads before the flood, %2 during")
                                .arg(threadsBefore)
                                .arg(threadsDuring)));
        const qint64 fdsDuring = openFiles(pid);
        QVERIFY2(fdsDuring - fdsBefore <= 64,
                 qPrintable(QString("%1 descriptors before the flood, %2 during")
                                .arg(fdsBefore)
                                .arg(fdsDuring)));
        const QString problems = cell.completeWithRank1();
        QVERIFY2(problems.isEmpty(), qPrintable(problems));
    }
};

QTEST_GUILESS_MAIN(TstRankStore)
#include "tst_rank_store.moc"
