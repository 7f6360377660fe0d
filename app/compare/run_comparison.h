#pragma once
// Runs compared from their directories: each rebuilt (run_replay) with its experiment
// document, and the report `strata compare DIR...` prints: the comparison table, the
// baseline, and what differs between the experiments. The window's comparison view uses the
// same loaded runs (their stores feed compare_lines).

#include "app/compare/comparison.h"
#include "app/compare/experiment_diff.h"
#include "app/history/run_history.h"
#include "app/metrics/metrics_store.h"

#include <QStringList>

#include <memory>
#include <vector>

namespace strata::app {

struct LoadedRun {
    QString dir;
    QString label;
    std::unique_ptr<MetricsStore> store;
    Json experiment; // as launched (launch.strata.json), else the engine's copy
};

// The experiment a run directory was run with: launch.strata.json (written by the app), else
// experiment.strata.json (the engine's, for runs started without the app). False with the
// reason, naming the directory or file.
bool readRunExperiment(const QString& runDir, Json& experiment, QString* error);

// Loads every directory, in order. `labels`: one per directory; by default the directories'
// names (made distinct with " (2)", ...). False with the first reason, naming the directory.
bool loadRuns(const QStringList& dirs, std::vector<LoadedRun>& runs, QString* error, const QStringList& labels = {});

enum class ReportFormat { Text, Markdown };

// The table (tableText or tableMarkdown), the scaling baseline, the definitions used, and
// the experiments' differences: the setup being compared, then anything else (an unfair
// comparison), each as "path: value | value", values in the runs' order.
QString comparisonReport(const std::vector<LoadedRun>& runs, const CompareOptions& options, ReportFormat format);

// `strata compare DIR...`: loadRuns, then comparisonReport. False with the reason when a
// directory cannot be read.
bool compareRunDirs(const QStringList& dirs, const CompareOptions& options, ReportFormat format, QString* report,
                    QString* error, const QStringList& labels = {});

// The runs `strata compare` names: each a history id ("12", from `strata runs`) or a run
// directory. Ids are looked up in `history` (opened on first need from
// RunHistory::defaultPath() when null); their label is "#12 <the run's name>". False with the
// reason (an id not in the history, a history that cannot be opened).
bool resolveRunRefs(const QStringList& refs, QStringList* dirs, QStringList* labels, QString* error,
                    RunHistory* history = nullptr);

} // namespace strata::app
