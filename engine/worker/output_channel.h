#pragma once
// One of the follower's outputs (stdout, stderr): bytes queued, then written without ever
// blocking, so that a reader that stopped reading (a cut network) is noticed instead of
// hanging the follower. Sets O_NONBLOCK on the descriptor and restores its flags on
// destruction: destroy channels in the reverse order of construction when two share one
// open file (2>&1).

#include <chrono>
#include <optional>
#include <string>

namespace strata::cli {

class OutputChannel {
public:
    using Clock = std::chrono::steady_clock;

    explicit OutputChannel(int fd);
    ~OutputChannel();
    OutputChannel(const OutputChannel&) = delete;
    OutputChannel& operator=(const OutputChannel&) = delete;

    int fd() const { return m_fd; }
    bool empty() const { return m_pos == m_data.size(); }
    void queue(const char* data, size_t size);
    void queue(const std::string& text) { queue(text.data(), text.size()); }

    // Writes what the reader takes now. False once it is gone (EPIPE or any other error).
    bool flush();
    Clock::time_point lastWrite() const { return m_lastWrite; }
    // Since when queued bytes have not moved at all; nullopt while they move (or none wait).
    std::optional<Clock::time_point> blockedSince() const { return m_blockedSince; }

private:
    int m_fd;
    int m_flags;
    std::string m_data;
    size_t m_pos = 0;
    Clock::time_point m_lastWrite = Clock::now();
    std::optional<Clock::time_point> m_blockedSince;
};

} // namespace strata::cli
