#pragma once
// The fields of ParameterServer messages between the coordinator and its workers
// (transport.h's JSON headers; shard_store.h has the ps task's wire format): each a struct with
// one writer (headerOf) and one reader (read...), the reader checking types. Every message
// comes from the network: a field that is missing or of another type is a CollectiveError
// naming the message and the field, never a JSON library exception escaping a task's loop.

#include "ps/transport.h"

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace strata::ps {

// The operation of any message: "" when absent or not a string (an unknown operation).
std::string opOf(const Json& header);
// The request id a reply echoes: 0 when absent or not an integer.
int64_t idOf(const Json& header);

// Coordinator -> worker: "step" (run this step on that batch), "stop", "ping", "clock" (the
// reply to a heartbeat that gave its time: the worker's clock offset to the coordinator's).
struct StepOrder {
    std::string op;
    int64_t step = 0, batch = 0, epoch = 0; // "step"
    std::string run;                        // "step": the coordinator's run id, echoed in the result
    std::string status;                     // "stop": how the job ended
    int64_t sentUs = 0, chiefUs = 0;        // "clock": the heartbeat's time echoed, the coordinator's
};
StepOrder readStepOrder(const Json& header);
Json headerOf(const StepOrder& order);

// Worker -> coordinator: "hello", "heartbeat", "result"; what the coordinator reads first.
struct WorkerMessage {
    std::string op, task, run;
    int64_t pid = 0;
    int64_t sentUs = 0; // "heartbeat": the worker's clock (µs) when sent, 0: no "clock" reply wanted
};
WorkerMessage readWorkerMessage(const Json& header);
// "hello" and "heartbeat" (a result's header is resultHeader's).
Json headerOf(const WorkerMessage& message);

// Worker -> coordinator: a step's "result".
struct StepResult {
    int64_t step = 0, samples = 0;
    double lossSum = 0, regularization = 0;
    std::vector<std::pair<double, double>> metrics; // each metric's total and count
    double stalenessMean = 0;
    int64_t stalenessMax = 0;
    double stepMs = 0, computeMs = 0, commMs = 0;
};
StepResult readStepResult(const Json& header);
// A "result" from `from` (its task and the run it echoes).
Json resultHeader(const WorkerMessage& from, const StepResult& result);

// A ps task's reply, as its client reads it: its request id and, when the ps refused the
// request, why.
struct PsReply {
    int64_t id = 0;
    std::optional<std::string> error;
};
PsReply readPsReply(const Json& header);
// The `count` integers of `field` (a pull's "versions", a push's "staleness").
std::vector<int64_t> readIntegers(const Json& header, const char* field, size_t count);
// A string field; `fallback` when absent.
std::string readText(const Json& header, const char* field, const std::string& fallback);
// An integer field; `fallback` when absent (nothing: it is required).
int64_t readInteger(const Json& header, const char* field, std::optional<int64_t> fallback = std::nullopt);

} // namespace strata::ps
