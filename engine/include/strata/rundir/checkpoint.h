#pragma once
// Checkpoints: weights, optimizer slots and training position in one file, written
// atomically (temporary file, fsync, rename, fsync of the directory), with a CRC over the
// data so a damaged file is detected rather than loaded.
//
// File layout: "STRATACK", uint32 format version, uint32 header length, the JSON header
// (position, tensor names/shapes/offsets, CRC), zero padding to 64 bytes, then the tensors'
// float32 values (little-endian), concatenated.

#include "strata/tensor/tensor.h"

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace strata::run {

struct Checkpoint {
    int64_t step = 0;        // optimizer steps completed
    int64_t epoch = 0;       // training epoch the next step belongs to
    int64_t stepInEpoch = 0; // position of the next step within that epoch
    int64_t streamBatch = 0; // next batch of the input stream
    nlohmann::ordered_json extra = nlohmann::ordered_json::object(); // running metric totals, optimizer info...
    std::vector<std::pair<std::string, Tensor>> tensors;

    const Tensor* find(const std::string& name) const;
};

// Writes `checkpoint` to `path` atomically (rundir/atomic_file.h). Throws IoError naming the path.
void writeCheckpoint(const std::string& path, const Checkpoint& checkpoint);
// Reads and verifies a checkpoint. Throws DataError naming the file and the damage.
Checkpoint readCheckpoint(const std::string& path);

// The checkpoints of one run: <dir>/ckpt-<step>.strata, newest two kept.
class CheckpointDirectory {
public:
    explicit CheckpointDirectory(std::string dir);

    // Writes a checkpoint for its step (removing temporaries a killed writer left), then
    // removes all but the newest two. Returns its path.
    std::string save(const Checkpoint& checkpoint);
    // The file of the checkpoint at `step`.
    std::string pathOf(int64_t step) const;
    // Paths of the checkpoints present, newest first.
    std::vector<std::string> list() const;
    // The newest checkpoint that reads back intact; damaged ones are reported through
    // `skipped` (path and reason) and passed over.
    std::optional<Checkpoint> latest(std::vector<std::string>* skipped = nullptr) const;

    const std::string& dir() const { return m_dir; }

private:
    std::string m_dir;
};

} // namespace strata::run
