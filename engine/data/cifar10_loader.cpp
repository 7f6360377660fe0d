// CIFAR-10 binary version (https://www.cs.toronto.edu/~kriz/cifar.html): records of one
// label byte and a 32x32 image stored as three planes (R, G, B), each row-major.
#include "strata/data/loaders.h"

#include "strata/core/error.h"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>

namespace strata::data {

namespace {

constexpr int64_t kSide = 32;
constexpr int64_t kChannels = 3;
constexpr int64_t kPixels = kSide * kSide;
constexpr int64_t kImageBytes = kPixels * kChannels;
constexpr int64_t kRecordBytes = 1 + kImageBytes;
constexpr int kClasses = 10;

std::vector<uint8_t> readFile(const std::string& file)
{
    std::error_code ec;
    if (!std::filesystem::exists(file, ec))
        throw DataError(file, "file not found");
    if (!std::filesystem::is_regular_file(file, ec))
        throw DataError(file, "is not a regular file");
    std::ifstream in(file, std::ios::binary);
    if (!in)
        throw DataError(file, std::string("cannot open: ") + std::strerror(errno));
    const auto size = std::filesystem::file_size(file, ec);
    if (ec)
        throw DataError(file, "cannot read its size: " + ec.message());
    std::vector<uint8_t> bytes(static_cast<size_t>(size));
    in.read(reinterpret_cast<char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
    if (static_cast<size_t>(in.gcount()) != bytes.size())
        throw DataError(file, "read error after " + std::to_string(in.gcount()) + " of " + std::to_string(size)
                                  + " bytes");
    return bytes;
}

} // namespace

Dataset loadCifar10(const std::vector<std::string>& files, bool normalize)
{
    STRATA_CHECK(!files.empty(), "no CIFAR-10 batch files given");
    std::vector<uint8_t> pixels;
    std::vector<float> labels;
    std::vector<int64_t> fileStarts; // each batch file is a file for FILE sharding
    for (const std::string& file : files) {
        fileStarts.push_back(static_cast<int64_t>(labels.size()));
        const std::vector<uint8_t> bytes = readFile(file);
        const auto size = static_cast<int64_t>(bytes.size());
        if (size == 0 || size % kRecordBytes != 0)
            throw DataError(file, "size " + std::to_string(size) + " bytes is not a positive multiple of "
                                      + std::to_string(kRecordBytes)
                                      + " (a CIFAR-10 record is 1 label byte and 3072 pixel bytes); truncated "
                                        "or not a CIFAR-10 binary batch");
        const int64_t records = size / kRecordBytes;
        const size_t base = pixels.size();
        pixels.resize(base + static_cast<size_t>(records * kImageBytes));
        labels.reserve(labels.size() + static_cast<size_t>(records));
        for (int64_t r = 0; r < records; ++r) {
            const uint8_t* record = bytes.data() + r * kRecordBytes;
            if (record[0] >= kClasses)
                throw DataError(file, "record " + std::to_string(r) + " has label " + std::to_string(record[0])
                                          + ", CIFAR-10 labels are 0..9");
            labels.push_back(record[0]);
            // Planes (R, G, B) to channels-last (H, W, C), the layout Conv2D reads.
            const uint8_t* planes = record + 1;
            uint8_t* out = pixels.data() + base + static_cast<size_t>(r * kImageBytes);
            for (int64_t p = 0; p < kPixels; ++p)
                for (int64_t c = 0; c < kChannels; ++c)
                    out[p * kChannels + c] = planes[c * kPixels + p];
        }
    }
    const std::string description = "CIFAR-10 " + std::filesystem::path(files.front()).filename().string()
                                    + (files.size() > 1 ? " + " + std::to_string(files.size() - 1) + " more" : "")
                                    + " (" + std::to_string(labels.size()) + " images)";
    Dataset dataset(description, Shape{kSide, kSide, kChannels}, std::move(pixels), normalize ? 1.0f / 255.0f : 1.0f,
                    Shape{}, std::move(labels), kClasses);
    dataset.setFileStarts(std::move(fileStarts));
    return dataset;
}

} // namespace strata::data
