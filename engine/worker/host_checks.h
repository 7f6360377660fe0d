#pragma once
// `strata-engine probe --check`: what a launcher asks a node before starting tasks there.
// The request (stdin) and the answer (the `check` event's fields) are in
// docs/event-schema.md ("check").

#include <nlohmann/json.hpp>

namespace strata::cli {

// The answer to `request`: {"engine", "paths", "bind", "free_ports"}, and "data" when the
// request holds the experiment. Throws ConfigError naming every malformed field.
nlohmann::ordered_json checkHost(const nlohmann::ordered_json& request);

} // namespace strata::cli
