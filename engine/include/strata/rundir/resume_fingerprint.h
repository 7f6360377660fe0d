#pragma once
// A checkpoint's fingerprint: what it can be resumed by. The canonical values (defaults
// written out) of every experiment field that changes what training computes: the model,
// loss, optimizer, batch size, steps per epoch, precision, the strategy's type and variable
// layout (replicas, workers; ParameterServer's partitioner, staleness bound and ps tasks),
// the data (its source's settings and each file's size and CRC-32), shuffling and the seed.
// Fields that only change how long training goes on or what is reported (epochs, metrics,
// checkpoint frequency, threads, devices' names, event intervals, evaluation) are left out:
// training longer is a normal resume. docs/decisions.md ("Checkpoints and resume") lists
// every field and why.
//
// Stored as JSON in the checkpoint header's `extra.fingerprint`, paths as in the experiment
// document, so a refusal names each field with both values.

#include "strata/core/error.h"
#include "strata/schema/experiment.h"

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace strata::run {

// 1: the first fingerprint (Strata before it wrote none).
constexpr int kFingerprintVersion = 1;

// The fingerprint of `experiment` trained by `replicas` replicas in all. Reads every data file
// once (DataError naming a file that cannot be read).
nlohmann::ordered_json resumeFingerprint(const schema::Experiment& experiment, int64_t replicas);

// A data file's identity: "train-images-idx3-ubyte.gz: 26421856 bytes, crc32 3a1cbe0f"; a
// directory's (text data): "train/: 25000 files, 33145600 bytes, crc32 ..." over its files'
// relative names and contents in name order. The CRC of the whole content rather than of a
// header: a header (IDX's dimensions, say) stays the same when examples are changed, and
// reading the data once more costs little beside loading it.
std::string fileIdentity(const std::string& path);

// Every field whose value differs between a checkpoint's fingerprint and the experiment's, in
// the checkpoint's order (then fields only the experiment has). Objects are compared key by
// key, lists of objects (layers) item by item; any other value as a whole.
std::vector<ResumeError::Difference> fingerprintDifferences(const nlohmann::ordered_json& checkpoint,
                                                            const nlohmann::ordered_json& experiment);

} // namespace strata::run
