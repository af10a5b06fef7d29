// SPDX-License-Identifier: GPL-3.0-or-later
#include "fork_server.h"

#include "fork_protocol.h"
#include "rank_exit.h"
#include "spec/fork_contract.h"
#include "spec/rank_contract.h"

#include <dirent.h>
#include <fcntl.h>
#include <poll.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iterator>
#include <set>
#include <vector>

extern char** environ;

namespace commprof::rank {
namespace {

namespace contract = spec::fork;

// Signals a terminal sends to its whole foreground process group: the ranks and the runner
// take them as they always did; the server is ended by its runner alone.
constexpr int kTerminalSignals[] = {SIGINT, SIGQUIT, SIGHUP};

void say(const std::string& text) {
    std::fprintf(stderr, "commprof-rank fork server: %s\n", text.c_str());
}

// Threads of this process, or -1 when /proc cannot say.
int threadCount() {
    DIR* dir = ::opendir("/proc/self/task");
    if (!dir) {
        return -1;
    }
    int n = 0;
    while (const dirent* e = ::readdir(dir)) {
        n += e->d_name[0] != '.';
    }
    ::closedir(dir);
    return n;
}

// Why a fork now would not be a sound rank, or empty. A fork holds only the thread that made it:
// a lock another thread held (an allocator's, an OpenMP pool's, a CUDA context's, which starts
// threads of its own) would stay held in the rank forever.
std::string whyNotFork() {
    const int threads = threadCount();
    if (threads == 1) {
        return {};
    }
    return threads < 0 ? std::string("/proc/self/task cannot be read to count the server's threads")
                       : "the server runs " + std::to_string(threads) +
                             " threads; a fork would keep one of them";
}

std::set<std::string> comparable(const std::vector<std::string>& env) {
    std::set<std::string> out;
    for (const std::string& entry : env) {
        const std::string name = entry.substr(0, entry.find('='));
        const bool perRank = std::any_of(std::begin(contract::kPerRankEnvironment),
                                         std::end(contract::kPerRankEnvironment),
                                         [&](const char* n) { return name == n; });
        if (!perRank) {
            out.insert(entry);
        }
    }
    return out;
}

// The first variable, besides those set per rank, whose value differs between ENV and the
// server's own environment: libraries read some when they are loaded, which a fork would skip.
std::string environmentDifference(const std::vector<std::string>& env) {
    std::vector<std::string> own;
    for (char** e = environ; *e; ++e) {
        own.emplace_back(*e);
    }
    const std::set<std::string> a = comparable(env);
    const std::set<std::string> b = comparable(own);
    std::vector<std::string> differ;
    std::set_symmetric_difference(a.begin(), a.end(), b.begin(), b.end(),
                                  std::back_inserter(differ));
    if (differ.empty()) {
        return {};
    }
    return "the rank's environment differs from the server's in " +
           differ.front().substr(0, differ.front().find('='));
}

struct Child {
    pid_t pid = 0;
    int conn = -1; // the client's connection; -1 once the client is gone
};

// In the forked child: the request's process, then the rank's own main. Never returns.
[[noreturn]] void becomeRank(fork::Request& request, pid_t server, RankMain rankMain,
                             const std::vector<int>& serverFds) {
    for (int s : kTerminalSignals) {
        std::signal(s, SIG_DFL);
    }
    std::signal(SIGPIPE, SIG_DFL);
    sigset_t none;
    sigemptyset(&none);
    ::sigprocmask(SIG_SETMASK, &none, nullptr);
    // The rank dies with the server, as an exec'd rank dies with its launcher; the server ends a
    // rank whose client is gone.
    if (::prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || ::getppid() != server) {
        ::_exit(spec::exit_code::kCannotRun);
    }
    for (int fd : serverFds) {
        ::close(fd);
    }
    for (int i = 0; i < 3; ++i) {
        if (::dup2(request.fds[i], i) < 0) {
            ::_exit(spec::exit_code::kCannotRun);
        }
    }
    if (::fchdir(request.fds[3]) != 0) {
        std::fprintf(stderr, "commprof-rank: cannot enter the working directory: %s\n",
                     std::strerror(errno));
        ::_exit(spec::exit_code::kCannotRun);
    }
    for (int fd : request.fds) {
        if (fd > 2) {
            ::close(fd);
        }
    }
    ::clearenv();
    for (std::string& entry : request.env) {
        ::putenv(entry.data()); // request outlives the rank: its strings stay put
    }
    std::vector<char*> argv;
    for (std::string& a : request.argv) {
        argv.push_back(a.data());
    }
    argv.push_back(nullptr);
    endRankProcess(rankMain(int(request.argv.size()), argv.data()));
}

class Server {
public:
    Server(int listener, int signals, RankMain rankMain)
        : listener_(listener), signals_(signals), rankMain_(rankMain), self_(::getpid()) {}

    void serve() {
        for (;;) {
            std::vector<pollfd> fds{{0, POLLIN, 0}, {signals_, POLLIN, 0}, {listener_, POLLIN, 0}};
            for (const Child& c : children_) {
                if (c.conn >= 0) {
                    fds.push_back({c.conn, POLLIN, 0});
                }
            }
            if (::poll(fds.data(), fds.size(), -1) < 0) {
                if (errno == EINTR) {
                    continue;
                }
                say(std::string("poll failed: ") + std::strerror(errno));
                return;
            }
            if (fds[1].revents) {
                signalfd_siginfo info;
                while (::read(signals_, &info, sizeof info) == ssize_t(sizeof info)) {
                }
                reap();
            }
            for (std::size_t i = 3; i < fds.size(); ++i) {
                if (fds[i].revents) {
                    clientGone(fds[i].fd);
                }
            }
            if (fds[2].revents & POLLIN) {
                accept();
            }
            if (fds[0].revents) {
                char buf[256];
                const ssize_t n = ::read(0, buf, sizeof buf);
                if (n == 0 || (n < 0 && errno != EINTR && errno != EAGAIN)) {
                    return; // the runner let go: no more ranks
                }
                answerProbes(buf, n);
            }
        }
    }

