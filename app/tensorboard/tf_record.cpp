#include "app/tensorboard/tf_record.h"

#include <array>

namespace strata::app::tensorboard {

namespace {

// Byte-at-a-time table of the reflected Castagnoli polynomial 0x82F63B78. Event files are
// small next to what this runs through per second (hundreds of MB on one core), so the
// sliced or SSE4.2 variants would buy nothing measurable.
constexpr std::array<uint32_t, 256> kTable = [] {
    std::array<uint32_t, 256> table{};
    for (uint32_t i = 0; i < 256; ++i) {
        uint32_t c = i;
        for (int bit = 0; bit < 8; ++bit)
            c = (c & 1) ? (c >> 1) ^ 0x82F63B78u : c >> 1;
        table[i] = c;
    }
    return table;
}();

void appendLittleEndian(std::string& out, uint64_t value, int bytes)
{
    for (int i = 0; i < bytes; ++i)
        out.push_back(static_cast<char>((value >> (8 * i)) & 0xff));
}

} // namespace

uint32_t crc32c(std::string_view data, uint32_t crc)
{
    crc = ~crc;
    for (const char c : data)
        crc = kTable[(crc ^ static_cast<uint8_t>(c)) & 0xff] ^ (crc >> 8);
    return ~crc;
}

uint32_t maskedCrc32c(std::string_view data)
{
    const uint32_t crc = crc32c(data);
    return ((crc >> 15) | (crc << 17)) + 0xa282ead8u;
}

void appendRecord(std::string& out, std::string_view data)
{
    const size_t start = out.size();
    appendLittleEndian(out, data.size(), 8);
    const uint32_t lengthCrc = maskedCrc32c(std::string_view(out).substr(start, 8));
    appendLittleEndian(out, lengthCrc, 4);
    out.append(data);
    appendLittleEndian(out, maskedCrc32c(data), 4);
}

} // namespace strata::app::tensorboard
