#pragma once
// `strata export tensorboard RUN... DIR [--follow]`: each run (a history id, see `strata runs`,
// or a run directory, as `strata compare` takes them) written as TensorBoard event files into
// DIR/<run name> (the run directory's name, made unique among the runs: "-2", ...), one
// TensorBoard run per folder: train, validation, test and one per task (docs/tensorboard.md).
// Every run is checked before anything is written. With --follow the files are written as
// the runs go (a run that has not started yet is waited for) and the command ends when they
// all have; `tensorboard --logdir DIR` shows them updating. ui/main.cpp only hands over the
// arguments after `export`.

#include <QStringList>

#include <cstdio>

namespace strata::app::tensorboard {

// Exit status: 0 written, 1 a run that cannot be read or a file that cannot be written (the
// reason on `err`), 2 bad arguments. What was written is summed up on `out`, warnings (lines
// of a run's files that are not events) on `err`. `pollMs`: how often --follow reads the runs.
int exportCommand(const QStringList& args, std::FILE* out = stdout, std::FILE* err = stderr, int pollMs = 500);

} // namespace strata::app::tensorboard
