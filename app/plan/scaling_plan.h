#pragma once
// The scaling planner's data (issue 28, docs/planner.md): what the probe measured on the
// user's nodes (`strata-engine plan-probe`), what the model predicts from it for each strategy
// and worker count, the recommendation with its reasons, the warnings, whether the inputs were
// too noisy, and the calibration learnt from real runs. Plain values: no Qt object, no I/O;
// every function over them is pure (scaling_model.h, plan_calibration.h, probe_result.h) and
// callable from any thread. The `strata plan` command (plan_command.h) and the Plan view are
// their two readers.

#include <QString>
#include <QStringList>

#include <cstdint>
#include <optional>
#include <vector>

namespace strata::app::plan {

// ---------------------------------------------------------------------------------------------
// What the probe measured (the engine's `plan-probe` events, docs/event-schema.md "Planner
// probe"; read by probeFromEvents in probe_result.h).

// Repeated timings of one thing.
struct Spread {
    double median = 0; // seconds
    double cv = 0;     // coefficient of variation of the samples (standard deviation / mean)
    double robustCv = 0; // 1.4826 x median absolute deviation / median: the same, unmoved by a few outliers
    int samples = 0;
    double mean = 0; // seconds: what a rate sees (steps/s is 1 / the mean step); 0 in older probes
    // The time a step adds up at, on average: the mean where the probe gave one.
    double typical() const { return mean > 0 ? mean : median; }
};

// The model's step on one replica at the per-replica batch (forward + backward + optimizer),
// timed at `threads` compute threads while `copies` copies of it ran at once (copies x threads
// up to the host's cores: what a worker computes in when its neighbours compute too).
struct ComputePoint {
    int threads = 1;
    int copies = 1;
    Spread step;
};

struct ComputeProbe {
    int64_t batch = 0;               // examples per replica per step
    int threads = 1;                 // the experiment's threads per replica (training.threads; 0 there: the cores shared)
    std::vector<ComputePoint> points; // (1, 1), (1, cores), (cores, 1), and the experiment's own threads
    // Of the step alone at 1 thread: the forward pass with the loss, the backward pass (which
    // gradient buckets overlap), the update after the gradients are reduced (seconds).
    double forwardSeconds = 0;
    double backwardSeconds = 0;
    double optimizerSeconds = 0;
    // When each variable's gradient is final, from the start of the backward pass (seconds), in
    // the model's variable order, with its bytes: where each bucket could start reducing.
    std::vector<double> gradientReadySeconds;
    std::vector<int64_t> variableBytes;
    Spread input; // the input pipeline's time per batch (without prefetch)
    int64_t prefetch = 2; // data.prefetch: batches prepared ahead on a thread of their own
};

// One size of the all-reduce sweep.
struct CollectivePoint {
    int64_t bytes = 0;
    Spread seconds;          // one all-reduce, the ranks' mean
    double cpuSeconds = 0;   // core-seconds a rank spent per all-reduce (the CPU it competes for)
};

// A quick all-reduce sweep between `ranks` processes, fitted to the ring's
// t(S) = 2(n-1) a + 2(n-1)/n S/B (2 log2(n) a where the engine runs halving-doubling; least
// squares over the sizes).
struct CollectiveProbe {
    int ranks = 2;
    QString transport;        // "loopback (127.0.0.1)", or the hosts it ran between
    QString algorithm;        // "chunked ring"
    // The engine's choice of algorithm (distribute/process_group.h): halving-doubling, 2 log2(n)
    // steps instead of 2(n-1), from this many ranks for buffers up to this size.
    int halvingDoublingFromRanks = 4;
    int64_t halvingDoublingUpToBytes = int64_t{4} << 20;
    std::vector<CollectivePoint> points;
    double latencySeconds = 0; // a: per ring step
    double bytesPerSecond = 0; // B: per link
    double cpuPerSecond = 0;   // core-seconds a rank uses per second of all-reduce (0..1+)
    double fitError = 0;       // relative RMS error of the fit over the sweep
    // MultiWorkerMirrored's own steps on these ranks (its buckets, input pipeline and
    // bookkeeping), `rehearsalThreads` compute threads a rank; samples 0: not rehearsed.
    Spread rehearsal;
    int rehearsalThreads = 1;
};

// ParameterServer: a worker's pull + push of every variable against one ps task process,
// as a worker's step does (the ps applying the optimizer), and the same of a small variable.
struct PsProbe {
    int64_t variableBytes = 0;
    Spread roundTrip;          // pull + push of all `variableBytes`
    Spread smallRoundTrip;     // pull + push of `smallBytes`: the latency
    int64_t smallBytes = 0;
    double latencySeconds = 0; // fitted: round trip = latency + 2 S / bytesPerSecond
    double bytesPerSecond = 0;
    double workerCpuSeconds = 0; // core-seconds the worker spends per round trip
    double serverCpuSeconds = 0; // core-seconds the ps spends per round trip (its busiest link)
    // The largest share of the variables one ps holds with 1, 2, ... 8 ps tasks, placed by the
    // experiment's partitioner (index: ps tasks - 1).
    std::vector<double> busiestShareByPsTasks;
};

struct ProbeResult {
    QString host;             // where it ran
    QString cpu;              // the CPU's model name
    int cores = 1;            // of that host
    int gpus = 0;             // of that host (the probe measures on its CPU)
    int64_t parameters = 0;
    int64_t gradientBytes = 0; // the whole gradient, float32
    ComputeProbe compute;
    CollectiveProbe collective;
    // The same sweep with twice as many ranks as cores (each step waits for a peer's turn on a
    // core): what the collectives take where workers share a host's cores. Absent: not run.
    std::optional<CollectiveProbe> crowdedCollective;
    std::optional<PsProbe> ps;  // absent when not asked for
    double probeSeconds = 0;    // how long the probe took
    double otherBusyCores = 0;  // cores other processes kept busy while it ran (0: a quiet host)
    QStringList events;         // the probe's own lines, as read: a stored plan is remade from them
};

// ---------------------------------------------------------------------------------------------
// What is asked.

enum class Strategy { OneDevice, Mirrored, CentralStorage, MultiWorkerMirrored, ParameterServer };
QString strategyName(Strategy s); // "MultiWorkerMirrored"
std::optional<Strategy> strategyNamed(const QString& name); // also "Default" -> OneDevice

// The cluster the predictions place workers on, and what is known of it.
struct PlanRequest {
    QString experiment;          // its name, for the output
    Strategy current = Strategy::OneDevice; // the experiment's strategy
    int hostsAtHand = 1;         // the experiment's distinct hosts
    int workersAtHand = 1;       // the experiment's training tasks (chief and workers), or replicas in one process
    int coresPerHost = 1;        // from the probe unless known better
    int devicesPerHost = 1;      // local devices a Mirrored/CentralStorage replica set may use
    int threadsPerWorker = 0;    // training.threads; 0: the cores divided among the host's workers
    int psTasks = 1;             // ParameterServer's ps tasks
    QString hostSet;             // the experiment's hosts (hostSetKey): what calibration is kept by
    double busiestPsShare = 1.0; // the largest share of the variables one ps holds (partitioner)
    int64_t batchPerReplica = 0;
    int64_t bucketBytes = 0;     // MultiWorkerMirrored's gradient bucket size
    // Worker counts to predict (the nodes at hand and beyond: 2, 4, 8, 16, 64 by default).
    std::vector<int> workerCounts;
    // Workers beyond the hosts at hand go on hosts like the probed one (scale out), or all on
    // the hosts at hand (shared cores). The command's default: on the hosts at hand.
    bool scaleOut = false;
    // Where the probe ran was not where the experiment runs (an SSH cluster probed here).
    bool probedLocally = false;
};

// ---------------------------------------------------------------------------------------------
// What is predicted.

// The model's terms for one prediction, in seconds per step (of one worker's step).
struct ModelTerms {
    double compute = 0;        // forward + backward + optimizer, as run (stretched if shared)
    double stretch = 1;        // compute's stretch by shared cores (1: none)
    double input = 0;          // the input pipeline's time not hidden by prefetch
    double communication = 0;  // the whole all-reduce, or pull + push
    double overlapped = 0;     // of it, hidden behind the backward pass
    double exposed = 0;        // of it, added to the step
    double psService = 0;      // ParameterServer: the busiest ps's time per worker step
    double coresBound = 0;     // the step the cores allow (core-seconds per step / cores); 0: not computed
    int processesPerHost = 1;  // worker (and ps) processes sharing a host
    int threadsPerWorker = 1;
    QString limit;             // what sets the step: "compute", "communication", "cores", "ps"
    QString formula;           // the formula with the numbers put in, for people
    // MultiWorkerMirrored: what a step takes beyond its modelled parts (gradient copies, the
    // input pipeline's thread waking, caches the all-reduce cooled), from the probe's rehearsal
    // at its ranks; in the step's compute and in the cores' work.
    double overhead = 0;
};

struct Prediction {
    Strategy strategy = Strategy::OneDevice;
    int workers = 1;          // replicas for Mirrored/CentralStorage, worker tasks otherwise
    int hosts = 1;
    int psTasks = 0;
    int64_t globalBatch = 0;  // examples per step (ParameterServer: per worker step)
    double stepSeconds = 0;   // one step of one worker
    double samplesPerSecond = 0; // the job's
    double speedup = 0;       // over one worker of the same strategy's kind (OneDevice)
    double efficiency = 0;    // speedup / workers
    bool coresShared = false;
    bool extrapolated = false; // beyond what was probed (more hosts than at hand, or a calibration's range)
    double calibration = 1;   // the factor applied (1: none learnt)
    ModelTerms terms;
};

enum class WarningKind { SpeedupBelowOne, SharedCores, NoisyInputs, ProbedLocally, Extrapolated };
struct Warning {
    WarningKind kind;
    QString text;
};

struct Recommendation {
    Strategy strategy = Strategy::OneDevice;
    int workers = 1;
    QStringList reasons; // each a sentence, the rule and the numbers behind it
};

// Whether the probe's inputs are steady enough to predict from.
struct NoiseVerdict {
    bool tooNoisy = false;
    double threshold = 0.15; // coefficient of variation beyond which a measurement is noisy
    double worstCv = 0;
    QString worst;   // which measurement ("compute", "all-reduce of 400 KiB", "ps round trip")
    // Other processes kept more than this share of the host's cores busy during the probe: the
    // timings are the host's under someone else's load, not the job's alone.
    double busyThreshold = 0.25;
    QString text;    // for people
    // The worst measurement's share of the step it feeds (the all-reduce's of a step of the
    // probe's workers; compute and the rehearsal whole steps): a noisy input moves the
    // predictions by its spread times its share, and the verdict judges that product.
    double worstShare = 1;
};

struct ScalingPlan {
    ProbeResult probe;
    PlanRequest request;
    std::vector<Prediction> predictions; // strategy by strategy, workers ascending
    Recommendation recommendation;
    std::vector<Warning> warnings;
    NoiseVerdict noise;
};

// ---------------------------------------------------------------------------------------------
// Learning from real runs: a factor per (strategy, host set) by which measured throughput
// differed from predicted. Stored by the caller (the run history); plan_calibration.h holds
// the pure update and its JSON form.

struct CalibrationEntry {
    Strategy strategy = Strategy::OneDevice;
    QString hostSet;       // the sorted hosts, "127.0.0.1" or "a,b,c"
    double factor = 1;     // measured / predicted samples/s, a running geometric mean
    int runs = 0;
};
struct Calibration {
    std::vector<CalibrationEntry> entries;
};

} // namespace strata::app::plan
