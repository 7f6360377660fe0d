#pragma once
// Variable placement for ParameterServer training, with TensorFlow's semantics
// (tf.distribute.experimental.ParameterServerStrategy and its partitioners):
// - a partitioner says how many shards a variable is split into along its first axis:
//   FixedShards(num_shards), MinSize(min_shard_bytes, max_shards), MaxSize(max_shard_bytes,
//   max_shards), with the formulas of tf.distribute.experimental.partitioners;
// - rows are divided "div" style: the first (rows % shards) shards get one row more
//   (10 rows in 4 shards: 3, 3, 2, 2);
// - shards and unsplit variables are placed round-robin over the ps tasks with one counter
//   that counts every variable and every shard, in the order the model creates them.

#include "strata/core/shape.h"
#include "strata/schema/experiment.h"

#include <cstdint>
#include <string>
#include <vector>

namespace strata::distribute {

// The number of shards the partitioner gives a variable of `shape` (elements of
// `elementBytes`), before TensorFlow's clamp to the row count; 1 without a partitioner.
int64_t partitionCount(const schema::PartitionerSpec& partitioner, const Shape& shape, int64_t elementBytes = 4);

// The row counts of `shards` shards of `rows` rows ("div" partitioning).
std::vector<int64_t> shardRows(int64_t rows, int64_t shards);

struct VariableShard {
    std::string name;    // "dense/kernel/part_0" (the variable's own name when it is not split)
    int ps = 0;          // which ps task holds it
    int64_t rowBegin = 0, rowEnd = 0;
    Shape shape;
    int64_t bytes() const { return shape.numel() * 4; }
};

struct VariableShards {
    std::string name; // "dense/kernel"
    Shape shape;
    std::vector<VariableShard> shards; // in row order
};

struct VariableDescription {
    std::string name;
    Shape shape;
};

// Every variable's shards and their ps tasks, for `psCount` parameter servers.
std::vector<VariableShards> placeVariables(const std::vector<VariableDescription>& variables,
                                           const schema::PartitionerSpec& partitioner, int psCount);

} // namespace strata::distribute
