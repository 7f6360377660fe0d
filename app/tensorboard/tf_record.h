#pragma once
// TFRecord framing, the container of TensorFlow's event files (TensorFlow's
// core/lib/io/record_writer, TensorBoard's data/server/tf_record.rs): each record is
//
//   uint64 length | uint32 masked CRC-32C of those 8 bytes | data | uint32 masked CRC-32C of data
//
// all little-endian, where a CRC is masked as ((crc >> 15) | (crc << 17)) + 0xa282ead8.
// CRC-32C is the Castagnoli polynomial (iSCSI's), not zlib's CRC-32: Debian 12 packages no
// C/C++ library for it (abseil 20220623 predates absl::crc32c, Google's crc32c library is
// not in the archive), so it is the small table-driven loop in tf_record.cpp.
// Plain C++, no Qt.

#include <cstdint>
#include <string>
#include <string_view>

namespace strata::app::tensorboard {

// CRC-32C of `data`, continuing `crc` (0 to start).
uint32_t crc32c(std::string_view data, uint32_t crc = 0);
// TFRecord's masked CRC-32C.
uint32_t maskedCrc32c(std::string_view data);
// Appends `data` as one framed record to `out`.
void appendRecord(std::string& out, std::string_view data);

} // namespace strata::app::tensorboard
