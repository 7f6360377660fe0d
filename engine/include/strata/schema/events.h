#pragma once
// The event stream (engine -> app): JSON Lines, one object per event, each with
// "v" (kEventSchemaVersion), "type", "t" (unix seconds) and "task" ("worker:0").
// docs/event-schema.md documents every type and field.

namespace strata::schema {

constexpr int kEventSchemaVersion = 1;

namespace event {
constexpr const char* kHello = "hello";
constexpr const char* kStart = "start";
constexpr const char* kPlacement = "placement";
constexpr const char* kDevice = "device";
constexpr const char* kStep = "step";
constexpr const char* kEpoch = "epoch";
constexpr const char* kCheckpoint = "checkpoint";
constexpr const char* kEvaluation = "evaluation";
constexpr const char* kLog = "log";
constexpr const char* kError = "error";
constexpr const char* kDone = "done";
// ParameterServer: a ps task's traffic and updates; the coordinator's view of its workers.
constexpr const char* kPs = "ps";
constexpr const char* kMembership = "membership";
constexpr const char* kExit = "exit";   // written by a task's supervisor (or follower), not the engine
constexpr const char* kCheck = "check"; // `strata-engine probe --check`
// A follower's first line (start, attach): where in the task's files it starts. Not an event of
// the task: not in its events file.
constexpr const char* kFollow = "follow";
// A follower's frame of step records (start --relay-steps, attach --steps-offset): `bytes`
// bytes of steps-<task>.jsonl lines follow the line. Not an event either.
constexpr const char* kStepRecords = "step_records";
} // namespace event

} // namespace strata::schema
