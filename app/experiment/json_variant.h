#pragma once
// Conversions between JSON values and QVariant, so widgets deal in Qt types only.

#include <nlohmann/json.hpp>

#include <QVariant>

namespace strata::app {

QVariant toVariant(const nlohmann::ordered_json& value);
nlohmann::ordered_json fromVariant(const QVariant& value);

} // namespace strata::app
