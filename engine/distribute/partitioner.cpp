#include "strata/distribute/partitioner.h"

#include "strata/core/error.h"

#include <algorithm>
#include <cmath>

namespace strata::distribute {

int64_t partitionCount(const schema::PartitionerSpec& p, const Shape& shape, int64_t elementBytes)
{
    if (p.type.empty() || shape.rank() == 0)
        return 1;
    const int64_t rows = shape[0];
    if (p.type == "FixedShards") // FixedShardsPartitioner: min(num_shards, shape[0])
        return std::min(p.numShards, rows);
    const double totalBytes = static_cast<double>(shape.numel() * elementBytes);
    if (p.type == "MinSize") {
        // min_max_variable_partitioner: max(1, min(shape[0], max_shards, ceil(bytes / min_slice)))
        const auto wanted = static_cast<int64_t>(std::ceil(totalBytes / static_cast<double>(p.minShardBytes)));
        return std::max<int64_t>(1, std::min({rows, std::max<int64_t>(p.maxShards, 1), wanted}));
    }
    if (p.type == "MaxSize") {
        // variable_axis_size_partitioner: slices (rows) that fit one shard, then the shards
        // needed for every row, at most max_shards.
        if (rows == 0)
            return 1;
        const double bytesPerSlice = totalBytes / static_cast<double>(rows);
        const auto slicesPerShard =
            std::max<int64_t>(1, static_cast<int64_t>(std::floor(static_cast<double>(p.maxShardBytes) / bytesPerSlice)));
        int64_t shards = (rows + slicesPerShard - 1) / slicesPerShard;
        if (p.maxShards > 0)
            shards = std::min(shards, p.maxShards);
        return shards;
    }
    throw ConfigError("strategy.partitioner.type", "unknown partitioner \"" + p.type + "\"");
}

std::vector<int64_t> shardRows(int64_t rows, int64_t shards)
{
    STRATA_CHECK(shards >= 1 && shards <= std::max<int64_t>(rows, 1), "shard count out of range");
    std::vector<int64_t> sizes(static_cast<size_t>(shards), rows / shards);
    for (int64_t i = 0; i < rows % shards; ++i)
        ++sizes[static_cast<size_t>(i)];
    return sizes;
}

std::vector<VariableShards> placeVariables(const std::vector<VariableDescription>& variables,
                                           const schema::PartitionerSpec& partitioner, int psCount)
{
    STRATA_CHECK(psCount >= 1, "no ps task to place variables on");
    std::vector<VariableShards> out;
    int64_t counter = 0; // TensorFlow's _variable_count: every variable and every shard
    for (const auto& v : variables) {
        VariableShards placed{v.name, v.shape, {}};
        const int64_t rows = v.shape.rank() == 0 ? 1 : v.shape[0];
        // ParameterServerStrategyV2 clamps the partitioner's answer to the row count.
        const int64_t shards = std::max<int64_t>(1, std::min(partitionCount(partitioner, v.shape), rows));
        if (shards == 1) {
            placed.shards.push_back({v.name, static_cast<int>(counter++ % psCount), 0, rows, v.shape});
        } else {
            int64_t begin = 0;
            const auto sizes = shardRows(rows, shards);
            for (size_t i = 0; i < sizes.size(); ++i) {
                Shape shape = v.shape;
                shape[0] = sizes[i];
                placed.shards.push_back({v.name + "/part_" + std::to_string(i), static_cast<int>(counter++ % psCount),
                                         begin, begin + sizes[i], shape});
                begin += sizes[i];
            }
        }
        out.push_back(std::move(placed));
    }
    return out;
}

} // namespace strata::distribute
