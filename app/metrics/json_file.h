#pragma once
// The small JSON records a run directory holds (tasks.json, nodes.json), written whole.

#include <nlohmann/json.hpp>

#include <QString>

namespace strata::app {

// Writes `json` (indented) to `path` atomically: a reader sees the old file or the new one.
// False with the reason, naming the file, when it cannot.
bool writeJsonFile(const QString& path, const nlohmann::ordered_json& json, QString* error);

} // namespace strata::app
