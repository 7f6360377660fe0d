#pragma once
// A LayerSpec from its JSON text, as the tests write layers ("layer" when it has no name).

#include "strata/schema/layer_spec.h"

#include <QByteArray>

#include <stdexcept>

namespace testing {

inline strata::schema::LayerSpec layerSpec(const QByteArray& text)
{
    strata::schema::Json json = strata::schema::Json::parse(text.toStdString());
    if (!json.contains("name"))
        json["name"] = "layer";
    strata::schema::Problems problems;
    strata::schema::LayerSpec spec = strata::schema::parseLayer(json, "", problems);
    if (!problems.empty())
        throw std::runtime_error(problems.list().front().str());
    return spec;
}

} // namespace testing
