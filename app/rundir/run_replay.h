#pragma once
// Rebuilding a run's dashboard from its directory: the MetricsStore as it was live.
//
// Every `events-<task>.jsonl` is ingested in its own order, the tasks' events interleaved by
// their time `t` as they arrived live, then each task's end from tasks.json (task_ends.h),
// placed at the time the launcher saw it. The task is named by the events' own `task` field
// (the file name writes `worker:0` as `worker-0`). A line that is not a JSON object, such as
// the torn last line of an engine killed mid-write, is logged as a warning and skipped, as
// the live store does. A directory resumed into (the engine appends) holds several sessions,
// each from its `hello`: the last one is replayed, as the dashboard showed only that one.
//
// A task's `exit` event (its supervisor's account of how it ended) is its end when tasks.json
// has none (the app that launched the run closed before it ended).
//
// Each task's step records (`steps-<task>.jsonl`, StepRecordTail) go in with its events, as
// the launcher hands them over live, so that every step is drawn (MetricsStore::ingest with
// records): those of the session replayed (made at or after its first event), as the
// launcher reads those made after the launch.
//
// What the live store can hold and the files cannot: lines on an engine's stdout that are
// not events (the engine writes none; the live log warns about them), and the events of an
// engine that could not create its event files (the launcher creates the directory first).

#include "app/metrics/metrics_store.h"
#include "app/rundir/task_ends.h"

#include <QString>

#include <map>
#include <optional>

namespace strata::app {

// Clears `store` and fills it with the run in `runDir`. False with the reason, naming the
// path, when the directory is missing, holds no events (no event files, or empty ones) and
// no tasks.json, or a file cannot be read; `store` is then left as it was (unless a file
// that opened and was read through once fails on the second reading: the store then holds
// what came before). Files are read and parsed a chunk at a time as they are ingested, each
// line once (EventParser::forThisThread()), and each task's consecutive events go into the
// store in batches (one lock, one notification each). Call it on the store's thread (its
// signals are then delivered at once), or on another one when nothing reads the store yet
// (loadRuns rebuilds runs in parallel).
bool loadRun(const QString& runDir, MetricsStore& store, QString* error);

// Where a replay left each task's events file, for following the run on from there.
struct ReplayPosition {
    qint64 offset = 0;          // bytes of whole lines read (a torn last line is left unread)
    qint64 stepsOffset = 0;     // the same in its steps-<task>.jsonl
    std::optional<TaskEnd> end; // how it ended, when the files say so
};
// loadRun(), reading whole lines only, and telling where each task's file was left.
bool loadRun(const QString& runDir, MetricsStore& store, QString* error, std::map<QString, ReplayPosition>* positions);

} // namespace strata::app
