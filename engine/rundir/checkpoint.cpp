#include "strata/rundir/checkpoint.h"

#include "strata/core/error.h"
#include "strata/rundir/atomic_file.h"

#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <type_traits>

namespace strata::run {

namespace fs = std::filesystem;
using Json = nlohmann::ordered_json;

namespace {

constexpr char kMagic[8] = {'S', 'T', 'R', 'A', 'T', 'A', 'C', 'K'};
constexpr uint32_t kFormatVersion = 1;
constexpr size_t kAlign = 64;

size_t alignUp(size_t n) { return (n + kAlign - 1) / kAlign * kAlign; }

// An integer of the header: a float (which the writer never writes) would convert with
// undefined behaviour beyond the integer's range, so it is damage.
template<typename T>
T headerInteger(const Json& value, const std::string& what, const std::string& path)
{
    const bool fits = std::is_signed_v<T> ? value.is_number_integer() &&
                                                !(value.is_number_unsigned() && value.get<uint64_t>() > INT64_MAX)
                                          : value.is_number_unsigned();
    if (!fits)
        throw DataError(path, "checkpoint header is damaged: " + what + " is " + value.dump() + ", not an integer");
    return value.get<T>();
}

int64_t stepOfFile(const fs::path& p)
{
    const std::string name = p.filename().string();
    if (!name.starts_with("ckpt-") || !name.ends_with(".strata"))
        return -1;
    const std::string digits = name.substr(5, name.size() - 5 - 7);
    if (digits.empty() || !std::all_of(digits.begin(), digits.end(), ::isdigit))
        return -1;
    return std::stoll(digits);
}

} // namespace

const Tensor* Checkpoint::find(const std::string& name) const
{
    for (const auto& [n, t] : tensors)
        if (n == name)
            return &t;
    return nullptr;
}

void writeCheckpoint(const std::string& path, const Checkpoint& c)
{
    Json tensors = Json::array();
    size_t offset = 0;
    uLong crc = crc32(0L, Z_NULL, 0);
    for (const auto& [name, t] : c.tensors) {
        tensors.push_back({{"name", name}, {"shape", t.shape().dims()}, {"offset", offset}});
        offset += t.bytes();
        crc = crc32(crc, reinterpret_cast<const Bytef*>(t.data()), static_cast<uInt>(t.bytes()));
    }
    const Json header{{"step", c.step},         {"epoch", c.epoch},   {"step_in_epoch", c.stepInEpoch},
                      {"stream_batch", c.streamBatch}, {"extra", c.extra}, {"tensors", tensors},
                      {"data_bytes", offset},   {"data_crc32", crc}};
    const std::string text = header.dump();
    const uint32_t headerLength = static_cast<uint32_t>(text.size());

    AtomicFile file(path, "checkpoint");
    file.write(kMagic, sizeof kMagic);
    file.write(&kFormatVersion, sizeof kFormatVersion);
    file.write(&headerLength, sizeof headerLength);
    file.write(text);
    const size_t start = alignUp(16 + text.size());
    file.write(std::string(start - 16 - text.size(), '\0'));
    for (const auto& [name, t] : c.tensors)
        file.write(t.data(), t.bytes());
    file.commit();
}

namespace {

// The header's JSON, after the magic and format checks; `textSize` its length in the file.
Json readHeader(std::ifstream& in, const std::string& path, uintmax_t fileSize, size_t& textSize)
{
    char magic[8];
    uint32_t version = 0, headerLength = 0;
    in.read(magic, sizeof magic);
    in.read(reinterpret_cast<char*>(&version), sizeof version);
    in.read(reinterpret_cast<char*>(&headerLength), sizeof headerLength);
    if (!in || std::memcmp(magic, kMagic, sizeof magic) != 0)
        throw DataError(path, "not a Strata checkpoint (bad magic)");
    if (version != kFormatVersion)
        throw DataError(path, "checkpoint format " + std::to_string(version) + " is not supported");
    if (headerLength > fileSize - 16)
        throw DataError(path, "checkpoint header is truncated: it declares " + std::to_string(headerLength) +
                                  " bytes, the file holds " + std::to_string(fileSize - 16) + " after its first 16");
    std::string text(headerLength, '\0');
    in.read(text.data(), headerLength);
    if (!in)
        throw DataError(path, "checkpoint header is truncated");
    textSize = text.size();
    try {
        return Json::parse(text);
    } catch (const Json::exception& e) {
        throw DataError(path, std::string("checkpoint header is damaged: ") + e.what());
    }
}

// The tensors as the header lays them out, each checked against the `dataBytes` there.
std::vector<std::pair<std::string, Shape>> tensorLayout(const Json& header, const std::string& path,
                                                        uintmax_t dataBytes)
{
    std::vector<std::pair<std::string, Shape>> layout;
    uintmax_t offset = 0;
    for (const auto& t : header.at("tensors")) {
        std::string name = t.at("name").get<std::string>();
        const Json& shapeJson = t.at("shape");
        if (!shapeJson.is_array())
            throw DataError(path, "checkpoint header is damaged: the shape of tensor " + name + " is " +
                                      shapeJson.dump());
        std::vector<int64_t> dims;
        for (const Json& d : shapeJson)
            dims.push_back(headerInteger<int64_t>(d, "a dimension of tensor " + name, path));
        const std::string shape = Shape(dims).str();
        uintmax_t bytes = sizeof(float);
        for (int64_t d : dims) {
            if (d < 0)
                throw DataError(path, "checkpoint header is damaged: tensor " + name + " has shape " + shape);
            bytes = d == 0 || bytes <= dataBytes / static_cast<uintmax_t>(d) ? bytes * static_cast<uintmax_t>(d)
                                                                              : dataBytes + 1;
        }
        if (t.contains("offset") && headerInteger<uint64_t>(t.at("offset"), "the offset of " + name, path) != offset)
            throw DataError(path, "checkpoint header is damaged: tensor " + name + " is at offset " +
                                      t.at("offset").dump() + ", where the tensors before it end at " +
                                      std::to_string(offset));
        if (bytes > dataBytes - offset)
            throw DataError(path, "checkpoint data is truncated (tensor " + name + " of shape " + shape + " needs " +
                                      (bytes > dataBytes ? std::string("more than the file's ")
                                                         : std::to_string(bytes) + " of the ") +
                                      std::to_string(dataBytes - offset) + " bytes left)");
        offset += bytes;
        layout.emplace_back(std::move(name), Shape(dims));
    }
    return layout;
}

} // namespace

Checkpoint readCheckpoint(const std::string& path)
{
    std::ifstream in(path, std::ios::binary);
    if (!in)
        throw DataError(path, std::string("cannot open checkpoint: ") + std::strerror(errno));
    // Every length the file declares is checked against what it holds before anything is
    // allocated for it: a damaged (or crafted) header cannot ask for more memory than the file.
    std::error_code ec;
    const uintmax_t fileSize = fs::file_size(path, ec);
    if (ec)
        throw DataError(path, "cannot read the checkpoint's size: " + ec.message());
    size_t textSize = 0;
    const Json header = readHeader(in, path, fileSize, textSize);
    Checkpoint c;
    try {
        c.step = headerInteger<int64_t>(header.at("step"), "step", path);
        c.epoch = headerInteger<int64_t>(header.at("epoch"), "epoch", path);
        c.stepInEpoch = headerInteger<int64_t>(header.at("step_in_epoch"), "step_in_epoch", path);
        c.streamBatch = headerInteger<int64_t>(header.at("stream_batch"), "stream_batch", path);
        c.extra = header.at("extra");
        const uintmax_t dataStart = alignUp(16 + textSize);
        const uintmax_t dataBytes = fileSize > dataStart ? fileSize - dataStart : 0;
        auto layout = tensorLayout(header, path, dataBytes);
        in.seekg(static_cast<std::streamoff>(dataStart));
        uLong crc = crc32(0L, Z_NULL, 0);
        for (auto& [name, shape] : layout) {
            Tensor tensor(std::move(shape));
            in.read(reinterpret_cast<char*>(tensor.data()), static_cast<std::streamsize>(tensor.bytes()));
            if (!in)
                throw DataError(path, "checkpoint data is truncated (tensor " + name + ")");
            crc = crc32(crc, reinterpret_cast<const Bytef*>(tensor.data()), static_cast<uInt>(tensor.bytes()));
            c.tensors.emplace_back(std::move(name), std::move(tensor));
        }
        if (crc != headerInteger<uint64_t>(header.at("data_crc32"), "data_crc32", path))
            throw DataError(path, "checkpoint data is damaged (CRC mismatch)");
    } catch (const Json::exception& e) {
        throw DataError(path, std::string("checkpoint header is incomplete: ") + e.what());
    }
    return c;
}

CheckpointDirectory::CheckpointDirectory(std::string dir) : m_dir(std::move(dir)) {}

std::vector<std::string> CheckpointDirectory::list() const
{
    std::vector<std::pair<int64_t, std::string>> found;
    std::error_code ec;
    for (const auto& entry : fs::directory_iterator(m_dir, ec)) {
        const int64_t step = stepOfFile(entry.path());
        if (step >= 0)
            found.emplace_back(step, entry.path().string());
    }
    std::sort(found.rbegin(), found.rend());
    std::vector<std::string> paths;
    for (auto& [step, path] : found)
        paths.push_back(std::move(path));
    return paths;
}

std::string CheckpointDirectory::pathOf(int64_t step) const
{
    char name[40];
    std::snprintf(name, sizeof name, "ckpt-%010lld.strata", static_cast<long long>(step));
    return (fs::path(m_dir) / name).string();
}

std::string CheckpointDirectory::save(const Checkpoint& checkpoint)
{
    std::error_code ec;
    fs::create_directories(m_dir, ec);
    if (ec)
        throw IoError("cannot create checkpoint directory " + m_dir + ": " + ec.message());
    // Temporaries of a writer that was killed: only this process writes here, and on a full
    // disk their space is what the new checkpoint needs.
    for (const auto& entry : fs::directory_iterator(m_dir, ec))
        if (isAtomicFileTemporary(entry.path().filename().string()))
            fs::remove(entry.path(), ec);
    const std::string path = pathOf(checkpoint.step);
    writeCheckpoint(path, checkpoint);
    // Keep the newest two: if this one is somehow unreadable later, the previous one remains.
    const auto paths = list();
    for (size_t i = 2; i < paths.size(); ++i)
        fs::remove(paths[i], ec);
    return path;
}

std::optional<Checkpoint> CheckpointDirectory::latest(std::vector<std::string>* skipped) const
{
    for (const auto& path : list()) {
        try {
            return readCheckpoint(path);
        } catch (const Error& e) {
            if (skipped)
                skipped->push_back(e.what());
        }
    }
    return std::nullopt;
}

} // namespace strata::run
