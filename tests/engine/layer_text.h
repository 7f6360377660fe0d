#pragma once
// A LayerSpec from its JSON text, as the tests write layers ("layer" when it has no name).

#include "strata/spec/layer_spec.h"

#include <QByteArray>

#include <stdexcept>

namespace testing {

inline strata::spec::LayerSpec layerSpec(const QByteArray& text)
{
    strata::spec::Json json = strata::spec::Json::parse(text.toStdString());
    if (!json.contains("name"))
        json["name"] = "layer";
    strata::spec::Problems problems;
    strata::spec::LayerSpec spec = strata::spec::parseLayer(json, "", problems);
    if (!problems.empty())
        throw std::runtime_error(problems.list().front().str());
    return spec;
}

} // namespace testing
