#pragma once
// Rank processes of the collectives' benchmarks on 127.0.0.1: N of them forked from the
// bench's main thread (before it starts any thread: Gloo and the rendezvous start their own in
// each child), a free port for their rendezvous, and each one's ProcessGroup. A rank that fails
// takes the others down, since they would wait for it until their timeout.

#include "strata/distribute/process_group.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <chrono>
#include <functional>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

namespace strata::bench {

// Runs `rank(i)` in a child process for i in [0, n); true when every child returned 0.
inline bool forkRanks(int n, const std::function<int(int rank)>& rank)
{
    std::vector<pid_t> pids;
    for (int i = 0; i < n; ++i) {
        std::cout.flush();
        std::cerr.flush();
        const pid_t pid = ::fork();
        if (pid < 0) {
            std::perror("fork");
            for (pid_t other : pids)
                ::kill(other, SIGKILL);
            return false;
        }
        if (pid == 0) {
            const int rc = rank(i);
            std::cout.flush();
            std::cerr.flush();
            ::_exit(rc);
        }
        pids.push_back(pid);
    }
    bool ok = true;
    for (size_t done = 0; done < pids.size(); ++done) {
        int status = 0;
        const pid_t pid = ::wait(&status);
        if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
            if (ok)
                for (pid_t other : pids)
                    if (other != pid)
                        ::kill(other, SIGKILL);
            ok = false;
        }
    }
    return ok;
}

// A port free on 127.0.0.1 now (for rank 0's rendezvous).
inline int freePort()
{
    const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    ::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a);
    socklen_t len = sizeof a;
    ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len);
    ::close(fd);
    return ntohs(a.sin_port);
}

// Rank `rank` of `ranks` workers joining their group through the rendezvous on `port`.
inline std::unique_ptr<distribute::ProcessGroup> joinGroup(int rank, int ranks, int port, std::chrono::seconds timeout)
{
    distribute::ProcessGroupOptions o;
    for (int i = 0; i < ranks; ++i)
        o.taskNames.push_back("worker:" + std::to_string(i));
    o.rank = rank;
    o.rendezvousHost = "127.0.0.1";
    o.rendezvousPort = port;
    o.host = "127.0.0.1";
    o.token = "0123456789abcdef0123456789abcdef";
    o.timeout = timeout;
    return std::make_unique<distribute::ProcessGroup>(o);
}

} // namespace strata::bench
