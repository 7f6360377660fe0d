#pragma once
// What `start` and `slurm-task` share when they start a task's supervisor: the options passed
// on to `train`, and the facts of this process and the task's files they start from.

#include "cli.h"

#include <cstdint>
#include <string>
#include <vector>

namespace strata::cli {

// `train`'s options from this command's: --event-interval-ms, --device-interval-ms (numbers, or
// a UsageError now rather than in the trainer), --launch, and, with `checkpointChoice`,
// --fresh / --weights-only.
std::vector<std::string> trainOptionsOf(const Args& args, bool checkpointChoice);
// The size of `path` in bytes; 0 when it does not exist.
int64_t fileSize(const std::string& path);
// This executable's path (/proc/self/exe). Throws IoError.
std::string thisExecutable();

} // namespace strata::cli
