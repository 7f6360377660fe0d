#include "strata/schema/layer_spec.h"

#include <algorithm>

namespace strata::schema {

namespace {

const std::vector<std::string> kActivations = {"linear", "relu", "sigmoid", "tanh", "softmax"};
const std::vector<std::string> kInitializers = {"glorot_uniform", "glorot_normal", "he_uniform", "he_normal",
                                                "lecun_uniform",  "lecun_normal",  "uniform",    "normal",
                                                "zeros",          "ones",          "orthogonal"};
// The recurrent layers' activations: the elementwise ones (softmax normalizes a row).
const std::vector<std::string> kRecurrentActivations = {"tanh", "sigmoid", "relu", "linear"};

FieldSpec activationField(const char* fallback)
{
    return {"activation", FieldKind::Choice, fallback, false, 0, 0, false, kActivations,
            "applied to the layer's output"};
}
FieldSpec initializerField(const char* name, const char* fallback)
{
    return {name, FieldKind::Choice, fallback, false, 0, 0, false, kInitializers, "how the variable starts"};
}
FieldSpec regularizerField()
{
    return {"kernel_regularizer", FieldKind::Regularizer, nullptr, false, 0, 0, false, {},
            "L2 penalty on the kernel: {\"l2\": factor}"};
}

[[noreturn]] void shapeMismatch(const LayerSpec& layer, const Shape& input, const std::string& why)
{
    throw ShapeError("layer \"" + layer.name + "\" (" + layer.type + ") cannot take input of shape " +
                     input.strWithBatch() + ": " + why);
}

void requireRank(const LayerSpec& layer, const Shape& input, int rank, const char* what)
{
    if (input.rank() != rank)
        shapeMismatch(layer, input, std::string("expects ") + what + " (rank " + std::to_string(rank + 1) +
                                        " with the batch), got rank " + std::to_string(input.rank() + 1));
}

// Output length of a window sliding over `size` with Keras' padding rules.
int64_t windowOutput(int64_t size, int64_t window, int64_t stride, const std::string& padding)
{
    // "causal" (Conv1D) pads window - 1 steps before the sequence: as many outputs as "same".
    if (padding == "same" || padding == "causal")
        return (size + stride - 1) / stride;
    return size < window ? 0 : (size - window) / stride + 1;
}

Shape denseShape(const LayerSpec& l, const Shape& in)
{
    if (in.rank() < 1)
        shapeMismatch(l, in, "expects at least one feature dimension");
    Shape out = in;
    out[out.rank() - 1] = l.integer("units");
    return out;
}
std::vector<ParamSpec> denseParams(const LayerSpec& l, const Shape& in)
{
    std::vector<ParamSpec> p{{"kernel", {in.back(), l.integer("units")}, l.text("kernel_initializer"),
                              l.l2("kernel_regularizer")}};
    if (l.flag("use_bias"))
        p.push_back({"bias", {l.integer("units")}, l.text("bias_initializer"), 0});
    return p;
}

Shape conv2dShape(const LayerSpec& l, const Shape& in)
{
    requireRank(l, in, 3, "(height, width, channels) images");
    const auto k = l.pair("kernel_size");
    const auto s = l.pair("strides");
    const auto padding = l.text("padding");
    const int64_t h = windowOutput(in[0], k[0], s[0], padding);
    const int64_t w = windowOutput(in[1], k[1], s[1], padding);
    if (h < 1 || w < 1)
        shapeMismatch(l, in, "kernel " + Shape({k[0], k[1]}).str() + " is larger than the " +
                                 Shape({in[0], in[1]}).str() + " image with \"valid\" padding");
    return {h, w, l.integer("filters")};
}
std::vector<ParamSpec> conv2dParams(const LayerSpec& l, const Shape& in)
{
    const auto k = l.pair("kernel_size");
    std::vector<ParamSpec> p{{"kernel", {k[0], k[1], in[2], l.integer("filters")}, l.text("kernel_initializer"),
                              l.l2("kernel_regularizer")}};
    if (l.flag("use_bias"))
        p.push_back({"bias", {l.integer("filters")}, l.text("bias_initializer"), 0});
    return p;
}

Shape conv1dShape(const LayerSpec& l, const Shape& in)
{
    requireRank(l, in, 2, "(steps, channels) sequences");
    const int64_t k = l.integer("kernel_size");
    const int64_t steps = windowOutput(in[0], k, l.integer("strides"), l.text("padding"));
    if (steps < 1)
        shapeMismatch(l, in, "kernel " + std::to_string(k) + " is longer than the " + std::to_string(in[0]) +
                                 " steps with \"valid\" padding");
    return {steps, l.integer("filters")};
}
std::vector<ParamSpec> conv1dParams(const LayerSpec& l, const Shape& in)
{
    std::vector<ParamSpec> p{{"kernel", {l.integer("kernel_size"), in[1], l.integer("filters")},
                              l.text("kernel_initializer"), l.l2("kernel_regularizer")}};
    if (l.flag("use_bias"))
        p.push_back({"bias", {l.integer("filters")}, l.text("bias_initializer"), 0});
    return p;
}

Shape poolShape(const LayerSpec& l, const Shape& in)
{
    requireRank(l, in, 3, "(height, width, channels) images");
    const auto k = l.pair("pool_size");
    const auto s = l.isNull("strides") ? k : l.pair("strides");
    const auto padding = l.text("padding");
    const int64_t h = windowOutput(in[0], k[0], s[0], padding);
    const int64_t w = windowOutput(in[1], k[1], s[1], padding);
    if (h < 1 || w < 1)
        shapeMismatch(l, in, "pool " + Shape({k[0], k[1]}).str() + " is larger than the image");
    return {h, w, in[2]};
}

Shape flattenShape(const LayerSpec& l, const Shape& in)
{
    if (in.rank() < 1)
        shapeMismatch(l, in, "nothing to flatten");
    return {in.numel()};
}

Shape sameShape(const LayerSpec&, const Shape& in) { return in; }

Shape embeddingShape(const LayerSpec& l, const Shape& in)
{
    requireRank(l, in, 1, "sequences of token ids (sequence_length)");
    if (!l.isNull("input_length") && l.integer("input_length") != in[0])
        shapeMismatch(l, in, "input_length is " + std::to_string(l.integer("input_length")));
    return {in[0], l.integer("output_dim")};
}
std::vector<ParamSpec> embeddingParams(const LayerSpec& l, const Shape&)
{
    return {{"embeddings", {l.integer("input_dim"), l.integer("output_dim")}, l.text("embeddings_initializer"), 0}};
}

Shape globalPool1dShape(const LayerSpec& l, const Shape& in)
{
    requireRank(l, in, 2, "(steps, features) sequences");
    return {in[1]};
}

Shape recurrentShape(const LayerSpec& l, const Shape& in)
{
    requireRank(l, in, 2, "(steps, features) sequences");
    if (l.flag("return_sequences"))
        return {in[0], l.integer("units")};
    return {l.integer("units")};
}
// kernel (features, g units), recurrent_kernel (units, g units): Keras' shapes and names.
std::vector<ParamSpec> recurrentKernels(const LayerSpec& l, const Shape& in, int64_t gates)
{
    const int64_t u = l.integer("units");
    return {{"kernel", {in[1], gates * u}, l.text("kernel_initializer"), l.l2("kernel_regularizer")},
            {"recurrent_kernel", {u, gates * u}, l.text("recurrent_initializer"), l.l2("recurrent_regularizer")}};
}
std::vector<ParamSpec> lstmParams(const LayerSpec& l, const Shape& in)
{
    auto p = recurrentKernels(l, in, 4);
    if (l.flag("use_bias"))
        p.push_back({"bias", {4 * l.integer("units")}, l.text("bias_initializer"), 0});
    return p;
}
std::vector<ParamSpec> gruParams(const LayerSpec& l, const Shape& in)
{
    auto p = recurrentKernels(l, in, 3);
    const int64_t u = l.integer("units");
    if (l.flag("use_bias")) // reset_after: input and recurrent biases
        p.push_back({"bias", l.flag("reset_after") ? Shape{2, 3 * u} : Shape{3 * u}, l.text("bias_initializer"), 0});
    return p;
}
Shape batchNormShape(const LayerSpec& l, const Shape& in)
{
    if (in.rank() < 1)
        shapeMismatch(l, in, "expects at least one feature dimension");
    const int64_t axis = l.integer("axis");
    if (axis != -1 && axis != in.rank())
        shapeMismatch(l, in, "axis " + std::to_string(axis) + " is not supported: Strata normalizes the last axis "
                                 "(channels_last), axis -1 or " + std::to_string(in.rank()) + " here");
    return in;
}
std::vector<ParamSpec> batchNormParams(const LayerSpec& l, const Shape& in)
{
    const Shape channels{in.back()};
    std::vector<ParamSpec> p;
    if (l.flag("scale"))
        p.push_back({"gamma", channels, l.text("gamma_initializer"), 0});
    if (l.flag("center"))
        p.push_back({"beta", channels, l.text("beta_initializer"), 0});
    p.push_back({"moving_mean", channels, l.text("moving_mean_initializer"), 0, false});
    p.push_back({"moving_variance", channels, l.text("moving_variance_initializer"), 0, false});
    return p;
}

Shape globalPool2dShape(const LayerSpec& l, const Shape& in)
{
    requireRank(l, in, 3, "(height, width, channels) images");
    return {in[2]};
}

Shape layerNormShape(const LayerSpec& l, const Shape& in)
{
    if (in.rank() < 1)
        shapeMismatch(l, in, "expects at least one feature dimension");
    return in;
}
std::vector<ParamSpec> layerNormParams(const LayerSpec& l, const Shape& in)
{
    // Keras creates gamma before beta.
    std::vector<ParamSpec> p;
    if (l.flag("scale"))
        p.push_back({"gamma", {in.back()}, l.text("gamma_initializer"), 0});
    if (l.flag("center"))
        p.push_back({"beta", {in.back()}, l.text("beta_initializer"), 0});
    return p;
}

Shape reshapeShape(const LayerSpec& l, const Shape& in)
{
    std::vector<int64_t> dims = l.integers("target_shape");
    int64_t known = 1;
    int inferred = -1;
    for (size_t i = 0; i < dims.size(); ++i) {
        if (dims[i] == -1)
            inferred = static_cast<int>(i);
        else
            known *= dims[i];
    }
    const Shape target(dims);
    if (inferred >= 0) {
        if (in.numel() % known != 0)
            shapeMismatch(l, in, "its " + std::to_string(in.numel()) + " values per example do not divide into " +
                                     "target_shape " + target.str() + " (-1 stands for " +
                                     std::to_string(in.numel()) + " / " + std::to_string(known) + ")");
        dims[static_cast<size_t>(inferred)] = in.numel() / known;
    } else if (known != in.numel()) {
        shapeMismatch(l, in, "target_shape " + target.str() + " holds " + std::to_string(known) + " values, the input " +
                                 std::to_string(in.numel()) + " per example");
    }
    return Shape(std::move(dims));
}

Shape zeroPadding2dShape(const LayerSpec& l, const Shape& in)
{
    requireRank(l, in, 3, "(height, width, channels) images");
    const auto p = l.integers("padding"); // top, bottom, left, right
    return {in[0] + p[0] + p[1], in[1] + p[2] + p[3], in[2]};
}

// Dropout's noise_shape: one entry per input axis, the batch's first; each null (the input's
// size), 1 (one draw shared along that axis) or the input's size. A batch entry other than
// null or 1 must be the batch size, which only the forward pass knows.
Shape dropoutShape(const LayerSpec& l, const Shape& in)
{
    if (l.isNull("noise_shape"))
        return in;
    const auto noise = l.integers("noise_shape");
    if (static_cast<int>(noise.size()) != in.rank() + 1)
        shapeMismatch(l, in, "noise_shape has " + std::to_string(noise.size()) + " entries, the input " +
                                 std::to_string(in.rank() + 1) + " axes (the batch's included)");
    for (int i = 0; i < in.rank(); ++i) {
        const int64_t d = noise[static_cast<size_t>(i) + 1];
        if (d != 0 && d != 1 && d != in[i])
            shapeMismatch(l, in, "noise_shape[" + std::to_string(i + 1) + "] is " + std::to_string(d) +
                                     ": it must be null, 1 (the mask shared along that axis) or the input's " +
                                     std::to_string(in[i]));
    }
    return in;
}

std::vector<ParamSpec> noParams(const LayerSpec&, const Shape&) { return {}; }

// The fields LSTM and GRU share, with `extra` (the layer's own) before return_sequences.
std::vector<FieldSpec> recurrentFields(std::vector<FieldSpec> extra)
{
    std::vector<FieldSpec> f{
        {"units", FieldKind::Integer, nullptr, true, 1, 1e9, false, {}, "size of the state and of each output"},
        {"activation", FieldKind::Choice, "tanh", false, 0, 0, false, kRecurrentActivations,
         "applied to the candidate state (and to the LSTM's cell state for its output)"},
        {"recurrent_activation", FieldKind::Choice, "sigmoid", false, 0, 0, false, kRecurrentActivations,
         "applied to the gates"},
        {"use_bias", FieldKind::Boolean, true, false, 0, 0, false, {}, "add bias vectors"},
        initializerField("kernel_initializer", "glorot_uniform"),
        initializerField("recurrent_initializer", "orthogonal"),
        initializerField("bias_initializer", "zeros"),
        regularizerField(),
        {"recurrent_regularizer", FieldKind::Regularizer, nullptr, false, 0, 0, false, {},
         "L2 penalty on the recurrent kernel: {\"l2\": factor}"}};
    f.insert(f.end(), extra.begin(), extra.end());
    f.push_back({"return_sequences", FieldKind::Boolean, false, false, 0, 0, false, {},
                 "output every step's state (steps, units) instead of the last one (units)"});
    return f;
}

std::vector<LayerType> buildRegistry()
{
    const FieldSpec useBias{"use_bias", FieldKind::Boolean, true, false, 0, 0, false, {}, "add a bias vector"};
    const FieldSpec padding{"padding", FieldKind::Choice, "valid", false, 0, 0, false, {"valid", "same"},
                            "\"valid\": no padding; \"same\": output keeps the input size (stride 1)"};
    const FieldSpec poolSize{"pool_size", FieldKind::IntPair, Json::array({2, 2}), false, 1, 1e6, false, {},
                             "window height and width"};
    const FieldSpec poolStrides{"strides", FieldKind::OptionalIntPair, nullptr, false, 1, 1e6, false, {},
                                "step of the window (default: pool_size)"};
    return {
        {"Dense", "dense", "Fully connected: output = activation(input · kernel + bias)",
         {{"units", FieldKind::Integer, nullptr, true, 1, 1e9, false, {}, "number of outputs"},
          activationField("linear"), useBias, initializerField("kernel_initializer", "glorot_uniform"),
          initializerField("bias_initializer", "zeros"), regularizerField()},
         denseShape, denseParams},
        {"Conv2D", "conv2d", "2-D convolution over (height, width, channels) images",
         {{"filters", FieldKind::Integer, nullptr, true, 1, 1e9, false, {}, "number of output channels"},
          {"kernel_size", FieldKind::IntPair, nullptr, true, 1, 1e6, false, {}, "window height and width"},
          {"strides", FieldKind::IntPair, Json::array({1, 1}), false, 1, 1e6, false, {}, "step of the window"},
          padding, activationField("linear"), useBias, initializerField("kernel_initializer", "glorot_uniform"),
          initializerField("bias_initializer", "zeros"), regularizerField()},
         conv2dShape, conv2dParams},
        {"MaxPooling2D", "max_pooling2d", "Maximum over windows of (height, width, channels) images",
         {poolSize, poolStrides, padding}, poolShape, noParams},
        {"Flatten", "flatten", "Reshapes each example to one dimension", {}, flattenShape, noParams},
        {"Dropout", "dropout", "Sets a random fraction of inputs to 0 while training (scaled to keep the sum)",
         {{"rate", FieldKind::Number, nullptr, true, 0, 1, false, {}, "fraction of inputs dropped, in [0, 1)", true},
          {"seed", FieldKind::OptionalInteger, nullptr, false, 0, 9e15, false, {}, "own seed (default: the run's)"},
          {"noise_shape", FieldKind::OptionalDimList, nullptr, false, 1, 1e9, false, {},
           "shape of the mask, the batch's entry first: 1 shares one draw along that axis, null keeps the "
           "input's size (e.g. [null, 1, features]: the same features dropped at every step)"}},
         dropoutShape, noParams},
        {"Embedding", "embedding", "Maps token ids to dense vectors",
         {{"input_dim", FieldKind::Integer, nullptr, true, 1, 1e9, false, {}, "vocabulary size"},
          {"output_dim", FieldKind::Integer, nullptr, true, 1, 1e9, false, {}, "vector size"},
          initializerField("embeddings_initializer", "uniform"),
          {"input_length", FieldKind::OptionalInteger, nullptr, false, 1, 1e9, false, {},
           "sequence length (checked against the input)"}},
         embeddingShape, embeddingParams},
        {"GlobalAveragePooling1D", "global_average_pooling1d", "Mean over the steps of (steps, features) sequences",
         {}, globalPool1dShape, noParams},
        {"BatchNormalization", "batch_normalization",
         "Normalizes each channel with the batch's statistics while training, the moving ones otherwise",
         {{"axis", FieldKind::Integer, -1, false, -1, 1e9, false, {}, "the channels axis: -1 (the last)"},
          {"momentum", FieldKind::Number, 0.99, false, 0, 1, false, {}, "how slowly the moving statistics move"},
          {"epsilon", FieldKind::Number, 1e-3, false, 0, 1e6, true, {}, "added to the variance"},
          {"center", FieldKind::Boolean, true, false, 0, 0, false, {}, "learn an offset (beta)"},
          {"scale", FieldKind::Boolean, true, false, 0, 0, false, {}, "learn a scale (gamma)"},
          initializerField("beta_initializer", "zeros"), initializerField("gamma_initializer", "ones"),
          initializerField("moving_mean_initializer", "zeros"),
          initializerField("moving_variance_initializer", "ones"),
          {"synchronized", FieldKind::Boolean, false, false, 0, 0, false, {},
           "batch statistics over every replica's examples (synchronous strategies)"}},
         batchNormShape, batchNormParams},
        {"Activation", "activation", "Applies an activation function",
         {{"activation", FieldKind::Choice, nullptr, true, 0, 0, false, kActivations, "the function"}}, sameShape,
         noParams},
        {"Conv1D", "conv1d", "1-D convolution over (steps, channels) sequences",
         {{"filters", FieldKind::Integer, nullptr, true, 1, 1e9, false, {}, "number of output channels"},
          {"kernel_size", FieldKind::Integer, nullptr, true, 1, 1e6, false, {}, "window length"},
          {"strides", FieldKind::Integer, 1, false, 1, 1e6, false, {}, "step of the window"},
          {"padding", FieldKind::Choice, "valid", false, 0, 0, false, {"valid", "same", "causal"},
           "\"valid\": no padding; \"same\": output keeps the length (stride 1); \"causal\": padded before the "
           "sequence only, so no output sees a later step"},
          activationField("linear"), useBias, initializerField("kernel_initializer", "glorot_uniform"),
          initializerField("bias_initializer", "zeros"), regularizerField()},
         conv1dShape, conv1dParams},
        {"AveragePooling2D", "average_pooling2d",
         "Mean over windows of (height, width, channels) images (\"same\": of the window's values inside the image)",
         {poolSize, poolStrides, padding}, poolShape, noParams},
        {"GlobalAveragePooling2D", "global_average_pooling2d",
         "Mean over height and width of (height, width, channels) images", {}, globalPool2dShape, noParams},
        {"GlobalMaxPooling1D", "global_max_pooling1d", "Maximum over the steps of (steps, features) sequences", {},
         globalPool1dShape, noParams},
        {"GlobalMaxPooling2D", "global_max_pooling2d",
         "Maximum over height and width of (height, width, channels) images", {}, globalPool2dShape, noParams},
        {"LayerNormalization", "layer_normalization",
         "Normalizes each example over its last axis to mean 0 and variance 1, then scales by gamma and shifts by beta",
         {{"epsilon", FieldKind::Number, 1e-3, false, 0, 1e6, true, {}, "added to the variance"},
          {"center", FieldKind::Boolean, true, false, 0, 0, false, {}, "add the offset beta"},
          {"scale", FieldKind::Boolean, true, false, 0, 0, false, {}, "multiply by gamma"},
          initializerField("beta_initializer", "zeros"), initializerField("gamma_initializer", "ones")},
         layerNormShape, layerNormParams},
        {"Reshape", "reshape", "Gives each example another shape with the same number of values",
         {{"target_shape", FieldKind::IntList, nullptr, true, 1, 1e9, false, {},
           "the new shape without the batch, e.g. [7, 4]; one entry may be -1 (inferred)"}},
         reshapeShape, noParams},
        {"ZeroPadding2D", "zero_padding2d", "Adds rows and columns of zeros around (height, width, channels) images",
         {{"padding", FieldKind::Padding2D, Json::array({Json::array({1, 1}), Json::array({1, 1})}), false, 0, 1e6,
           false, {}, "n (all sides), [h, w] (symmetric per axis) or [[top, bottom], [left, right]]"}},
         zeroPadding2dShape, noParams},
        {"LSTM", "lstm", "Long short-term memory over (steps, features) sequences (Keras' LSTM)",
         recurrentFields({{"unit_forget_bias", FieldKind::Boolean, true, false, 0, 0, false, {},
                           "start the forget gate's bias at 1 (Jozefowicz et al.)"}}),
         recurrentShape, lstmParams},
        {"GRU", "gru", "Gated recurrent unit over (steps, features) sequences (Keras' GRU)",
         recurrentFields({{"reset_after", FieldKind::Boolean, true, false, 0, 0, false, {},
                           "apply the reset gate after the recurrent product (Keras 2.3+ and cuDNN); false: "
                           "before it, one bias"}}),
         recurrentShape, gruParams},
    };
}

} // namespace

const std::vector<LayerType>& layerTypes()
{
    static const std::vector<LayerType> registry = buildRegistry();
    return registry;
}

const LayerType* findLayerType(std::string_view type)
{
    for (const auto& t : layerTypes())
        if (t.type == type)
            return &t;
    return nullptr;
}

const std::vector<std::string>& activationNames() { return kActivations; }
const std::vector<std::string>& initializerNames() { return kInitializers; }

} // namespace strata::schema
