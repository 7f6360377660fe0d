#pragma once
// The small JSON records a run directory holds (tasks.json, nodes.json), written whole.

#include <nlohmann/json.hpp>

#include <QString>

namespace strata::app {

// Writes `json` (indented) to `path` atomically: a reader sees the old file or the new one.
// False with the reason, naming the file, when it cannot.
bool writeJsonFile(const QString& path, const nlohmann::ordered_json& json, QString* error);

// The "tasks" list of a record writeJsonFile wrote: true with an empty list when there is no
// file (a run not launched by the app, or not that far); false with the reason, naming the
// file as `what` ("a task record"), when it cannot be read or holds no such list.
bool readTaskList(const QString& path, const QString& what, nlohmann::ordered_json& tasks, QString* error);

} // namespace strata::app
