#pragma once
// TCP ports on 127.0.0.1 for jobs the tests start: a block of consecutive ports that are all
// free now, below the kernel's ephemeral range (32768 up), so that no connection of another
// test running beside this one is given one of them as its local port before the job listens
// there, and below the launcher's automatic ports (29500 up). A port asked of the kernel
// (bind to 0) is free only itself, is taken from the ephemeral range, and the ports after it
// are not checked.

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <ctime>
#include <stdexcept>
#include <string>

namespace testing {

inline bool portFreeNow(int port)
{
    const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_port = htons(static_cast<uint16_t>(port));
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    const bool free = ::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0;
    ::close(fd);
    return free;
}

// The first of `count` consecutive ports, each free now.
inline int freePorts(int count)
{
    constexpr int kFrom = 20000, kTo = 29400;
    // Seeded by process and time: tests side by side start their search in different places.
    // (A plain xorshift: moc cannot parse <random>.)
    static unsigned state = static_cast<unsigned>(::getpid()) * 2654435761u ^ static_cast<unsigned>(std::time(nullptr));
    for (int attempt = 0; attempt < 1000; ++attempt) {
        state ^= state << 13;
        state ^= state >> 17;
        state ^= state << 5;
        const int first = kFrom + static_cast<int>(state % static_cast<unsigned>(kTo - count - kFrom));
        int free = 0;
        while (free < count && portFreeNow(first + free))
            ++free;
        if (free == count)
            return first;
    }
    throw std::runtime_error("no " + std::to_string(count) + " consecutive free ports on 127.0.0.1");
}

inline int freePort() { return freePorts(1); }

} // namespace testing
