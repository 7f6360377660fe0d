#pragma once
// Stragglers: a worker whose time per step stays well above the median of the job's other
// workers, named with where it runs, how much slower, since when, and whether it recovered.
//
// What "time per step" means depends on the strategy. Under synchronous strategies
// (MultiWorkerMirrored) every worker's step lasts as long as the slowest's, the others waiting
// in the gradient all-reduce: a worker is judged by its own time, the step minus its
// communication (compute, input and the rest). Under ParameterServer the workers do not wait
// for each other: the step time itself.
//
// The steps are cut into buckets on the job's step axis (the global step under ParameterServer,
// where the workers' points lie) of about kStepsPerBucket steps of each worker. In each bucket a
// worker's time per step is the mean of its points there, compared with the median of the other
// workers' in the same bucket. A worker becomes a straggler after kSustainedBuckets buckets in a
// row judged slow (a bucket where it has no point changes nothing), and recovers after as many
// judged fast. A bucket is judged once every computing task whose process has not ended has a
// point beyond it (nothing can land in it any more), so the answer depends only on what the store
// holds, not on when it arrived: a run rebuilt from its directory gives what the live window
// gave (tst_stragglers, tst_straggler_job).
//
// MetricsStore owns a StragglerWatch, advances it after each batch it ingests, and logs what it
// finds; MetricsStore::stragglers() lists them.

#include <QString>

#include <cstdint>
#include <limits>
#include <vector>

namespace strata::app {

struct TaskData;

// A worker's time per step against the median of the others', each a mean over some buckets.
struct StragglerFigures {
    double ms = 0, medianMs = 0;
    double ratio() const { return medianMs > 0 ? ms / medianMs : std::numeric_limits<double>::infinity(); }
};

// One stretch of a worker being a straggler.
struct Straggler {
    QString task;  // "worker:3"
    QString place; // where it runs: "b (198.18.1.2)" (placement.h's place)
    // Where the stretch began: the worker's first step in its first slow bucket, and that step's
    // wall time (unix seconds; NaN when the step has none).
    int64_t sinceStep = 0;
    double sinceTime = std::numeric_limits<double>::quiet_NaN();
    StragglerFigures onset;   // over the buckets that made it a straggler
    StragglerFigures overall; // over the whole stretch so far
    // Recovered: from `untilStep` on (its first step of the fast buckets that ended the stretch),
    // at `recovery`'s figures. Still slow: `untilStep` is its last step judged so far.
    bool recovered = false;
    int64_t untilStep = 0;
    double untilTime = std::numeric_limits<double>::quiet_NaN();
    StragglerFigures recovery;
};

// What the watch found in a call of advance(): a log line of the store's.
struct StragglerNews {
    double time = 0;   // when the bucket that decided it ended (unix seconds)
    QString task;
    bool recovered = false;
    QString message;   // stragglerText() or recoveryText()
};

class StragglerWatch {
public:
    // A slow bucket: the worker's time per step at least kSlowRatio times the others' median, and
    // slower by at least kMinStepShare of the job's median step (under a synchronous strategy a
    // worker's own time may be a sliver of the step: a 2x of 0.1 ms in a 20 ms step is noise that
    // costs nothing). 1.5x is far outside what the same work on like machines varies by (the
    // buckets average ~20 steps), yet well below a worker that is really held back (half its
    // speed or less).
    static constexpr double kSlowRatio = 1.5;
    static constexpr double kMinStepShare = 0.1;
    // A fast bucket (towards recovery): under kRecoveredRatio. Between the two nothing changes, so
    // a worker hovering near the threshold is not named and forgiven by turns.
    static constexpr double kRecoveredRatio = 1.25;
    // Steps of each worker in a bucket (under ParameterServer a bucket spans that many global
    // steps per worker), and the buckets in a row that decide: one slow window (a checkpoint, a
    // page-cache miss, the machine busy for a moment) never names a worker; three of ~20 steps
    // each are a trend.
    static constexpr int kStepsPerBucket = 20;
    static constexpr int kSustainedBuckets = 3;

    // Judges the buckets that every computing task of `tasks` has gone past (all of them once
    // every task has ended), returning who became a straggler or recovered in them, in order.
    // Call with the store's tasks, under its lock, after each change.
    std::vector<StragglerNews> advance(const std::vector<TaskData>& tasks);
    // Every stretch found so far, in the order they began.
    const std::vector<Straggler>& stragglers() const { return m_found; }

private:
    struct Sums {
        double ms = 0, medianMs = 0;
        int buckets = 0;
        void add(double own, double median)
        {
            ms += own;
            medianMs += median;
            ++buckets;
        }
        StragglerFigures figures() const
        {
            return buckets > 0 ? StragglerFigures{ms / buckets, medianMs / buckets} : StragglerFigures{};
        }
    };
    // A worker's account: the run of buckets that may change its state, and its open stretch.
    struct Worker {
        QString task;
        int run = 0;   // buckets in a row pointing at a change (slow, or fast while a straggler)
        Sums runSums;  // theirs
        int64_t runStep = 0;
        double runTime = 0;
        int open = -1; // index in m_found of its stretch going on; -1: none
        Sums overall;  // the open stretch's
    };
    // One worker's time per step in a bucket.
    struct Sample {
        const TaskData* task = nullptr;
        double own = 0, step = 0;
        int64_t firstStep = 0, lastStep = 0;
        double firstTime = 0, lastTime = 0;
    };
    void judge(const std::vector<const TaskData*>& computing, double from, double to, std::vector<StragglerNews>& news);
    void update(Worker& w, const Sample& s, double median, bool slow, bool fast, double decided,
                std::vector<StragglerNews>& news);
    Worker& worker(const QString& task);

    size_t m_known = 0;            // tasks in the store when m_computing was made
    std::vector<size_t> m_computing; // the computing tasks' indices among them
    bool m_coordinated = false;    // ParameterServer; fixed with the width
    double m_width = 0; // steps per bucket on the job's axis, fixed at the first judgment
    double m_next = 0;  // where the next bucket to judge begins
    std::vector<Worker> m_workers;
    std::vector<Straggler> m_found;
};

// "worker:3 on b (198.18.1.2) is a straggler: 2.4x the median time per step (41 ms against
// 17 ms) since step 120 (20:31:05)": the log's line when it became one (onset figures).
QString stragglerText(const Straggler& s);
// "worker:3 on b (198.18.1.2) is no longer a straggler: 1.1x the median time per step (18 ms
// against 17 ms) since step 480 (20:33:10)".
QString recoveryText(const Straggler& s);
// The whole stretch, for the task table's tooltip and `strata compare`: "worker:3 on b: 2.4x
// the median time per step (41 ms against 17 ms) from step 120 (20:31:05) to step 480
// (20:33:10)", or "... since step 120 (20:31:05), still slow at step 900".
QString stretchText(const Straggler& s);

} // namespace strata::app