    // Ranks still running when the server ends go with it.
    ~Server() {
        for (const Child& c : children_) {
            ::kill(c.pid, SIGKILL);
            ::waitpid(c.pid, nullptr, 0);
        }
    }

private:
    // Every line on stdin is the runner's probe: one answer a line, at once.
    static void answerProbes(const char* bytes, ssize_t n) {
        const long probes = std::count(bytes, bytes + std::max<ssize_t>(n, 0), '\n');
        for (long i = 0; i < probes; ++i) {
            std::printf("%s\n", contract::kAlive);
        }
        std::fflush(stdout);
    }

    void reap() {
        int status = 0;
        pid_t pid;
        while ((pid = ::waitpid(-1, &status, WNOHANG)) > 0) {
            const auto it = std::find_if(children_.begin(), children_.end(),
                                         [&](const Child& c) { return c.pid == pid; });
            if (it == children_.end()) {
                continue;
            }
            if (it->conn >= 0) {
                fork::sendReply(it->conn, {fork::Reply::Ended, status, {}});
                ::close(it->conn);
            }
            children_.erase(it);
        }
    }

    // A client sends nothing after its request: its connection readable means it ended (killed,
    // say), and its rank must not outlive it, as a rank dies with its launcher.
    void clientGone(int conn) {
        for (Child& c : children_) {
            if (c.conn == conn) {
                ::kill(c.pid, SIGKILL);
                ::close(c.conn);
                c.conn = -1;
            }
        }
    }

    void accept() {
        const int conn = ::accept4(listener_, nullptr, nullptr, SOCK_CLOEXEC);
        if (conn < 0) {
            return;
        }
        // A client that stalls mid-request must not stall every other rank.
        const timeval limit{10, 0};
        ::setsockopt(conn, SOL_SOCKET, SO_RCVTIMEO, &limit, sizeof limit);
        fork::Request request;
        std::string error;
        if (!fork::receiveRequest(conn, request, error)) {
            say(error);
            ::close(conn);
            return;
        }
        fork::Reply reply;
        reply.reason = whyNotFork();
        if (reply.reason.empty()) {
            reply.reason = environmentDifference(request.env);
        }
        pid_t pid = -1;
        if (reply.reason.empty()) {
            std::fflush(stdout);
            std::fflush(stderr);
            pid = ::fork();
            if (pid == 0) {
                std::vector<int> own{listener_, signals_, conn};
                for (const Child& c : children_) {
                    if (c.conn >= 0) {
                        own.push_back(c.conn);
                    }
                }
                becomeRank(request, self_, rankMain_, own);
            }
            if (pid < 0) {
                reply.reason = std::string("fork failed: ") + std::strerror(errno);
            }
        }
        for (int fd : request.fds) {
            ::close(fd);
        }
        if (pid < 0) {
            fork::sendReply(conn, reply); // kind Exec: the client execs the rank
            ::close(conn);
            return;
        }
        reply.kind = fork::Reply::Forked;
        reply.value = pid;
        children_.push_back({pid, conn});
        if (!fork::sendReply(conn, reply)) {
            clientGone(conn);
        }
    }

    int listener_;
    int signals_;
    RankMain rankMain_;
    pid_t self_;
    std::vector<Child> children_;
};

int listenOn(const std::string& path, std::string& error) {
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    if (path.size() >= sizeof addr.sun_path) {
        error =
            path + ": a unix socket path of " + std::to_string(path.size()) + " bytes is too long";
        return -1;
    }
    std::memcpy(addr.sun_path, path.c_str(), path.size() + 1);
    const int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0 || ::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 ||
        ::listen(fd, 64) != 0) {
        error = path + ": cannot listen: " + std::strerror(errno);
        if (fd >= 0) {
            ::close(fd);
        }
        return -1;
    }
    return fd;
}

} // namespace

int runForkServer(const std::string& socketPath, RankMain rankMain) {
    if (socketPath.empty()) {
        // bind() would take it as an abstract address of NULs that no client names.
        std::fprintf(stderr, "commprof-rank: %s takes the path of a unix socket; '' names none\n",
                     contract::kServerFlag);
        return spec::exit_code::kUsage;
    }
    for (int s : kTerminalSignals) {
        std::signal(s, SIG_IGN);
    }
    std::signal(SIGPIPE, SIG_IGN);
    sigset_t chld;
    sigemptyset(&chld);
    sigaddset(&chld, SIGCHLD);
    ::sigprocmask(SIG_BLOCK, &chld, nullptr);
    const int signals = ::signalfd(-1, &chld, SFD_CLOEXEC | SFD_NONBLOCK);
    std::string why = whyNotFork();
    int listener = -1;
    if (why.empty() && signals < 0) {
        why = std::string("signalfd failed: ") + std::strerror(errno);
    }
    if (why.empty()) {
        listener = listenOn(socketPath, why);
    }
    if (!why.empty()) {
        std::printf("%s%s\n", contract::kRefused, why.c_str());
        std::fflush(stdout);
        return 1;
    }
    std::printf("%s\n", contract::kReady);
    std::fflush(stdout);
    Server(listener, signals, rankMain).serve(); // its ranks end with it, before the unlink
    ::unlink(socketPath.c_str());
    return 0;
}

} // namespace commprof::rank
