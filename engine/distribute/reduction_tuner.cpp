#include "strata/distribute/reduction_tuner.h"

#include "strata/core/error.h"

#include <algorithm>

namespace strata::distribute {

std::vector<AllReduceAlgorithm> bucketAlgorithms(const ReductionChoice& choice, int ranks)
{
    std::vector<AllReduceAlgorithm> out;
    for (const int64_t bytes : choice.bucketSizes)
        out.push_back(choice.algorithm.value_or(allReduceAlgorithmFor(ranks, static_cast<size_t>(bytes))));
    return out;
}

std::string choiceAlgorithmText(const ReductionChoice& choice, int ranks)
{
    const auto algorithms = bucketAlgorithms(choice, ranks);
    if (!algorithms.empty() && std::all_of(algorithms.begin(), algorithms.end(),
                                           [&](AllReduceAlgorithm a) { return a == algorithms.front(); }))
        return algorithmName(algorithms.front());
    return std::string(algorithmName(AllReduceAlgorithm::HalvingDoubling)) + " up to " +
           std::to_string(kHalvingDoublingUpToBytes / 1024) + " KiB, the " + algorithmName(AllReduceAlgorithm::Ring) +
           " above";
}

std::string bucketSizeText(int64_t bytes)
{
    if (bytes > 0 && bytes % (int64_t{1} << 20) == 0)
        return std::to_string(bytes >> 20) + " MiB";
    if (bytes > 0 && bytes % 1024 == 0)
        return std::to_string(bytes / 1024) + " KiB";
    return std::to_string(bytes) + " bytes";
}

std::vector<int64_t> candidateBucketBytes(int64_t defaultBucketBytes)
{
    std::vector<int64_t> sizes{defaultBucketBytes};
    for (int64_t bytes = int64_t{64} << 10; bytes <= int64_t{64} << 20; bytes *= 4)
        if (bytes != defaultBucketBytes)
            sizes.push_back(bytes);
    std::sort(sizes.begin() + 1, sizes.end());
    return sizes;
}

std::vector<ReductionChoice> reductionCandidates(int ranks, int64_t defaultBucketBytes,
                                                 const std::function<std::vector<int64_t>(int64_t)>& layout)
{
    std::vector<ReductionChoice> out;
    std::vector<std::pair<std::vector<int64_t>, std::vector<AllReduceAlgorithm>>> seen;
    const std::optional<AllReduceAlgorithm> ways[] = {std::nullopt, AllReduceAlgorithm::Ring,
                                                      AllReduceAlgorithm::HalvingDoubling};
    for (const int64_t bytes : candidateBucketBytes(defaultBucketBytes))
        for (const auto& way : ways) {
            ReductionChoice c{bytes, way, layout(bytes)};
            auto key = std::make_pair(c.bucketSizes, bucketAlgorithms(c, ranks));
            if (std::find(seen.begin(), seen.end(), key) != seen.end())
                continue;
            seen.push_back(std::move(key));
            out.push_back(std::move(c));
        }
    return out;
}

double median(std::vector<double> values)
{
    if (values.empty())
        return 0;
    const size_t mid = values.size() / 2;
    std::nth_element(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(mid), values.end());
    const double upper = values[mid];
    if (values.size() % 2 == 1)
        return upper;
    return (*std::max_element(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(mid)) + upper) / 2;
}

ReductionTuner::ReductionTuner(std::vector<ReductionChoice> candidates, int64_t bytesPerStep, TuningOptions options)
    : m_bytesPerStep(bytesPerStep), m_options(options)
{
    STRATA_CHECK(!candidates.empty(), "tuning needs a candidate, the default");
    STRATA_CHECK(options.warmupSteps >= 0 && options.rounds >= 1, "tuning needs a sample per candidate");
    for (auto& c : candidates)
        m_candidates.push_back({std::move(c), {}});
}

int64_t ReductionTuner::decisionStep() const
{
    const auto n = static_cast<int64_t>(m_candidates.size());
    return m_options.warmupSteps + (m_options.rounds + 1) * n;
}

size_t ReductionTuner::candidateAt(int64_t step) const
{
    if (m_chosen)
        return *m_chosen;
    const int64_t k = step - m_options.warmupSteps;
    if (k < 0 || step >= decisionStep())
        return 0;
    const auto n = static_cast<int64_t>(m_candidates.size());
    // Rotated each round: no candidate always follows the same one.
    return static_cast<size_t>((k % n + k / n) % n);
}

void ReductionTuner::record(int64_t step, double microseconds)
{
    const int64_t k = step - m_options.warmupSteps;
    const auto n = static_cast<int64_t>(m_candidates.size());
    if (m_chosen || k < n || step >= decisionStep()) // warm-up, the first round, or tuned
        return;
    m_candidates[candidateAt(step)].samples.push_back(microseconds);
}

double ReductionTuner::score(size_t index) const
{
    const double m = median(m_candidates[index].samples);
    return m > 0 ? static_cast<double>(m_bytesPerStep) / m : 0;
}

int ReductionTuner::roundsWon(size_t index) const
{
    // One sample per candidate per round, in round order.
    const auto& mine = m_candidates[index].samples;
    const auto& theirs = m_candidates[0].samples;
    int won = 0;
    for (size_t r = 0; r < std::min(mine.size(), theirs.size()); ++r)
        won += mine[r] < theirs[r] ? 1 : 0;
    return won;
}

size_t ReductionTuner::decide() const
{
    size_t best = 0;
    for (size_t i = 1; i < m_candidates.size(); ++i)
        if (score(i) > score(best))
            best = i;
    const int needed = std::min(m_options.roundsToWin, m_options.rounds);
    return score(best) > score(0) * (1 + m_options.margin) && roundsWon(best) >= needed ? best : 0;
}

double ReductionTuner::speedup() const { return score(0) > 0 ? score(chosen()) / score(0) : 1.0; }

void ReductionTuner::adopt(size_t index) { m_chosen = index < m_candidates.size() ? index : 0; }

nlohmann::ordered_json ReductionTuner::report(int ranks, const std::string& task) const
{
    nlohmann::ordered_json j;
    j["version"] = 1;
    j["task"] = task;
    j["ranks"] = ranks;
    j["bytes_per_step"] = m_bytesPerStep;
    j["warmup_steps"] = m_options.warmupSteps;
    j["rounds"] = m_options.rounds;
    j["margin"] = m_options.margin;
    j["rounds_to_win"] = std::min(m_options.roundsToWin, m_options.rounds);
    j["score"] = "gradient bytes all-reduced per microsecond of the strategy's step, median of the rounds";
    auto& list = j["candidates"] = nlohmann::ordered_json::array();
    for (size_t i = 0; i < m_candidates.size(); ++i) {
        const Candidate& c = m_candidates[i];
        list.push_back({{"bucket_bytes", c.choice.bucketBytes},
                        {"buckets", c.choice.bucketSizes.size()},
                        {"all_reduce", c.choice.algorithm ? algorithmName(*c.choice.algorithm) : "by size"},
                        {"algorithm", choiceAlgorithmText(c.choice, ranks)},
                        {"default", i == 0},
                        {"samples_us", c.samples},
                        {"median_us", median(c.samples)},
                        {"bytes_per_us", score(i)},
                        {"rounds_won", roundsWon(i)}});
    }
    j["decided_at_step"] = decisionStep();
    j["chosen"] = chosen();
    j["speedup"] = speedup();
    return j;
}

} // namespace strata::distribute
