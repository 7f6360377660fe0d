#pragma once
// Helpers the distribution tests share: ranks as threads, free ports, weight comparison.

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cmath>
#include <exception>
#include <functional>
#include <string>
#include <thread>
#include <vector>

namespace testing {

// Runs body(rank) on `size` threads; what each threw, by rank ("" when nothing).
inline std::vector<std::string> onRanks(int size, const std::function<void(int)>& body)
{
    std::vector<std::string> errors(static_cast<size_t>(size));
    std::vector<std::thread> threads;
    for (int r = 0; r < size; ++r)
        threads.emplace_back([&, r] {
            try {
                body(r);
            } catch (const std::exception& e) {
                errors[static_cast<size_t>(r)] = e.what();
            }
        });
    for (auto& t : threads)
        t.join();
    return errors;
}

// A TCP port free on 127.0.0.1 right now.
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

// ||a - b|| / ||b||.
inline double relativeError(const std::vector<float>& a, const std::vector<float>& b)
{
    double diff = 0, norm = 0;
    for (size_t i = 0; i < a.size(); ++i) {
        diff += (double(a[i]) - b[i]) * (double(a[i]) - b[i]);
        norm += double(b[i]) * b[i];
    }
    return std::sqrt(diff / norm);
}

} // namespace testing
