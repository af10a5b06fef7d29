// SPDX-License-Identifier: GPL-3.0-or-later
// commprof-rank-fork SOCKET PROGRAM [ARGS...]: one rank, forked by the fork server listening on
// SOCKET (commprof-rank --fork-server), standing in for it towards its launcher. The rank gets
// this process's stdin, stdout, stderr, working directory and environment; the signals a
// launcher sends are passed on to it, and this process ends as the rank did (its exit code, or
// the same signal). Where the server cannot be reached or says the rank must not be forked,
// PROGRAM is exec'd with ARGS, as a launcher would have, after a line on stderr saying why.
// Plain C++ and libc: starting it must cost a few milliseconds, not libtorch's start-up.

#include "fork_protocol.h"
#include "spec/fork_contract.h"
#include "spec/rank_contract.h"

#include <fcntl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <string>

extern char** environ;

namespace {

namespace fork = commprof::rank::fork;
namespace exit_code = commprof::spec::exit_code;

constexpr int kForwarded[] = {SIGTERM, SIGINT, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2};

volatile sig_atomic_t rankPid = 0;

void forward(int signal) {
    if (rankPid > 0) {
        ::kill(pid_t(rankPid), signal);
    }
}

int connectTo(const char* path, std::string& error) {
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    if (std::strlen(path) >= sizeof addr.sun_path) {
        error = "the socket path is too long";
        return -1;
    }
    std::strcpy(addr.sun_path, path);
    const int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0 || ::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
        error = std::string("the fork server at ") + path +
                " cannot be reached: " + std::strerror(errno);
        if (fd >= 0) {
            ::close(fd);
        }
        return -1;
    }
    return fd;
}

// The rank forked by the server, its pid in REPLY; false with ERROR when it must be exec'd.
bool forkRank(int server, int rankArgc, char** rankArgv, fork::Reply& reply, std::string& error) {
    fork::Request request;
    request.argv.assign(rankArgv, rankArgv + rankArgc);
    for (char** e = environ; *e; ++e) {
        request.env.emplace_back(*e);
    }
    const int cwd = ::open(".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (cwd < 0) {
        error = std::string("cannot open the working directory: ") + std::strerror(errno);
        return false;
    }
    request.fds[0] = 0;
    request.fds[1] = 1;
    request.fds[2] = 2;
    request.fds[3] = cwd;
    const bool asked = fork::sendRequest(server, request, error);
    ::close(cwd);
    if (!asked || !fork::receiveReply(server, reply, error)) {
        return false;
    }
    if (reply.kind != fork::Reply::Forked || reply.value <= 0) {
        error = reply.reason.empty() ? "the fork server did not fork it" : reply.reason;
        return false;
    }
    return true;
}

// Ends this process as the rank ended: its exit code, or killed by the same signal.
[[noreturn]] void endAs(int status) {
    if (WIFEXITED(status)) {
        ::_exit(WEXITSTATUS(status));
    }
    const int signal = WIFSIGNALED(status) ? WTERMSIG(status) : SIGKILL;
    const rlimit noCore{0, 0}; // the rank dumped its own core where it was asked to
    ::setrlimit(RLIMIT_CORE, &noCore);
    std::signal(signal, SIG_DFL);
    sigset_t only;
    sigemptyset(&only);
    sigaddset(&only, signal);
    ::sigprocmask(SIG_UNBLOCK, &only, nullptr);
    ::raise(signal);
    ::_exit(128 + signal);
}

} // namespace

int main(int argc, char** argv) {
    if (argc < 3) {
        std::fprintf(stderr, "usage: commprof-rank-fork SOCKET PROGRAM [ARGS...]\n");
        return exit_code::kUsage;
    }
    // Held until the rank's pid is known, then passed on: a launcher's SIGTERM during the
    // request still reaches the rank.
    sigset_t forwarded;
    sigemptyset(&forwarded);
    for (int s : kForwarded) {
        sigaddset(&forwarded, s);
    }
    ::sigprocmask(SIG_BLOCK, &forwarded, nullptr);
    std::string error;
    fork::Reply reply;
    const int server = connectTo(argv[1], error);
    if (server < 0 || !forkRank(server, argc - 2, argv + 2, reply, error)) {
        // The contract's notice first: the runner records the rank as exec'd, and why.
        std::fprintf(stderr, "%s%s\n", commprof::spec::fork::kExecNotice, error.c_str());
        std::fflush(stderr);
        if (server >= 0) {
            ::close(server);
        }
        ::sigprocmask(SIG_UNBLOCK, &forwarded, nullptr);
        ::execv(argv[2], argv + 2);
        std::fprintf(stderr, "commprof-rank-fork: cannot run %s: %s\n", argv[2],
                     std::strerror(errno));
        return exit_code::kCannotRun;
    }
    rankPid = reply.value;
    struct sigaction passOn {};
    passOn.sa_handler = forward;
    passOn.sa_flags = SA_RESTART;
    for (int s : kForwarded) {
        ::sigaction(s, &passOn, nullptr);
    }
    ::sigprocmask(SIG_UNBLOCK, &forwarded, nullptr);
    fork::Reply ended;
    if (!fork::receiveReply(server, ended, error) || ended.kind != fork::Reply::Ended) {
        ::kill(pid_t(rankPid), SIGKILL);
        std::fprintf(stderr, "commprof-rank-fork: %s; rank process %d ended\n",
                     error.empty() ? "no end reported" : error.c_str(), int(rankPid));
        return exit_code::kFailed;
    }
    endAs(ended.value);
}
