#include "strata/schema/model_spec.h"

#include <algorithm>
#include <sstream>

namespace strata::schema {

ModelShapes inferShapes(const ModelSpec& model)
{
    ModelShapes result;
    Shape current = model.inputShape;
    for (size_t i = 0; i < model.layers.size(); ++i) {
        const LayerSpec& layer = model.layers[i];
        const LayerType* type = findLayerType(layer.type);
        try {
            if (!type)
                throw ShapeError("layer " + std::to_string(i) + " has unknown type \"" + layer.type + "\"");
            LayerShape ls;
            // The output shape first: it checks that the layer can take this input at all,
            // which the parameter shapes assume.
            ls.output = type->outputShape(layer, current);
            ls.params = type->params(layer, current);
            for (const auto& p : ls.params) {
                ls.paramCount += p.shape.numel();
                if (!p.trainable)
                    ls.nonTrainableCount += p.shape.numel();
            }
            result.totalParams += ls.paramCount;
            result.nonTrainableParams += ls.nonTrainableCount;
            current = ls.output;
            result.layers.push_back(std::move(ls));
        } catch (const Error& e) {
            result.failedLayer = static_cast<int>(i);
            result.error = e.what();
            return result;
        }
    }
    if (model.layers.empty()) {
        result.failedLayer = 0;
        result.error = "the model has no layers";
    }
    return result;
}

ModelShapes checkedShapes(const ModelSpec& model)
{
    ModelShapes shapes = inferShapes(model);
    if (!shapes.ok())
        throw ShapeError(shapes.error);
    return shapes;
}

namespace {
std::string withCommas(int64_t n)
{
    std::string digits = std::to_string(n);
    std::string out;
    for (size_t i = 0; i < digits.size(); ++i) {
        if (i > 0 && (digits.size() - i) % 3 == 0)
            out += ',';
        out += digits[i];
    }
    return out;
}

// One row of the table as tf.keras prints it: each cell but the last in a column ending at
// `ends[i]`, two spaces kept before the next; a longer cell continues on the following lines.
void printRow(std::ostream& out, std::vector<std::string> cells, const std::vector<size_t>& ends)
{
    do {
        std::string line;
        for (size_t i = 0; i < cells.size(); ++i) {
            const bool last = i + 1 == cells.size();
            const size_t fits = last ? cells[i].size() : ends[i] - line.size() - 2;
            line += cells[i].substr(0, fits);
            cells[i].erase(0, std::min(fits, cells[i].size()));
            if (!last)
                line.append(ends[i] - line.size(), ' ');
        }
        while (!line.empty() && line.back() == ' ')
            line.pop_back();
        out << line << "\n";
    } while (std::any_of(cells.begin(), cells.end(), [](const std::string& c) { return !c.empty(); }));
}
} // namespace

std::string summary(const ModelSpec& model, const ModelShapes& shapes)
{
    const std::string rule(65, '_');
    const std::string doubleRule(65, '=');
    std::ostringstream out;
    out << "Model: \"" << model.name << "\"\n" << rule << "\n";
    const std::vector<size_t> ends{29, 55};
    printRow(out, {" Layer (type)", "Output Shape", "Param #"}, ends);
    out << doubleRule << "\n";
    for (size_t i = 0; i < shapes.layers.size(); ++i) {
        const auto& l = model.layers[i];
        printRow(out, {" " + l.name + " (" + l.type + ")", shapes.layers[i].output.strWithBatch(),
                       withCommas(shapes.layers[i].paramCount)},
                 ends);
        if (i + 1 < shapes.layers.size())
            out << "\n";
    }
    out << doubleRule << "\n";
    out << "Total params: " << withCommas(shapes.totalParams) << "\n";
    out << "Trainable params: " << withCommas(shapes.totalParams - shapes.nonTrainableParams) << "\n";
    out << "Non-trainable params: " << withCommas(shapes.nonTrainableParams) << "\n" << rule << "\n";
    return out.str();
}

} // namespace strata::schema
