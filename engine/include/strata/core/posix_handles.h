#pragma once
// Owners of the POSIX resources the engine opens by hand (sockets, files, resolved address
// lists): every early return and exception releases them, so a loop that tries addresses
// one by one cannot leak the ones it gives up on.

#include <netdb.h>
#include <sys/socket.h>
#include <unistd.h>

#include <string>
#include <utility>

namespace strata {

// A file descriptor closed when its owner goes; -1 when it holds none.
class UniqueFd {
public:
    UniqueFd() = default;
    explicit UniqueFd(int fd) : m_fd(fd) {}
    ~UniqueFd() { reset(); }
    UniqueFd(UniqueFd&& other) noexcept : m_fd(other.release()) {}
    UniqueFd& operator=(UniqueFd&& other) noexcept
    {
        if (this != &other)
            reset(other.release());
        return *this;
    }
    UniqueFd(const UniqueFd&) = delete;
    UniqueFd& operator=(const UniqueFd&) = delete;

    int get() const { return m_fd; }
    bool valid() const { return m_fd >= 0; }
    int release() { return std::exchange(m_fd, -1); }
    void reset(int fd = -1)
    {
        if (m_fd >= 0)
            ::close(m_fd);
        m_fd = fd;
    }

private:
    int m_fd = -1;
};

// getaddrinfo's answer for a host and port, freed when it goes; iterate it for the
// addresses in the resolver's order. `error()` is gai_strerror's text when resolving failed.
class AddressList {
public:
    AddressList(const std::string& host, const std::string& service, int socketType, int flags)
    {
        addrinfo hints{};
        hints.ai_family = AF_UNSPEC;
        hints.ai_socktype = socketType;
        hints.ai_flags = flags;
        if (const int rc = ::getaddrinfo(host.c_str(), service.c_str(), &hints, &m_list); rc != 0) {
            m_list = nullptr;
            m_error = ::gai_strerror(rc);
        }
    }
    ~AddressList()
    {
        if (m_list)
            ::freeaddrinfo(m_list);
    }
    AddressList(AddressList&& other) noexcept
        : m_list(std::exchange(other.m_list, nullptr)), m_error(std::move(other.m_error))
    {
    }
    AddressList& operator=(AddressList&&) = delete;
    AddressList(const AddressList&) = delete;
    AddressList& operator=(const AddressList&) = delete;

    bool ok() const { return m_error.empty(); }
    const std::string& error() const { return m_error; }

    class Iterator {
    public:
        explicit Iterator(const addrinfo* at) : m_at(at) {}
        const addrinfo& operator*() const { return *m_at; }
        Iterator& operator++()
        {
            m_at = m_at->ai_next;
            return *this;
        }
        bool operator==(const Iterator& other) const = default;

    private:
        const addrinfo* m_at;
    };
    Iterator begin() const { return Iterator(m_list); }
    Iterator end() const { return Iterator(nullptr); }

private:
    addrinfo* m_list = nullptr;
    std::string m_error;
};

} // namespace strata
