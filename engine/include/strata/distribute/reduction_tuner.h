#pragma once
// ReductionTuner: MultiWorkerMirrored's gradient buckets and all-reduce algorithm chosen in the
// run's first steps (strategy.bucket_bytes "auto"; docs/tuning.md). It tunes in real training
// steps: every step trains, correctly, whichever candidate it runs.
//
// The schedule is a function of the candidates alone, so every rank runs the same candidate
// at the same step without a word: warm-up steps on the default (discarded: first
// allocations, caches), then rounds in which every candidate runs one step, the order rotated
// each round; the first round is discarded too (it builds each candidate's Gloo algorithms).
// A sample is the strategy's whole step (forward, backward, the part of the all-reduce the
// backward pass does not hide, the update), not the all-reduce's own time: what the buckets
// change is how much of the all-reduce overlaps the backward pass and what its thread takes
// from it. A candidate's score is the gradient bytes all-reduced per microsecond of its median
// step. The chief decides (decide()) and tells the others, which adopt() it at the same step.
// The default keeps the run unless another candidate's score beats it by `margin` and its step
// was the faster in most rounds (`roundsToWin` of them, each round's steps side by side, so a
// slow spell of the machine counts against both): ties and noise resolve to the default, so
// tuning does not leave a run below it.
//
// Not thread-safe: the strategy's step calls it.

#include "strata/distribute/process_group.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace strata::distribute {

struct ReductionChoice {
    int64_t bucketBytes = 0;
    // Every bucket by this algorithm; none: allReduceAlgorithmFor(ranks, bucket), the default rule.
    std::optional<AllReduceAlgorithm> algorithm;
    std::vector<int64_t> bucketSizes; // the buckets it makes of the gradient, in bytes, launch order
};

// The algorithm of each bucket under `choice` among `ranks` tasks.
std::vector<AllReduceAlgorithm> bucketAlgorithms(const ReductionChoice& choice, int ranks);
// "chunked ring", "halving-doubling", or "halving-doubling up to N KiB, the chunked ring above"
// when the buckets differ (the default rule among 4 tasks or more).
std::string choiceAlgorithmText(const ReductionChoice& choice, int ranks);

// "256 KiB", "32 MiB" ("1000 bytes" when neither is whole).
std::string bucketSizeText(int64_t bytes);

// The bucket sizes tried: 64 KiB to 64 MiB by fours, and the default.
std::vector<int64_t> candidateBucketBytes(int64_t defaultBucketBytes);

// The candidates for a gradient that `layout(bucketBytes)` splits into buckets (their sizes in
// bytes, launch order): each size of candidateBucketBytes() under the default rule, the ring
// and halving-doubling, dropping any that gives the same buckets with the same algorithms as
// one before it (sizes above the gradient all give one bucket). The default (its size, the
// rule) first.
std::vector<ReductionChoice> reductionCandidates(int ranks, int64_t defaultBucketBytes,
                                                 const std::function<std::vector<int64_t>(int64_t)>& layout);

struct TuningOptions {
    int warmupSteps = 5;
    int rounds = 5;       // samples per candidate (after one discarded round)
    double margin = 0.03; // a candidate replaces the default when its score is this much higher
    int roundsToWin = 4;  // ... and its step was faster than the default's in this many rounds
};

// The median of `values` (0 for none).
double median(std::vector<double> values);

class ReductionTuner {
public:
    struct Candidate {
        ReductionChoice choice;
        std::vector<double> samples; // microseconds per step
    };

    // `candidates`: distinct, the default first (reductionCandidates()). `bytesPerStep`: the
    // gradient bytes each step all-reduces.
    ReductionTuner(std::vector<ReductionChoice> candidates, int64_t bytesPerStep, TuningOptions options = {});

    // The step (counted from 0 by the strategy) before which the decision is made: the steps
    // tuning takes.
    int64_t decisionStep() const;
    bool decided() const { return m_chosen.has_value(); }
    // The candidate step `step` runs (the chosen one from the decision on).
    size_t candidateAt(int64_t step) const;
    // The step's time in microseconds: a sample of the candidate it ran, unless discarded.
    void record(int64_t step, double microseconds);
    // The chief's decision from its samples: the best-scoring candidate when it beats the
    // default's score by the margin in enough rounds, else the default (0).
    size_t decide() const;
    // Every rank: candidate `index` from now on (out of range: the default).
    void adopt(size_t index);
    size_t chosen() const { return m_chosen.value_or(0); }
    const std::vector<Candidate>& candidates() const { return m_candidates; }
    // Gradient bytes all-reduced per microsecond of the candidate's median step (0: no samples).
    double score(size_t index) const;
    // The rounds in which the candidate's step was faster than the default's.
    int roundsWon(size_t index) const;
    // The chosen candidate's score over the default's (1 before any sample).
    double speedup() const;
    // tuning.json: the options, every candidate with its samples, median and score, the choice
    // (`ranks`, `task`: whose samples these are).
    nlohmann::ordered_json report(int ranks, const std::string& task) const;

private:
    std::vector<Candidate> m_candidates;
    int64_t m_bytesPerStep;
    TuningOptions m_options;
    std::optional<size_t> m_chosen;
};

} // namespace strata::distribute
