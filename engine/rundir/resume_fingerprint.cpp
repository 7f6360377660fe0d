#include "strata/rundir/resume_fingerprint.h"

#include "strata/schema/data_files.h"
#include "strata/schema/layer_spec.h"

#include <zlib.h>

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <optional>

namespace strata::run {

namespace fs = std::filesystem;
using Json = nlohmann::ordered_json;

namespace {

struct Digest {
    uLong crc = crc32(0L, Z_NULL, 0);
    uint64_t bytes = 0;

    void add(const void* data, size_t size)
    {
        crc = crc32_z(crc, static_cast<const Bytef*>(data), size);
    }
    void addFile(const std::string& path)
    {
        const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
        if (fd < 0)
            throw DataError(path, std::string("cannot read it to identify the data: ") + std::strerror(errno));
        std::vector<char> buffer(1 << 20);
        for (;;) {
            const ssize_t n = ::read(fd, buffer.data(), buffer.size());
            if (n < 0 && errno == EINTR)
                continue;
            if (n < 0) {
                const int error = errno;
                ::close(fd);
                throw DataError(path, std::string("cannot read it to identify the data: ") + std::strerror(error));
            }
            if (n == 0)
                break;
            add(buffer.data(), static_cast<size_t>(n));
            bytes += static_cast<uint64_t>(n);
        }
        ::close(fd);
    }
    std::string crcText() const
    {
        char text[16];
        std::snprintf(text, sizeof text, "%08lx", static_cast<unsigned long>(crc));
        return text;
    }
};

// Every field of each layer, defaults included: a default that changes in a later Strata is
// then a difference, not a silent change.
Json canonicalModel(const schema::ModelSpec& model)
{
    Json layers = Json::array();
    for (const auto& l : model.layers) {
        Json j{{"type", l.type}, {"name", l.name}};
        if (const schema::LayerType* type = schema::findLayerType(l.type))
            for (const auto& f : type->fields)
                j[f.name] = l.config.contains(f.name) ? l.config[f.name] : f.defaultValue;
        layers.push_back(std::move(j));
    }
    return Json{{"input_shape", model.inputShape.dims()}, {"layers", std::move(layers)}};
}

int64_t countTasks(const schema::Experiment& e, std::initializer_list<const char*> types)
{
    int64_t n = 0;
    for (const auto& name : schema::taskNames(e.cluster))
        for (const char* type : types)
            n += name.starts_with(std::string(type) + ":") ? 1 : 0;
    return n;
}

// Lists compared item by item: layers, data files. Lists of numbers (shapes) are one value.
bool itemwise(const Json& v)
{
    return v.is_array() && std::any_of(v.begin(), v.end(), [](const Json& x) { return x.is_object() || x.is_string(); });
}

std::string valueText(const Json* v) { return v ? v->dump(-1, ' ', false, Json::error_handler_t::replace) : "absent"; }

void compare(const Json* a, const Json* b, const std::string& path, std::vector<ResumeError::Difference>& out)
{
    if (a && b && a->is_object() && b->is_object()) {
        // Of two things of different types (optimizers, layers) the fields of one type only
        // follow from the type: the type's difference says it.
        const bool sameType = a->value("type", Json()) == b->value("type", Json());
        for (const auto& [key, value] : a->items()) {
            const auto other = b->find(key);
            if (other != b->end() || sameType)
                compare(&value, other == b->end() ? nullptr : &*other, path.empty() ? key : path + "." + key, out);
        }
        if (sameType)
            for (const auto& [key, value] : b->items())
                if (!a->contains(key))
                    compare(nullptr, &value, path.empty() ? key : path + "." + key, out);
        return;
    }
    if (a && b && a->is_array() && b->is_array() && (itemwise(*a) || itemwise(*b))) {
        for (size_t i = 0; i < std::max(a->size(), b->size()); ++i)
            compare(i < a->size() ? &(*a)[i] : nullptr, i < b->size() ? &(*b)[i] : nullptr,
                    path + "[" + std::to_string(i) + "]", out);
        return;
    }
    if (!a || !b || *a != *b)
        out.push_back({path, valueText(a), valueText(b)});
}

} // namespace

std::string fileIdentity(const std::string& path)
{
    Digest digest;
    const fs::path p(path);
    std::error_code ec;
    if (fs::is_directory(p, ec)) {
        std::vector<std::string> files;
        for (auto it = fs::recursive_directory_iterator(p, ec); !ec && it != fs::recursive_directory_iterator();
             it.increment(ec))
            if (it->is_regular_file(ec))
                files.push_back(fs::relative(it->path(), p).string());
        if (ec)
            throw DataError(path, "cannot list it to identify the data: " + ec.message());
        std::sort(files.begin(), files.end());
        for (const auto& name : files) {
            digest.add(name.c_str(), name.size() + 1); // with its '\0': names and contents cannot run together
            digest.addFile((p / name).string());
        }
        return p.filename().string() + "/: " + std::to_string(files.size()) + " files, " +
               std::to_string(digest.bytes) + " bytes, crc32 " + digest.crcText();
    }
    digest.addFile(path);
    return p.filename().string() + ": " + std::to_string(digest.bytes) + " bytes, crc32 " + digest.crcText();
}

Json resumeFingerprint(const schema::Experiment& e, int64_t replicas)
{
    const Json document = schema::experimentToJson(e);
    const bool parameterServer = e.strategy.effectiveType() == "ParameterServer";
    const int64_t workers = std::max<int64_t>(
        1, parameterServer ? countTasks(e, {"worker"})
                           : (e.strategy.effectiveType() == "MultiWorkerMirrored" ? countTasks(e, {"chief", "worker"}) : 1));

    Json strategy{{"type", e.strategy.effectiveType()}, {"replicas", replicas}, {"workers", workers}};
    if (parameterServer) {
        strategy["partitioner"] = schema::partitionerToJson(e.strategy.partitioner);
        strategy["max_staleness"] = e.strategy.maxStaleness;
        strategy["ps_tasks"] = countTasks(e, {"ps"});
    }

    const auto& t = e.training;
    Json training{{"batch_size", t.batchSize},
                  {"steps_per_epoch", t.stepsPerEpoch},
                  {"loss", document["training"]["loss"]},
                  {"optimizer", document["training"]["optimizer"]},
                  {"lr_scaling", t.lrScaling},
                  {"precision", t.precision}};

    // The data by content, not by where it lies: a copy elsewhere is the same data.
    Json source = document["data"]["source"];
    for (const char* path : {"dir", "train_images", "train_labels", "test_images", "test_labels", "train", "test"})
        source.erase(path);
    source["normalize"] = e.data.source.normalize;
    Json files = Json::array();
    for (const std::string& file : schema::dataFiles(e))
        files.push_back(fileIdentity(file));
    Json data{{"source", std::move(source)},
              {"files", std::move(files)},
              {"train_limit", e.data.trainLimit},
              // The examples held out of training (Keras' validation_split); 0 when none are.
              {"validation_split", e.data.validation == "split" ? e.data.validationSplit : 0.0},
              {"shuffle", e.data.shuffle}};
    if (workers > 1)
        data["shard_policy"] = e.data.shardPolicy; // one worker is never sharded

    const Json fingerprint{{"version", kFingerprintVersion}, {"seed", e.seed},         {"model", canonicalModel(e.model)},
                           {"training", training},          {"strategy", strategy}, {"data", data}};
    // As a checkpoint's header gives it back (numbers read as the parser reads them).
    return Json::parse(fingerprint.dump());
}

std::vector<ResumeError::Difference> fingerprintDifferences(const Json& checkpoint, const Json& experiment)
{
    std::vector<ResumeError::Difference> out;
    compare(&checkpoint, &experiment, "", out);
    return out;
}

} // namespace strata::run
