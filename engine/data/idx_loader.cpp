// IDX reader (http://yann.lecun.com/exdb/mnist/ format): a big-endian header of two zero
// bytes, an element-type byte, a rank byte and `rank` uint32 dimensions, then the elements.
#include "strata/data/loaders.h"

#include "strata/core/error.h"

#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>

namespace strata::data {

namespace {

constexpr int kUnsignedByte = 0x08;
// Deflate cannot expand data more than this (zlib's technical details: 1032:1 at best), so a
// gzip file of n bytes holds at most n * 1032 bytes: a header that promises more is wrong.
constexpr uint64_t kMaxDeflateRatio = 1032;
// The data are read in pieces of this size, the array growing with what arrives, so that a
// header promising more than the stream holds never allocates what it promised.
constexpr size_t kReadChunk = size_t(64) << 20;

struct IdxArray {
    std::vector<int64_t> dims;
    std::vector<uint8_t> values;
};

std::string hex(unsigned value)
{
    static const char* digits = "0123456789abcdef";
    return std::string("0x") + digits[(value >> 4) & 0xf] + digits[value & 0xf];
}

// gzread with the zlib error turned into a DataError. Returns the bytes read (fewer than
// `size` only at the end of the data).
class GzFile {
public:
    explicit GzFile(const std::string& file) : m_file(file)
    {
        std::error_code ec;
        if (!std::filesystem::exists(file, ec))
            throw DataError(file, "file not found");
        if (std::filesystem::is_directory(file, ec))
            throw DataError(file, "is a directory, expected an IDX file");
        m_gz = gzopen(file.c_str(), "rb");
        if (!m_gz)
            throw DataError(file, std::string("cannot open: ") + (errno ? std::strerror(errno) : "out of memory"));
    }
    ~GzFile() { gzclose(m_gz); }

    // Whether the file is gzip data (gzread passes a plain file through). Valid after a read.
    bool compressed() const { return gzdirect(m_gz) == 0; }

    GzFile(const GzFile&) = delete;
    GzFile& operator=(const GzFile&) = delete;

    size_t read(void* buffer, size_t size)
    {
        auto* out = static_cast<unsigned char*>(buffer);
        size_t done = 0;
        while (done < size) {
            // gzread takes an unsigned length but returns an int: read in chunks below INT_MAX.
            const auto chunk = static_cast<unsigned>(std::min<size_t>(size - done, 1u << 30));
            const int n = gzread(m_gz, out + done, chunk);
            if (n < 0)
                fail();
            if (n == 0)
                break;
            done += static_cast<size_t>(n);
        }
        // A truncated gzip stream may return its last bytes and flag the error only here.
        int errnum = Z_OK;
        gzerror(m_gz, &errnum);
        if (errnum != Z_OK)
            fail();
        return done;
    }

private:
    [[noreturn]] void fail()
    {
        int errnum = Z_OK;
        const char* message = gzerror(m_gz, &errnum);
        std::string detail = message && *message ? message : "unknown zlib error";
        // zlib prefixes the path, which DataError already names.
        if (detail.starts_with(m_file + ": "))
            detail.erase(0, m_file.size() + 2);
        if (errnum == Z_BUF_ERROR)
            throw DataError(m_file, "truncated: the gzip stream ends early (" + detail + ")");
        if (errnum == Z_ERRNO)
            throw DataError(m_file, std::string("read error: ") + std::strerror(errno));
        throw DataError(m_file, "corrupt gzip data: " + detail);
    }

