#pragma once
// Standard input as `start` and `attach` read it: first (start only) the token line, the
// experiment's byte count and its bytes, blocking; then control commands, one per line, as
// they come. One buffer for both, so commands sent right behind the experiment are kept.
// The descriptor stays blocking (it may be shared); reads happen only when there is data.

#include <optional>
#include <string>
#include <vector>

namespace strata::cli {

class StdinReader {
public:
    explicit StdinReader(int fd = 0) : m_fd(fd) {}

    int fd() const { return m_fd; }
    bool atEnd() const { return m_eof && m_buffer.empty(); }

    // The next line without its '\n' (and '\r'); nullopt at end of input. Blocks.
    std::optional<std::string> readLine();
    // Exactly `n` bytes; throws UsageError naming `what` when the input ends before. Blocks.
    std::string readBytes(size_t n, const std::string& what);

    // After poll() said the descriptor is readable: reads once, without blocking.
    void readAvailable();
    // The complete lines buffered so far, taken out of the buffer; at end of input a last
    // line without '\n' too.
    std::vector<std::string> takeLines();

private:
    bool fill(); // one read(); false at end of input

    int m_fd;
    std::string m_buffer;
    bool m_eof = false;
};

} // namespace strata::cli
