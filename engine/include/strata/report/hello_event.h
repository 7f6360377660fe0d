#pragma once
// The `hello` event's fields: engine version, event schema, host, pid, devices, BLAS.

#include <nlohmann/json.hpp>

namespace strata::run {

nlohmann::ordered_json helloFields();

} // namespace strata::run