    std::string m_file;
    gzFile m_gz = nullptr;
};

IdxArray readIdx(const std::string& file)
{
    GzFile in(file);
    unsigned char magic[4] = {};
    const size_t got = in.read(magic, sizeof magic);
    if (got == 0)
        throw DataError(file, "is empty");
    if (got < sizeof magic)
        throw DataError(file, "truncated: the file ends inside the 4-byte IDX magic number");
    if (magic[0] != 0 || magic[1] != 0)
        throw DataError(file, "not an IDX file: bad magic number (first bytes " + hex(magic[0]) + " " + hex(magic[1])
                                  + ", expected 0x00 0x00)");
    if (magic[2] != kUnsignedByte)
        throw DataError(file, "unsupported IDX element type " + hex(magic[2])
                                  + " (only unsigned byte, 0x08, is supported)");
    const int rank = magic[3];
    if (rank == 0)
        throw DataError(file, "IDX header has rank 0 (no dimensions)");

    IdxArray array;
    std::vector<unsigned char> header(static_cast<size_t>(rank) * 4);
    if (in.read(header.data(), header.size()) < header.size())
        throw DataError(file, "truncated: the file ends inside the IDX header (" + std::to_string(rank)
                                  + " dimensions expected)");
    int64_t total = 1;
    for (int i = 0; i < rank; ++i) {
        const unsigned char* b = header.data() + 4 * i;
        const int64_t dim = (int64_t(b[0]) << 24) | (int64_t(b[1]) << 16) | (int64_t(b[2]) << 8) | int64_t(b[3]);
        // 2^40 bytes is far beyond any dataset held in memory; a larger product means a bad header.
        if (dim > 0 && total > (int64_t(1) << 40) / dim)
            throw DataError(file, "IDX header promises an implausibly large array");
        total *= dim;
        array.dims.push_back(dim);
    }

    // What the file can hold bounds what its header may promise, before anything is allocated.
    std::error_code ec;
    if (const uint64_t fileSize = std::filesystem::file_size(file, ec); !ec) {
        const uint64_t headerBytes = 4 + header.size();
        const auto size = static_cast<uint64_t>(total);
        if (!in.compressed() && size > fileSize - std::min(fileSize, headerBytes))
            throw DataError(file, "truncated: the header promises " + std::to_string(total)
                                      + " bytes of data, the file has " + std::to_string(fileSize - headerBytes));
        if (in.compressed() && fileSize <= UINT64_MAX / kMaxDeflateRatio && size + headerBytes > fileSize * kMaxDeflateRatio)
            throw DataError(file, "the header promises " + std::to_string(total) + " bytes of data, more than a gzip "
                                      "file of " + std::to_string(fileSize) + " bytes can hold (deflate expands at most "
                                      + std::to_string(kMaxDeflateRatio) + " times)");
    }
    size_t read = 0;
    while (read < static_cast<size_t>(total)) {
        array.values.resize(std::min(static_cast<size_t>(total), read + kReadChunk));
        const size_t want = array.values.size() - read;
        const size_t arrived = in.read(array.values.data() + read, want);
        read += arrived;
        if (arrived < want)
            throw DataError(file, "truncated: the header promises " + std::to_string(total)
                                      + " bytes of data, the file has " + std::to_string(read));
    }
    unsigned char extra;
    if (in.read(&extra, 1) != 0)
        throw DataError(file, "trailing data after the " + std::to_string(total) + " bytes the header promises");
    return array;
}

std::string shapeOf(const std::vector<int64_t>& dims) { return Shape(dims).str(); }

} // namespace

Dataset loadIdx(const std::string& imagesFile, const std::string& labelsFile, bool normalize)
{
    IdxArray images = readIdx(imagesFile);
    if (images.dims.size() < 2)
        throw DataError(imagesFile, "expected images of rank >= 2 (count, rows, ...), the header says "
                                        + shapeOf(images.dims));
    IdxArray labels = readIdx(labelsFile);
    if (labels.dims.size() != 1)
        throw DataError(labelsFile, "expected labels of rank 1, the header says " + shapeOf(labels.dims));

    const int64_t count = images.dims[0];
    if (labels.dims[0] != count)
        throw DataError(imagesFile, "holds " + std::to_string(count) + " images but " + labelsFile + " holds "
                                        + std::to_string(labels.dims[0]) + " labels");
    if (count == 0)
        throw DataError(imagesFile, "holds no images");
    Shape featureShape(std::vector<int64_t>(images.dims.begin() + 1, images.dims.end()));
    if (featureShape.numel() == 0)
        throw DataError(imagesFile, "images have an empty shape " + featureShape.str());

    std::vector<float> y(labels.values.begin(), labels.values.end());
    const int64_t numClasses = *std::max_element(labels.values.begin(), labels.values.end()) + 1;

    const std::string description = std::filesystem::path(imagesFile).filename().string() + " ("
                                    + std::to_string(count) + " images " + featureShape.str() + ", "
                                    + std::to_string(numClasses) + " classes)";
    Dataset dataset(description, std::move(featureShape), std::move(images.values), normalize ? 1.0f / 255.0f : 1.0f,
                    Shape{}, std::move(y), numClasses);
    dataset.setFileStarts({0}); // the images and their labels are one file for FILE sharding
    return dataset;
}

} // namespace strata::data
