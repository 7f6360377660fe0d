// Model specs: our JSON format, Keras import (TF 2.x and Keras 3), shape inference, summary.

#include "strata/schema/model_spec.h"

#include <QtTest>

using strata::Shape;
using namespace strata::schema;

namespace {

ModelSpec parse(const char* text, Problems& problems) { return parseModel(Json::parse(text), "model", problems); }

QString joined(const Problems& problems)
{
    QStringList lines;
    for (const auto& p : problems.list())
        lines << QString::fromStdString(p.str());
    return lines.join('\n');
}

// A Keras 2.x (TF 2.12) model.to_json() of the seeds' MLP.
const char* kTf2Mlp = R"({"class_name": "Sequential", "config": {"name": "sequential", "layers": [
  {"class_name": "InputLayer", "config": {"batch_input_shape": [null, 28, 28], "dtype": "float32", "sparse": false, "ragged": false, "name": "flatten_input"}},
  {"class_name": "Flatten", "config": {"name": "flatten", "trainable": true, "dtype": "float32", "batch_input_shape": [null, 28, 28], "data_format": "channels_last"}},
  {"class_name": "Dense", "config": {"name": "dense", "trainable": true, "dtype": "float32", "units": 128, "activation": "relu", "use_bias": true,
     "kernel_initializer": {"class_name": "GlorotUniform", "config": {"seed": null}}, "bias_initializer": {"class_name": "Zeros", "config": {}},
     "kernel_regularizer": {"class_name": "L2", "config": {"l2": 0.0001}}, "bias_regularizer": null, "activity_regularizer": null, "kernel_constraint": null, "bias_constraint": null}},
  {"class_name": "Dense", "config": {"name": "dense_1", "trainable": true, "dtype": "float32", "units": 10, "activation": "softmax", "use_bias": true,
     "kernel_initializer": {"class_name": "GlorotUniform", "config": {"seed": null}}, "bias_initializer": {"class_name": "Zeros", "config": {}},
     "kernel_regularizer": null, "bias_regularizer": null, "activity_regularizer": null, "kernel_constraint": null, "bias_constraint": null}}]},
  "keras_version": "2.12.0", "backend": "tensorflow"})";

// Keras 2.0-2.1 (here 2.1.6): the config is the list of layers, and glorot_uniform is written
// as VarianceScaling(1, fan_avg, uniform); he_normal as VarianceScaling(2, fan_in, normal).
const char* kKeras21Mlp = R"({"class_name": "Sequential", "config": [
  {"class_name": "Dense", "config": {"name": "dense_1", "trainable": true, "batch_input_shape": [null, 784], "dtype": "float32",
     "units": 128, "activation": "relu", "use_bias": true,
     "kernel_initializer": {"class_name": "VarianceScaling", "config": {"scale": 2.0, "mode": "fan_in", "distribution": "normal", "seed": null}},
     "bias_initializer": {"class_name": "Zeros", "config": {}}, "kernel_regularizer": null, "bias_regularizer": null,
     "activity_regularizer": null, "kernel_constraint": null, "bias_constraint": null}},
  {"class_name": "Dropout", "config": {"name": "dropout_1", "trainable": true, "rate": 0.2, "noise_shape": null, "seed": null}},
  {"class_name": "Dense", "config": {"name": "dense_2", "trainable": true, "units": 10, "activation": "softmax", "use_bias": true,
     "kernel_initializer": {"class_name": "VarianceScaling", "config": {"scale": 1.0, "mode": "fan_avg", "distribution": "uniform", "seed": null}},
     "bias_initializer": {"class_name": "Zeros", "config": {}}, "kernel_regularizer": null, "bias_regularizer": null,
     "activity_regularizer": null, "kernel_constraint": null, "bias_constraint": null}}],
  "keras_version": "2.1.6", "backend": "tensorflow"})";

// Keras 2.2.4: the config an object with its layers; initializers still VarianceScaling; a
// fixed batch size in the input shape.
const char* kKeras22Mlp = R"({"class_name": "Sequential", "config": {"name": "sequential_1", "layers": [
  {"class_name": "Flatten", "config": {"name": "flatten_1", "trainable": true, "batch_input_shape": [32, 28, 28], "dtype": "float32", "data_format": "channels_last"}},
  {"class_name": "Dense", "config": {"name": "dense_1", "trainable": true, "units": 128, "activation": "relu", "use_bias": true,
     "kernel_initializer": {"class_name": "VarianceScaling", "config": {"scale": 1.0, "mode": "fan_in", "distribution": "uniform", "seed": null}},
     "bias_initializer": {"class_name": "Zeros", "config": {}}, "kernel_regularizer": null, "bias_regularizer": null,
     "activity_regularizer": null, "kernel_constraint": null, "bias_constraint": null}},
  {"class_name": "Dense", "config": {"name": "dense_2", "trainable": true, "units": 10, "activation": "linear", "use_bias": true,
     "kernel_initializer": {"class_name": "VarianceScaling", "config": {"scale": 1.0, "mode": "fan_avg", "distribution": "uniform", "seed": null}},
     "bias_initializer": {"class_name": "Zeros", "config": {}}, "kernel_regularizer": null, "bias_regularizer": null,
     "activity_regularizer": null, "kernel_constraint": null, "bias_constraint": null}}]},
  "keras_version": "2.2.4", "backend": "tensorflow"})";

// A recent Keras 3 (3.8 and later): no InputLayer, the input in the first layer's build config,
// and the keys newer releases add with neutral values (quantization_config, lora_rank).
const char* kKeras38Mlp = R"({"module": "keras", "class_name": "Sequential", "config": {"name": "sequential", "trainable": true,
  "dtype": {"module": "keras", "class_name": "DTypePolicy", "config": {"name": "float32"}, "registered_name": null},
  "layers": [
   {"module": "keras.layers", "class_name": "Dense", "config": {"name": "dense", "trainable": true,
      "dtype": {"module": "keras", "class_name": "DTypePolicy", "config": {"name": "float32"}, "registered_name": null},
      "units": 128, "activation": "relu", "use_bias": true,
      "kernel_initializer": {"module": "keras.initializers", "class_name": "GlorotUniform", "config": {"seed": null}, "registered_name": null},
      "bias_initializer": {"module": "keras.initializers", "class_name": "Zeros", "config": {}, "registered_name": null},
      "kernel_regularizer": null, "bias_regularizer": null, "kernel_constraint": null, "bias_constraint": null,
      "lora_rank": null, "quantization_config": null},
    "registered_name": null, "build_config": {"input_shape": [null, 784]}},
   {"module": "keras.layers", "class_name": "Dense", "config": {"name": "dense_1", "trainable": true,
      "dtype": {"module": "keras", "class_name": "DTypePolicy", "config": {"name": "float32"}, "registered_name": null},
      "units": 10, "activation": "linear", "use_bias": true,
      "kernel_initializer": {"module": "keras.initializers", "class_name": "GlorotUniform", "config": {"seed": null}, "registered_name": null},
      "bias_initializer": {"module": "keras.initializers", "class_name": "Zeros", "config": {}, "registered_name": null},
      "kernel_regularizer": null, "bias_regularizer": null, "kernel_constraint": null, "bias_constraint": null,
      "lora_rank": null, "quantization_config": null},
    "registered_name": null, "build_config": {"input_shape": [null, 128]}}],
  "build_input_shape": [null, 784]},
  "registered_name": null, "build_config": {"input_shape": [null, 784]}})";

// Keras 2.13-2.15 (tf.keras and the keras 2.15 package): each layer and initializer serialized by
// serialization_lib, with `module`, `registered_name` and the layer's `build_config`, but dtypes
// still plain strings and the input in an InputLayer's batch_input_shape. The layout of a real
// file from keras-team/keras issue 20081 (a Keras 2 cnn_model.json).
const char* kKeras215Cnn = R"({"class_name": "Sequential", "config": {"name": "sequential_3", "layers": [
 {"module": "keras.layers", "class_name": "InputLayer", "config": {"batch_input_shape": [null, 50, 50, 1], "dtype": "float32", "sparse": false, "ragged": false, "name": "conv2d_20_input"}, "registered_name": null},
 {"module": "keras.layers", "class_name": "Conv2D", "config": {"name": "conv2d_20", "trainable": true, "dtype": "float32", "batch_input_shape": [null, 50, 50, 1],
    "filters": 32, "kernel_size": [3, 3], "strides": [1, 1], "padding": "valid", "data_format": "channels_last", "dilation_rate": [1, 1], "groups": 1,
    "activation": "linear", "use_bias": true,
    "kernel_initializer": {"module": "keras.initializers", "class_name": "VarianceScaling", "config": {"scale": 1.0, "mode": "fan_avg", "distribution": "uniform", "seed": null}, "registered_name": null},
    "bias_initializer": {"module": "keras.initializers", "class_name": "Zeros", "config": {}, "registered_name": null},
    "kernel_regularizer": null, "bias_regularizer": null, "activity_regularizer": null, "kernel_constraint": null, "bias_constraint": null},
  "registered_name": null, "build_config": {"input_shape": [null, 50, 50, 1]}},
 {"module": "keras.layers", "class_name": "Activation", "config": {"name": "activation_13", "trainable": true, "dtype": "float32", "activation": "relu"},
  "registered_name": null, "build_config": {"input_shape": [null, 48, 48, 32]}},
 {"module": "keras.layers", "class_name": "MaxPooling2D", "config": {"name": "max_pooling2d_10", "trainable": true, "dtype": "float32", "pool_size": [2, 2],
    "padding": "valid", "strides": [2, 2], "data_format": "channels_last"}, "registered_name": null, "build_config": {"input_shape": [null, 48, 48, 32]}},
 {"module": "keras.layers", "class_name": "Flatten", "config": {"name": "flatten_5", "trainable": true, "dtype": "float32", "data_format": "channels_last"},
  "registered_name": null, "build_config": {"input_shape": [null, 24, 24, 32]}},
 {"module": "keras.layers", "class_name": "Dense", "config": {"name": "dense_10", "trainable": true, "dtype": "float32", "units": 2, "activation": "softmax", "use_bias": true,
    "kernel_initializer": {"module": "keras.initializers", "class_name": "GlorotUniform", "config": {"seed": null}, "registered_name": null},
    "bias_initializer": {"module": "keras.initializers", "class_name": "Zeros", "config": {}, "registered_name": null},
    "kernel_regularizer": null, "bias_regularizer": null, "activity_regularizer": null, "kernel_constraint": null, "bias_constraint": null},
  "registered_name": null, "build_config": {"input_shape": [null, 18432]}}]},
 "keras_version": "2.15.0", "backend": "tensorflow"})";

// A Keras 3 model.to_json() of the seeds' CIFAR-10 CNN (abridged to its first layers).
const char* kKeras3Cnn = R"({"module": "keras", "class_name": "Sequential", "config": {"name": "sequential", "trainable": true,
  "dtype": {"module": "keras", "class_name": "DTypePolicy", "config": {"name": "float32"}, "registered_name": null},
  "layers": [
   {"module": "keras.layers", "class_name": "InputLayer", "config": {"batch_shape": [null, 32, 32, 3], "dtype": "float32", "sparse": false, "name": "input_layer"}, "registered_name": null},
   {"module": "keras.layers", "class_name": "Conv2D", "config": {"name": "conv2d", "trainable": true,
      "dtype": {"module": "keras", "class_name": "DTypePolicy", "config": {"name": "float32"}, "registered_name": null},
      "filters": 32, "kernel_size": [3, 3], "strides": [1, 1], "padding": "valid", "data_format": "channels_last", "dilation_rate": [1, 1], "groups": 1,
      "activation": "relu", "use_bias": true, "kernel_initializer": {"module": "keras.initializers", "class_name": "GlorotUniform", "config": {"seed": null}, "registered_name": null},
      "bias_initializer": {"module": "keras.initializers", "class_name": "Zeros", "config": {}, "registered_name": null},
      "kernel_regularizer": null, "bias_regularizer": null, "activity_regularizer": null, "kernel_constraint": null, "bias_constraint": null}, "registered_name": null, "build_config": {"input_shape": [null, 32, 32, 3]}},
   {"module": "keras.layers", "class_name": "MaxPooling2D", "config": {"name": "max_pooling2d", "trainable": true, "dtype": "float32", "pool_size": [2, 2], "padding": "valid", "strides": [2, 2], "data_format": "channels_last"}, "registered_name": null},
   {"module": "keras.layers", "class_name": "Flatten", "config": {"name": "flatten", "trainable": true, "dtype": "float32", "data_format": "channels_last"}, "registered_name": null},
   {"module": "keras.layers", "class_name": "Dense", "config": {"name": "dense", "trainable": true, "dtype": "float32", "units": 10, "activation": "linear", "use_bias": true,
      "kernel_initializer": {"module": "keras.initializers", "class_name": "GlorotUniform", "config": {"seed": null}, "registered_name": null},
      "bias_initializer": {"module": "keras.initializers", "class_name": "Zeros", "config": {}, "registered_name": null},
      "kernel_regularizer": null, "bias_regularizer": null, "kernel_constraint": null, "bias_constraint": null, "lora_rank": null}, "registered_name": null}],
  "build_input_shape": [null, 32, 32, 3]}, "registered_name": null, "build_config": {"input_shape": [null, 32, 32, 3]}})";

// A tf.keras 2.x (TF 2.12) model.to_json() of a sequence classifier: Conv1D's kernel_size,
// strides and dilation_rate are 1-tuples, LayerNormalization's axis is the built [2] (the last
// axis counted with the batch), Dropout's noise_shape a list with None.
const char* kTf2Sequence = R"({"class_name": "Sequential", "config": {"name": "sequential", "layers": [
  {"class_name": "InputLayer", "config": {"batch_input_shape": [null, 100, 8], "dtype": "float32", "sparse": false, "ragged": false, "name": "conv1d_input"}},
  {"class_name": "Conv1D", "config": {"name": "conv1d", "trainable": true, "dtype": "float32", "batch_input_shape": [null, 100, 8],
     "filters": 16, "kernel_size": [5], "strides": [1], "padding": "causal", "data_format": "channels_last", "dilation_rate": [1], "groups": 1,
     "activation": "relu", "use_bias": true, "kernel_initializer": {"class_name": "GlorotUniform", "config": {"seed": null}},
     "bias_initializer": {"class_name": "Zeros", "config": {}}, "kernel_regularizer": null, "bias_regularizer": null,
     "activity_regularizer": null, "kernel_constraint": null, "bias_constraint": null}},
  {"class_name": "Dropout", "config": {"name": "dropout", "trainable": true, "dtype": "float32", "rate": 0.3, "noise_shape": [null, 1, 16], "seed": null}},
  {"class_name": "LayerNormalization", "config": {"name": "layer_normalization", "trainable": true, "dtype": "float32", "axis": [2],
     "epsilon": 0.001, "center": true, "scale": true, "beta_initializer": {"class_name": "Zeros", "config": {}},
     "gamma_initializer": {"class_name": "Ones", "config": {}}, "beta_regularizer": null, "gamma_regularizer": null,
     "beta_constraint": null, "gamma_constraint": null}},
  {"class_name": "GlobalMaxPooling1D", "config": {"name": "global_max_pooling1d", "trainable": true, "dtype": "float32", "data_format": "channels_last", "keepdims": false}},
  {"class_name": "Dense", "config": {"name": "dense", "trainable": true, "dtype": "float32", "units": 1, "activation": "sigmoid", "use_bias": true,
     "kernel_initializer": {"class_name": "GlorotUniform", "config": {"seed": null}}, "bias_initializer": {"class_name": "Zeros", "config": {}},
     "kernel_regularizer": null, "bias_regularizer": null, "activity_regularizer": null, "kernel_constraint": null, "bias_constraint": null}}]},
  "keras_version": "2.12.0", "backend": "tensorflow"})";

// A tf.keras 2.x model.to_json() of a small image model: ZeroPadding2D's padding as Keras
// normalizes it (((1, 1), (2, 2))), AveragePooling2D, GlobalAveragePooling2D.
const char* kTf2Images = R"({"class_name": "Sequential", "config": {"name": "sequential_1", "layers": [
  {"class_name": "InputLayer", "config": {"batch_input_shape": [null, 32, 32, 3], "dtype": "float32", "sparse": false, "ragged": false, "name": "zero_padding2d_input"}},
  {"class_name": "ZeroPadding2D", "config": {"name": "zero_padding2d", "trainable": true, "dtype": "float32", "batch_input_shape": [null, 32, 32, 3],
     "padding": [[1, 1], [2, 2]], "data_format": "channels_last"}},
  {"class_name": "Conv2D", "config": {"name": "conv2d", "trainable": true, "dtype": "float32", "filters": 4, "kernel_size": [3, 3], "strides": [1, 1],
     "padding": "valid", "data_format": "channels_last", "dilation_rate": [1, 1], "groups": 1, "activation": "relu", "use_bias": true,
     "kernel_initializer": {"class_name": "GlorotUniform", "config": {"seed": null}}, "bias_initializer": {"class_name": "Zeros", "config": {}},
     "kernel_regularizer": null, "bias_regularizer": null, "activity_regularizer": null, "kernel_constraint": null, "bias_constraint": null}},
  {"class_name": "AveragePooling2D", "config": {"name": "average_pooling2d", "trainable": true, "dtype": "float32", "pool_size": [2, 2],
     "padding": "same", "strides": [2, 2], "data_format": "channels_last"}},
  {"class_name": "GlobalAveragePooling2D", "config": {"name": "global_average_pooling2d", "trainable": true, "dtype": "float32",
     "data_format": "channels_last", "keepdims": false}},
  {"class_name": "Dense", "config": {"name": "dense", "trainable": true, "dtype": "float32", "units": 10, "activation": "linear", "use_bias": true,
     "kernel_initializer": {"class_name": "GlorotUniform", "config": {"seed": null}}, "bias_initializer": {"class_name": "Zeros", "config": {}},
     "kernel_regularizer": null, "bias_regularizer": null, "activity_regularizer": null, "kernel_constraint": null, "bias_constraint": null}}]},
  "keras_version": "2.15.0", "backend": "tensorflow"})";

// A Keras 3 model.to_json() with the new layers: module/registered_name, DTypePolicy objects,
// ZeroPadding2D's nested padding, AveragePooling2D, Reshape with -1, Conv1D's 1-tuples,
// LayerNormalization's built axis [-1] and rms_scaling, GlobalMaxPooling1D.
const char* kKeras3NewLayers = R"({"module": "keras", "class_name": "Sequential", "config": {"name": "sequential", "trainable": true,
  "dtype": {"module": "keras", "class_name": "DTypePolicy", "config": {"name": "float32"}, "registered_name": null},
  "layers": [
   {"module": "keras.layers", "class_name": "InputLayer", "config": {"batch_shape": [null, 28, 28, 1], "dtype": "float32", "sparse": false, "name": "input_layer"}, "registered_name": null},
   {"module": "keras.layers", "class_name": "ZeroPadding2D", "config": {"name": "zero_padding2d", "trainable": true,
      "dtype": {"module": "keras", "class_name": "DTypePolicy", "config": {"name": "float32"}, "registered_name": null},
      "padding": [[1, 1], [2, 2]], "data_format": "channels_last"}, "registered_name": null, "build_config": {"input_shape": [null, 28, 28, 1]}},
   {"module": "keras.layers", "class_name": "Conv2D", "config": {"name": "conv2d", "trainable": true,
      "dtype": {"module": "keras", "class_name": "DTypePolicy", "config": {"name": "float32"}, "registered_name": null},
      "filters": 8, "kernel_size": [3, 3], "strides": [1, 1], "padding": "valid", "data_format": "channels_last", "dilation_rate": [1, 1], "groups": 1,
      "activation": "relu", "use_bias": true, "kernel_initializer": {"module": "keras.initializers", "class_name": "GlorotUniform", "config": {"seed": null}, "registered_name": null},
      "bias_initializer": {"module": "keras.initializers", "class_name": "Zeros", "config": {}, "registered_name": null},
      "kernel_regularizer": null, "bias_regularizer": null, "activity_regularizer": null, "kernel_constraint": null, "bias_constraint": null},
    "registered_name": null, "build_config": {"input_shape": [null, 30, 32, 1]}},
   {"module": "keras.layers", "class_name": "AveragePooling2D", "config": {"name": "average_pooling2d", "trainable": true,
      "dtype": {"module": "keras", "class_name": "DTypePolicy", "config": {"name": "float32"}, "registered_name": null},
      "pool_size": [2, 2], "padding": "same", "strides": [2, 2], "data_format": "channels_last"}, "registered_name": null, "build_config": {"input_shape": [null, 28, 30, 8]}},
   {"module": "keras.layers", "class_name": "Reshape", "config": {"name": "reshape", "trainable": true,
      "dtype": {"module": "keras", "class_name": "DTypePolicy", "config": {"name": "float32"}, "registered_name": null},
      "target_shape": [-1, 8]}, "registered_name": null, "build_config": {"input_shape": [null, 14, 15, 8]}},
   {"module": "keras.layers", "class_name": "Conv1D", "config": {"name": "conv1d", "trainable": true,
      "dtype": {"module": "keras", "class_name": "DTypePolicy", "config": {"name": "float32"}, "registered_name": null},
      "filters": 16, "kernel_size": [3], "strides": [2], "padding": "same", "data_format": "channels_last", "dilation_rate": [1], "groups": 1,
      "activation": "linear", "use_bias": true, "kernel_initializer": {"module": "keras.initializers", "class_name": "HeNormal", "config": {"seed": null}, "registered_name": null},
      "bias_initializer": {"module": "keras.initializers", "class_name": "Zeros", "config": {}, "registered_name": null},
      "kernel_regularizer": {"module": "keras.regularizers", "class_name": "L2", "config": {"l2": 0.001}, "registered_name": null},
      "bias_regularizer": null, "activity_regularizer": null, "kernel_constraint": null, "bias_constraint": null},
    "registered_name": null, "build_config": {"input_shape": [null, 210, 8]}},
   {"module": "keras.layers", "class_name": "LayerNormalization", "config": {"name": "layer_normalization", "trainable": true,
      "dtype": {"module": "keras", "class_name": "DTypePolicy", "config": {"name": "float32"}, "registered_name": null},
      "axis": [-1], "epsilon": 0.001, "center": true, "scale": true, "rms_scaling": false,
      "beta_initializer": {"module": "keras.initializers", "class_name": "Zeros", "config": {}, "registered_name": null},
      "gamma_initializer": {"module": "keras.initializers", "class_name": "Ones", "config": {}, "registered_name": null},
      "beta_regularizer": null, "gamma_regularizer": null, "beta_constraint": null, "gamma_constraint": null},
    "registered_name": null, "build_config": {"input_shape": [null, 105, 16]}},
   {"module": "keras.layers", "class_name": "GlobalMaxPooling1D", "config": {"name": "global_max_pooling1d", "trainable": true,
      "dtype": {"module": "keras", "class_name": "DTypePolicy", "config": {"name": "float32"}, "registered_name": null},
      "data_format": "channels_last", "keepdims": false}, "registered_name": null, "build_config": {"input_shape": [null, 105, 16]}},
   {"module": "keras.layers", "class_name": "Dense", "config": {"name": "dense", "trainable": true,
      "dtype": {"module": "keras", "class_name": "DTypePolicy", "config": {"name": "float32"}, "registered_name": null},
      "units": 10, "activation": "softmax", "use_bias": true,
      "kernel_initializer": {"module": "keras.initializers", "class_name": "GlorotUniform", "config": {"seed": null}, "registered_name": null},
      "bias_initializer": {"module": "keras.initializers", "class_name": "Zeros", "config": {}, "registered_name": null},
      "kernel_regularizer": null, "bias_regularizer": null, "kernel_constraint": null, "bias_constraint": null, "lora_rank": null},
    "registered_name": null, "build_config": {"input_shape": [null, 16]}}],
  "build_input_shape": [null, 28, 28, 1]}, "registered_name": null, "build_config": {"input_shape": [null, 28, 28, 1]}})";

// tf.keras 2.12's model.to_json() of a text model: Embedding -> LSTM(64, return_sequences) ->
// GRU(32) -> Dense(1, sigmoid), the recurrent layers' configs as Keras 2.x's get_config writes
// them (RNN base: return_sequences, return_state, go_backwards, stateful, unroll, time_major;
// the cell's settings; implementation).
const char* kTf2Recurrent = R"({"class_name": "Sequential", "config": {"name": "sequential", "layers": [
  {"class_name": "InputLayer", "config": {"batch_input_shape": [null, 50], "dtype": "float32", "sparse": false, "ragged": false, "name": "embedding_input"}},
  {"class_name": "Embedding", "config": {"name": "embedding", "trainable": true, "dtype": "float32", "batch_input_shape": [null, 50],
     "input_dim": 1000, "output_dim": 32, "embeddings_initializer": {"class_name": "RandomUniform", "config": {"minval": -0.05, "maxval": 0.05, "seed": null}},
     "embeddings_regularizer": null, "activity_regularizer": null, "embeddings_constraint": null, "mask_zero": false, "input_length": 50}},
  {"class_name": "LSTM", "config": {"name": "lstm", "trainable": true, "dtype": "float32", "return_sequences": true, "return_state": false,
     "go_backwards": false, "stateful": false, "unroll": false, "time_major": false, "units": 64, "activation": "tanh",
     "recurrent_activation": "sigmoid", "use_bias": true, "kernel_initializer": {"class_name": "GlorotUniform", "config": {"seed": null}},
     "recurrent_initializer": {"class_name": "Orthogonal", "config": {"gain": 1.0, "seed": null}},
     "bias_initializer": {"class_name": "Zeros", "config": {}}, "unit_forget_bias": true, "kernel_regularizer": null,
     "recurrent_regularizer": null, "bias_regularizer": null, "activity_regularizer": null, "kernel_constraint": null,
     "recurrent_constraint": null, "bias_constraint": null, "dropout": 0.0, "recurrent_dropout": 0.0, "implementation": 2}},
  {"class_name": "GRU", "config": {"name": "gru", "trainable": true, "dtype": "float32", "return_sequences": false, "return_state": false,
     "go_backwards": false, "stateful": false, "unroll": false, "time_major": false, "units": 32, "activation": "tanh",
     "recurrent_activation": "sigmoid", "use_bias": true, "kernel_initializer": {"class_name": "GlorotUniform", "config": {"seed": null}},
     "recurrent_initializer": {"class_name": "Orthogonal", "config": {"gain": 1.0, "seed": null}},
     "bias_initializer": {"class_name": "Zeros", "config": {}}, "kernel_regularizer": {"class_name": "L2", "config": {"l2": 0.001}},
     "recurrent_regularizer": {"class_name": "L2", "config": {"l2": 0.002}}, "bias_regularizer": null, "activity_regularizer": null,
     "kernel_constraint": null, "recurrent_constraint": null, "bias_constraint": null, "dropout": 0.0, "recurrent_dropout": 0.0,
     "implementation": 2, "reset_after": true}},
  {"class_name": "Dense", "config": {"name": "dense", "trainable": true, "dtype": "float32", "units": 1, "activation": "sigmoid", "use_bias": true,
     "kernel_initializer": {"class_name": "GlorotUniform", "config": {"seed": null}}, "bias_initializer": {"class_name": "Zeros", "config": {}},
     "kernel_regularizer": null, "bias_regularizer": null, "activity_regularizer": null, "kernel_constraint": null, "bias_constraint": null}}]},
  "keras_version": "2.12.0", "backend": "tensorflow"})";

// Keras 3's: GRU(16, return_sequences, reset_after=False) -> LSTM(8) -> Dense(1) on (20, 8)
// sequences; Keras 3's get_config adds zero_output_for_mask and seed, drops time_major and
// implementation, and writes dtypes and initializers as objects with module and
// registered_name.
const char* kKeras3Recurrent = R"({"module": "keras", "class_name": "Sequential", "config": {"name": "sequential", "trainable": true,
  "dtype": {"module": "keras", "class_name": "DTypePolicy", "config": {"name": "float32"}, "registered_name": null},
  "layers": [
   {"module": "keras.layers", "class_name": "InputLayer", "config": {"batch_shape": [null, 20, 8], "dtype": "float32", "sparse": false, "name": "input_layer"}, "registered_name": null},
   {"module": "keras.layers", "class_name": "GRU", "config": {"name": "gru", "trainable": true,
      "dtype": {"module": "keras", "class_name": "DTypePolicy", "config": {"name": "float32"}, "registered_name": null},
      "return_sequences": true, "return_state": false, "go_backwards": false, "stateful": false, "unroll": false, "zero_output_for_mask": false,
      "units": 16, "activation": "tanh", "recurrent_activation": "sigmoid", "use_bias": true,
      "kernel_initializer": {"module": "keras.initializers", "class_name": "GlorotUniform", "config": {"seed": null}, "registered_name": null},
      "recurrent_initializer": {"module": "keras.initializers", "class_name": "Orthogonal", "config": {"seed": null, "gain": 1.0}, "registered_name": null},
      "bias_initializer": {"module": "keras.initializers", "class_name": "Zeros", "config": {}, "registered_name": null},
      "kernel_regularizer": null, "recurrent_regularizer": null, "bias_regularizer": null, "activity_regularizer": null,
      "kernel_constraint": null, "recurrent_constraint": null, "bias_constraint": null, "dropout": 0.0, "recurrent_dropout": 0.0,
      "reset_after": false, "seed": null}, "registered_name": null, "build_config": {"input_shape": [null, 20, 8]}},
   {"module": "keras.layers", "class_name": "LSTM", "config": {"name": "lstm", "trainable": true,
      "dtype": {"module": "keras", "class_name": "DTypePolicy", "config": {"name": "float32"}, "registered_name": null},
      "return_sequences": false, "return_state": false, "go_backwards": false, "stateful": false, "unroll": false, "zero_output_for_mask": false,
      "units": 8, "activation": "tanh", "recurrent_activation": "sigmoid", "use_bias": true,
      "kernel_initializer": {"module": "keras.initializers", "class_name": "GlorotUniform", "config": {"seed": null}, "registered_name": null},
      "recurrent_initializer": {"module": "keras.initializers", "class_name": "Orthogonal", "config": {"seed": null, "gain": 1.0}, "registered_name": null},
      "bias_initializer": {"module": "keras.initializers", "class_name": "Zeros", "config": {}, "registered_name": null},
      "unit_forget_bias": true, "kernel_regularizer": null, "recurrent_regularizer": null, "bias_regularizer": null, "activity_regularizer": null,
      "kernel_constraint": null, "recurrent_constraint": null, "bias_constraint": null, "dropout": 0.0, "recurrent_dropout": 0.0,
      "seed": null}, "registered_name": null, "build_config": {"input_shape": [null, 20, 16]}},
   {"module": "keras.layers", "class_name": "Dense", "config": {"name": "dense", "trainable": true, "dtype": "float32", "units": 1, "activation": "linear", "use_bias": true,
      "kernel_initializer": {"module": "keras.initializers", "class_name": "GlorotUniform", "config": {"seed": null}, "registered_name": null},
      "bias_initializer": {"module": "keras.initializers", "class_name": "Zeros", "config": {}, "registered_name": null},
      "kernel_regularizer": null, "bias_regularizer": null, "kernel_constraint": null, "bias_constraint": null}, "registered_name": null}],
  "build_input_shape": [null, 20, 8]}, "registered_name": null, "build_config": {"input_shape": [null, 20, 8]}})";

// Keras' own parameter counts: LSTM 4u(d + u + 1); GRU 3u(d + u + 2) with reset_after (two
// biases), 3u(d + u + 1) without; no bias: 4u(d + u), 3u(d + u).
int64_t kerasLstmParams(int64_t d, int64_t u, bool bias) { return 4 * u * (d + u + (bias ? 1 : 0)); }
int64_t kerasGruParams(int64_t d, int64_t u, bool bias, bool resetAfter)
{
    return 3 * u * (d + u + (bias ? (resetAfter ? 2 : 1) : 0));
}

} // namespace

class TestModelSpec : public QObject {
    Q_OBJECT

private slots:
    void ownFormatWithDefaultsAndAutomaticNames()
    {
        Problems problems;
        const ModelSpec m = parse(R"({"input_shape": [28, 28], "layers": [
            {"type": "Flatten"}, {"type": "Dense", "units": 128, "activation": "relu"}, {"type": "Dense", "units": 10}]})",
                                  problems);
        QVERIFY2(problems.empty(), qPrintable(joined(problems)));
        QCOMPARE(m.layers.size(), size_t(3));
        QCOMPARE(m.layers[0].name, std::string("flatten"));
        QCOMPARE(m.layers[1].name, std::string("dense"));
        QCOMPARE(m.layers[2].name, std::string("dense_1"));
        QCOMPARE(m.layers[2].text("activation"), std::string("linear"));
        QCOMPARE(m.layers[2].text("kernel_initializer"), std::string("glorot_uniform"));
        QVERIFY(m.layers[2].flag("use_bias"));

        const ModelShapes s = inferShapes(m);
        QVERIFY(s.ok());
        QCOMPARE(s.layers[0].output, Shape({784}));
        QCOMPARE(s.layers[1].paramCount, int64_t(784 * 128 + 128));
        QCOMPARE(s.totalParams, int64_t(101770));
    }

    void summaryLooksLikeKeras()
    {
        Problems problems;
        const ModelSpec m = parse(R"({"input_shape": [28, 28], "layers": [
            {"type": "Flatten"}, {"type": "Dense", "units": 128, "activation": "relu"}, {"type": "Dense", "units": 10}]})",
                                  problems);
        const QString text = QString::fromStdString(summary(m, inferShapes(m)));
        QVERIFY(text.contains("Model: \"sequential\""));
        QVERIFY(text.contains(QRegularExpression(R"( flatten \(Flatten\)\s+\(None, 784\)\s+0\n)")));
        QVERIFY(text.contains(QRegularExpression(R"( dense \(Dense\)\s+\(None, 128\)\s+100,480\n)")));
        QVERIFY(text.contains("Total params: 101,770"));
    }

    // A name and type longer than their column continue on the next line, as tf.keras prints
    // them, instead of running into the output shape.
    void summaryWrapsLongNames()
    {
        Problems problems;
        const ModelSpec m = parse(R"({"input_shape": [8, 8, 1], "layers": [
            {"type": "MaxPooling2D", "name": "max_pooling2d_10"}, {"type": "Flatten"}]})",
                                  problems);
        const QString text = QString::fromStdString(summary(m, inferShapes(m)));
        QVERIFY2(text.contains(" max_pooling2d_10 (MaxPooli  (None, 4, 4, 1)           0\nng2D)\n"), qPrintable(text));
        for (const QString& line : text.split('\n'))
            QVERIFY2(line.size() <= 65, qPrintable(line));
    }

    void convolutionShapes_data()
    {
        QTest::addColumn<QString>("layer");
        QTest::addColumn<QList<qint64>>("input");
        QTest::addColumn<QList<qint64>>("output");
        QTest::addColumn<qint64>("params");
        QTest::newRow("conv valid") << R"({"type": "Conv2D", "filters": 32, "kernel_size": 3})" << QList<qint64>{32, 32, 3}
                                    << QList<qint64>{30, 30, 32} << qint64(3 * 3 * 3 * 32 + 32);
        QTest::newRow("conv same stride 2") << R"({"type": "Conv2D", "filters": 8, "kernel_size": [3, 5], "strides": 2, "padding": "same"})"
                                            << QList<qint64>{7, 9, 2} << QList<qint64>{4, 5, 8} << qint64(3 * 5 * 2 * 8 + 8);
        QTest::newRow("pool default") << R"({"type": "MaxPooling2D"})" << QList<qint64>{30, 30, 32}
                                      << QList<qint64>{15, 15, 32} << qint64(0);
        QTest::newRow("pool odd") << R"({"type": "MaxPooling2D"})" << QList<qint64>{13, 13, 64} << QList<qint64>{6, 6, 64}
                                  << qint64(0);
        QTest::newRow("pool same") << R"({"type": "MaxPooling2D", "pool_size": 3, "strides": 2, "padding": "same"})"
                                   << QList<qint64>{13, 13, 4} << QList<qint64>{7, 7, 4} << qint64(0);
        QTest::newRow("embedding") << R"({"type": "Embedding", "input_dim": 1000, "output_dim": 16})" << QList<qint64>{50}
                                   << QList<qint64>{50, 16} << qint64(16000);
        QTest::newRow("gap1d") << R"({"type": "GlobalAveragePooling1D"})" << QList<qint64>{50, 16} << QList<qint64>{16}
                               << qint64(0);
        QTest::newRow("dense on sequences") << R"({"type": "Dense", "units": 4})" << QList<qint64>{50, 16}
                                            << QList<qint64>{50, 4} << qint64(16 * 4 + 4);
        // Keras' arithmetic: Conv1D k * in * filters + filters; LayerNormalization 2 * d.
        QTest::newRow("conv1d valid") << R"({"type": "Conv1D", "filters": 4, "kernel_size": 3})" << QList<qint64>{10, 3}
                                      << QList<qint64>{8, 4} << qint64(3 * 3 * 4 + 4);
        QTest::newRow("conv1d same s2") << R"({"type": "Conv1D", "filters": 4, "kernel_size": 3, "strides": 2, "padding": "same"})"
                                        << QList<qint64>{11, 3} << QList<qint64>{6, 4} << qint64(3 * 3 * 4 + 4);
        QTest::newRow("conv1d causal s3 no bias")
            << R"({"type": "Conv1D", "filters": 5, "kernel_size": 4, "strides": 3, "padding": "causal", "use_bias": false})"
            << QList<qint64>{10, 2} << QList<qint64>{4, 5} << qint64(4 * 2 * 5);
        QTest::newRow("avgpool default") << R"({"type": "AveragePooling2D"})" << QList<qint64>{13, 13, 4}
                                         << QList<qint64>{6, 6, 4} << qint64(0);
        QTest::newRow("avgpool same") << R"({"type": "AveragePooling2D", "pool_size": 3, "strides": 2, "padding": "same"})"
                                      << QList<qint64>{13, 13, 4} << QList<qint64>{7, 7, 4} << qint64(0);
        QTest::newRow("gap2d") << R"({"type": "GlobalAveragePooling2D"})" << QList<qint64>{5, 6, 7} << QList<qint64>{7}
                               << qint64(0);
        QTest::newRow("gmp1d") << R"({"type": "GlobalMaxPooling1D"})" << QList<qint64>{50, 16} << QList<qint64>{16}
                               << qint64(0);
        QTest::newRow("gmp2d") << R"({"type": "GlobalMaxPooling2D"})" << QList<qint64>{5, 6, 7} << QList<qint64>{7}
                               << qint64(0);
        QTest::newRow("layer norm") << R"({"type": "LayerNormalization"})" << QList<qint64>{50, 16}
                                    << QList<qint64>{50, 16} << qint64(2 * 16);
        QTest::newRow("layer norm no center") << R"({"type": "LayerNormalization", "center": false})"
                                              << QList<qint64>{16} << QList<qint64>{16} << qint64(16);
        QTest::newRow("layer norm neither") << R"({"type": "LayerNormalization", "center": false, "scale": false})"
                                            << QList<qint64>{16} << QList<qint64>{16} << qint64(0);
        QTest::newRow("reshape -1") << R"({"type": "Reshape", "target_shape": [-1, 4]})" << QList<qint64>{6, 2}
                                    << QList<qint64>{3, 4} << qint64(0);
        QTest::newRow("reshape full") << R"({"type": "Reshape", "target_shape": [2, 3, 2]})" << QList<qint64>{12}
                                      << QList<qint64>{2, 3, 2} << qint64(0);
        QTest::newRow("zero padding int") << R"({"type": "ZeroPadding2D", "padding": 2})" << QList<qint64>{5, 5, 2}
                                          << QList<qint64>{9, 9, 2} << qint64(0);
        QTest::newRow("zero padding pairs") << R"({"type": "ZeroPadding2D", "padding": [[1, 2], [3, 4]]})"
                                            << QList<qint64>{5, 5, 2} << QList<qint64>{8, 12, 2} << qint64(0);
        QTest::newRow("dropout noise_shape") << R"({"type": "Dropout", "rate": 0.5, "noise_shape": [null, 1, 16]})"
                                             << QList<qint64>{50, 16} << QList<qint64>{50, 16} << qint64(0);
    }

    void convolutionShapes()
    {
        QFETCH(QString, layer);
        QFETCH(QList<qint64>, input);
        QFETCH(QList<qint64>, output);
        QFETCH(qint64, params);
        Json doc{{"input_shape", std::vector<int64_t>(input.begin(), input.end())},
                 {"layers", Json::array({Json::parse(layer.toStdString())})}};
        Problems problems;
        const ModelSpec m = parseModel(doc, "model", problems);
        QVERIFY2(problems.empty(), qPrintable(joined(problems)));
        const ModelShapes s = inferShapes(m);
        QVERIFY2(s.ok(), s.error.c_str());
        QCOMPARE(s.output(), Shape(std::vector<int64_t>(output.begin(), output.end())));
        QCOMPARE(s.totalParams, params);
    }

    void incompatibleShapesNameTheLayerAndBothShapes()
    {
        Problems problems;
        const ModelSpec m = parse(R"({"input_shape": [7, 7, 1], "layers": [
            {"type": "Conv2D", "filters": 4, "kernel_size": 3}, {"type": "MaxPooling2D"},
            {"type": "Conv2D", "filters": 4, "kernel_size": 3, "name": "too_big"}]})",
                                  problems);
        QVERIFY(problems.empty());
        const ModelShapes s = inferShapes(m);
        QCOMPARE(s.failedLayer, 2);
        QCOMPARE(s.layers.size(), size_t(2));
        QVERIFY2(QString::fromStdString(s.error).contains("\"too_big\" (Conv2D)"), s.error.c_str());
        QVERIFY2(QString::fromStdString(s.error).contains("(None, 2, 2, 4)"), s.error.c_str());
        QVERIFY2(QString::fromStdString(s.error).contains("kernel (3, 3) is larger than the (2, 2) image"), s.error.c_str());
        QVERIFY_THROWS_EXCEPTION(strata::ShapeError, checkedShapes(m));

        Problems p2;
        const ModelSpec dense = parse(R"({"input_shape": [28, 28], "layers": [{"type": "Conv2D", "filters": 4, "kernel_size": 3}]})", p2);
        const ModelShapes s2 = inferShapes(dense);
        QVERIFY2(QString::fromStdString(s2.error).contains("(None, 28, 28)"), s2.error.c_str());
    }

    void problemsCarryFieldPaths_data()
    {
        QTest::addColumn<QString>("model");
        QTest::addColumn<QString>("path");
        QTest::addColumn<QString>("message");
        QTest::newRow("unknown field") << R"({"input_shape": [4], "layers": [{"type": "Dense", "unit": 3}]})"
                                       << "model.layers[0].unit" << "did you mean \"units\"";
        QTest::newRow("missing units") << R"({"input_shape": [4], "layers": [{"type": "Dense"}]})"
                                       << "model.layers[0].units" << "is required";
        QTest::newRow("unknown type") << R"({"input_shape": [4], "layers": [{"type": "Dens", "units": 3}]})"
                                      << "model.layers[0].type" << "did you mean \"Dense\"";
        QTest::newRow("bad activation") << R"({"input_shape": [4], "layers": [{"type": "Dense", "units": 3, "activation": "rellu"}]})"
                                        << "model.layers[0].activation" << "did you mean \"relu\"";
        QTest::newRow("negative units") << R"({"input_shape": [4], "layers": [{"type": "Dense", "units": -3}]})"
                                        << "model.layers[0].units" << "must be between 1";
        QTest::newRow("wrong type") << R"({"input_shape": [4], "layers": [{"type": "Dense", "units": "ten"}]})"
                                    << "model.layers[0].units" << "must be an integer, got string \"ten\"";
        QTest::newRow("dropout rate 1") << R"({"input_shape": [4], "layers": [{"type": "Dropout", "rate": 1}]})"
                                        << "model.layers[0].rate" << "must be below 1";
        QTest::newRow("bad kernel size") << R"({"input_shape": [4, 4, 1], "layers": [{"type": "Conv2D", "filters": 1, "kernel_size": [3, 0]}]})"
                                         << "model.layers[0].kernel_size[1]" << "must be at least 1";
        QTest::newRow("no input shape") << R"({"layers": [{"type": "Dense", "units": 3}]})" << "model.input_shape" << "is required";
        QTest::newRow("duplicate names") << R"({"input_shape": [4], "layers": [{"type": "Dense", "units": 3, "name": "a"}, {"type": "Dense", "units": 3, "name": "a"}]})"
                                         << "model.layers[1].name" << "duplicate layer name";
        QTest::newRow("regularizer field") << R"({"input_shape": [4], "layers": [{"type": "Dense", "units": 3, "kernel_regularizer": {"l1": 0.1}}]})"
                                           << "model.layers[0].kernel_regularizer.l1" << "unknown field";
    }

    void problemsCarryFieldPaths()
    {
        QFETCH(QString, model);
        QFETCH(QString, path);
        QFETCH(QString, message);
        Problems problems;
        parse(model.toUtf8().constData(), problems);
        bool found = false;
        for (const auto& p : problems.list())
            if (QString::fromStdString(p.path) == path && QString::fromStdString(p.message).contains(message))
                found = true;
        QVERIFY2(found, qPrintable("expected \"" + path + ": ..." + message + "\", got:\n" + joined(problems)));
    }

    void everyProblemIsReported()
    {
        Problems problems;
        parse(R"({"input_shape": [4], "layers": [{"type": "Dense", "unit": 3}, {"type": "Dropout", "rate": 2}, {"type": "Nope"}]})",
              problems);
        QCOMPARE(problems.list().size(), size_t(4)); // unit unknown, units missing, rate, type
    }

    void importsKerasTf2()
    {
        Problems problems;
        const ModelSpec m = parse(kTf2Mlp, problems);
        QVERIFY2(problems.empty(), qPrintable(joined(problems)));
        QCOMPARE(m.inputShape, Shape({28, 28}));
        QCOMPARE(m.layers.size(), size_t(3));
        QCOMPARE(m.layers[1].name, std::string("dense"));
        QCOMPARE(m.layers[1].l2("kernel_regularizer"), 0.0001);
        QCOMPARE(m.layers[2].text("activation"), std::string("softmax"));
        QCOMPARE(inferShapes(m).totalParams, int64_t(101770));
    }

    void importsKeras3()
    {
        Problems problems;
        const ModelSpec m = parse(kKeras3Cnn, problems);
        QVERIFY2(problems.empty(), qPrintable(joined(problems)));
        QCOMPARE(m.inputShape, Shape({32, 32, 3}));
        QCOMPARE(m.layers[0].type, std::string("Conv2D"));
        QCOMPARE(m.layers[0].pair("kernel_size"), (std::vector<int64_t>{3, 3}));
        const ModelShapes s = inferShapes(m);
        QVERIFY(s.ok());
        QCOMPARE(s.layers[1].output, Shape({15, 15, 32}));
        QCOMPARE(s.output(), Shape({10}));
    }

    void importsEveryKerasFormat()
    {
        Problems problems;
        const ModelSpec k21 = parse(kKeras21Mlp, problems);
        QVERIFY2(problems.empty(), qPrintable(joined(problems)));
        QCOMPARE(k21.inputShape, Shape({784}));
        QCOMPARE(k21.layers.size(), size_t(3));
        QCOMPARE(k21.layers[0].text("kernel_initializer"), std::string("he_normal"));
        QCOMPARE(k21.layers[2].text("kernel_initializer"), std::string("glorot_uniform"));
        QCOMPARE(inferShapes(k21).totalParams, int64_t(784 * 128 + 128 + 128 * 10 + 10));

        const ModelSpec k22 = parse(kKeras22Mlp, problems);
        QVERIFY2(problems.empty(), qPrintable(joined(problems)));
        QCOMPARE(k22.name, std::string("sequential_1"));
        QCOMPARE(k22.inputShape, Shape({28, 28})); // the fixed batch of 32 is the batch's
        QCOMPARE(k22.layers[1].text("kernel_initializer"), std::string("lecun_uniform"));
        QCOMPARE(inferShapes(k22).totalParams, int64_t(101770));

        const ModelSpec k215 = parse(kKeras215Cnn, problems);
        QVERIFY2(problems.empty(), qPrintable(joined(problems)));
        QCOMPARE(k215.inputShape, Shape({50, 50, 1}));
        QCOMPARE(k215.layers.size(), size_t(5));
        QCOMPARE(k215.layers[0].text("kernel_initializer"), std::string("glorot_uniform"));
        QCOMPARE(k215.layers[1].type, std::string("Activation"));
        QCOMPARE(inferShapes(k215).totalParams, int64_t(3 * 3 * 1 * 32 + 32 + 24 * 24 * 32 * 2 + 2));

        const ModelSpec k38 = parse(kKeras38Mlp, problems);
        QVERIFY2(problems.empty(), qPrintable(joined(problems)));
        QCOMPARE(k38.inputShape, Shape({784}));
        QCOMPARE(inferShapes(k38).totalParams, int64_t(101770));
    }

    void malformedKerasFilesNameThePathAndWhatWasExpected()
    {
        auto problemsOf = [](const char* text) {
            Problems p;
            parseModel(Json::parse(text), "model", p);
            return joined(p);
        };
        const QString config = problemsOf(R"({"class_name": "Sequential", "config": 3})");
        QVERIFY2(config.contains("model.config: must be the model's config"), qPrintable(config));
        const QString layer = problemsOf(R"({"class_name": "Sequential", "config": {"layers": [{"class_name": "Dense", "config": {"units": 2, "batch_input_shape": [null, 4]}}, 3]}})");
        QVERIFY2(layer.contains("model.config.layers[1]: must be a Keras layer"), qPrintable(layer));
        const QString oldLayer = problemsOf(R"({"class_name": "Sequential", "config": [{"class_name": "Dense", "config": "units=2"}]})");
        QVERIFY2(oldLayer.contains("model.config[0]: must be a Keras layer"), qPrintable(oldLayer));
        for (const QString& all : {config, layer, oldLayer})
            QVERIFY2(!all.contains("json.exception"), qPrintable(all));
        // A VarianceScaling Strata has no initializer for is refused at its path.
        Json doc = Json::parse(kKeras21Mlp);
        doc["config"][0]["config"]["kernel_initializer"]["config"]["mode"] = "fan_out";
        Problems p;
        parseModel(doc, "model", p);
        QVERIFY2(joined(p).contains("model.config[0].config.kernel_initializer: VarianceScaling(scale=2"), qPrintable(joined(p)));

        // Members of other types than Keras writes (found by fuzz_keras_model: nlohmann's
        // type_error escaped the import) are problems at their paths.
        Json typed = Json::parse(kKeras21Mlp);
        typed["config"][1]["config"]["name"] = 0.2;
        typed["config"][0]["config"]["kernel_initializer"]["config"]["scale"] = "two";
        typed["config"][0]["config"]["kernel_regularizer"] = "l2";
        typed["config"][2]["config"]["bias_initializer"]["config"] = "zeros";
        Problems types;
        parseModel(typed, "model", types);
        const QString all = joined(types);
        for (const char* expected : {"model.config[1].config.name: must be a string, got number 0.2",
                                     "model.config[0].config.kernel_initializer.config.scale: must be a number, got string \"two\"",
                                     "model.config[0].config.kernel_regularizer: only L2 kernel regularizers are supported, got string",
                                     "model.config[2].config.bias_initializer.config: must be an object, got string \"zeros\""})
            QVERIFY2(all.contains(expected), qPrintable(all));
        QVERIFY2(!all.contains("json.exception"), qPrintable(all));
    }

    void kerasSettingsWeCannotHonourAreReported()
    {
        Json doc = Json::parse(kKeras3Cnn);
        doc["config"]["layers"][1]["config"]["dilation_rate"] = {2, 2};
        doc["config"]["layers"][4]["config"]["bias_regularizer"] = {{"class_name", "L2"}, {"config", {{"l2", 0.1}}}};
        doc["config"]["layers"][4]["config"]["fancy_option"] = true;
        Problems problems;
        parseModel(doc, "model", problems);
        const QString all = joined(problems);
        QVERIFY2(all.contains("model.config.layers[1].config.dilation_rate: dilated convolutions are not supported"), qPrintable(all));
        QVERIFY2(all.contains("model.config.layers[4].config.bias_regularizer"), qPrintable(all));
        QVERIFY2(all.contains("model.config.layers[4].config.fancy_option"), qPrintable(all));

        Problems functional;
        parseModel(Json::parse(R"({"class_name": "Functional", "config": {}})"), "model", functional);
        QVERIFY(joined(functional).contains("only Keras Sequential models"));

        Problems broken;
        parseModel(Json::parse(R"({"class_name": "Sequential", "config": {"layers": [3]}})"), "model", broken);
        QVERIFY(!broken.empty());
    }

    void importsKerasNewLayersTf2()
    {
        Problems problems;
        const ModelSpec seq = parse(kTf2Sequence, problems);
        QVERIFY2(problems.empty(), qPrintable(joined(problems)));
        QCOMPARE(seq.inputShape, Shape({100, 8}));
        QCOMPARE(seq.layers[0].type, std::string("Conv1D"));
        QCOMPARE(seq.layers[0].integer("kernel_size"), int64_t(5));
        QCOMPARE(seq.layers[0].integer("strides"), int64_t(1));
        QCOMPARE(seq.layers[0].text("padding"), std::string("causal"));
        QCOMPARE(seq.layers[1].config["noise_shape"], Json::parse("[null, 1, 16]"));
        QCOMPARE(seq.layers[2].number("epsilon"), 0.001);
        QCOMPARE(seq.layers[2].text("gamma_initializer"), std::string("ones"));
        const ModelShapes s = inferShapes(seq);
        QVERIFY2(s.ok(), s.error.c_str());
        QCOMPARE(s.layers[0].output, Shape({100, 16}));
        QCOMPARE(s.layers[0].paramCount, int64_t(5 * 8 * 16 + 16));
        QCOMPARE(s.layers[2].paramCount, int64_t(2 * 16));
        QCOMPARE(s.layers[3].output, Shape({16}));
        QCOMPARE(s.totalParams, int64_t(656 + 32 + 17));

        const ModelSpec images = parse(kTf2Images, problems);
        QVERIFY2(problems.empty(), qPrintable(joined(problems)));
        QCOMPARE(images.layers[0].integers("padding"), (std::vector<int64_t>{1, 1, 2, 2}));
        const ModelShapes si = inferShapes(images);
        QVERIFY2(si.ok(), si.error.c_str());
        QCOMPARE(si.layers[0].output, Shape({34, 36, 3}));
        QCOMPARE(si.layers[1].output, Shape({32, 34, 4}));
        QCOMPARE(si.layers[2].output, Shape({16, 17, 4}));
        QCOMPARE(si.layers[3].output, Shape({4}));
        QCOMPARE(si.totalParams, int64_t(3 * 3 * 3 * 4 + 4 + 4 * 10 + 10));
    }

    void importsKerasNewLayersKeras3()
    {
        Problems problems;
        const ModelSpec m = parse(kKeras3NewLayers, problems);
        QVERIFY2(problems.empty(), qPrintable(joined(problems)));
        QCOMPARE(m.layers.size(), size_t(8));
        QCOMPARE(m.layers[0].config["padding"], Json::parse("[[1, 1], [2, 2]]"));
        QCOMPARE(m.layers[2].type, std::string("AveragePooling2D"));
        QCOMPARE(m.layers[3].integers("target_shape"), (std::vector<int64_t>{-1, 8}));
        QCOMPARE(m.layers[4].integer("kernel_size"), int64_t(3));
        QCOMPARE(m.layers[4].integer("strides"), int64_t(2));
        QCOMPARE(m.layers[4].l2("kernel_regularizer"), 0.001);
        QCOMPARE(m.layers[4].text("kernel_initializer"), std::string("he_normal"));
        const ModelShapes s = inferShapes(m);
        QVERIFY2(s.ok(), s.error.c_str());
        QCOMPARE(s.layers[0].output, Shape({30, 32, 1}));
        QCOMPARE(s.layers[1].output, Shape({28, 30, 8}));
        QCOMPARE(s.layers[2].output, Shape({14, 15, 8}));
        QCOMPARE(s.layers[3].output, Shape({210, 8}));
        QCOMPARE(s.layers[4].output, Shape({105, 16}));
        QCOMPARE(s.layers[6].output, Shape({16}));
        // Conv2D 3*3*1*8+8, Conv1D 3*8*16+16, LayerNormalization 2*16, Dense 16*10+10.
        QCOMPARE(s.layers[4].paramCount, int64_t(3 * 8 * 16 + 16));
        QCOMPARE(s.layers[5].paramCount, int64_t(32));
        QCOMPARE(s.totalParams, int64_t(80 + 400 + 32 + 170));

        // Before it is built, Keras 3 writes the axis as -1.
        Json unbuilt = Json::parse(kKeras3NewLayers);
        unbuilt["config"]["layers"][6]["config"]["axis"] = -1;
        Problems p2;
        parseModel(unbuilt, "model", p2);
        QVERIFY2(p2.empty(), qPrintable(joined(p2)));
    }

    void kerasAliasesOfTheNewLayers_data()
    {
        QTest::addColumn<QString>("alias");
        QTest::addColumn<QString>("type");
        QTest::addColumn<int>("layer"); // in kTf2Images
        QTest::newRow("AvgPool2D") << "AvgPool2D" << "AveragePooling2D" << 3;
        QTest::newRow("GlobalAvgPool2D") << "GlobalAvgPool2D" << "GlobalAveragePooling2D" << 4;
        QTest::newRow("GlobalMaxPool2D") << "GlobalMaxPool2D" << "GlobalMaxPooling2D" << 4;
        QTest::newRow("GlobalMaxPooling2D") << "GlobalMaxPooling2D" << "GlobalMaxPooling2D" << 4;
    }

    void kerasAliasesOfTheNewLayers()
    {
        QFETCH(QString, alias);
        QFETCH(QString, type);
        QFETCH(int, layer);
        Json doc = Json::parse(kTf2Images);
        doc["config"]["layers"][static_cast<size_t>(layer)]["class_name"] = alias.toStdString();
        Problems problems;
        const ModelSpec m = parseModel(doc, "model", problems);
        QVERIFY2(problems.empty(), qPrintable(joined(problems)));
        QCOMPARE(QString::fromStdString(m.layers[static_cast<size_t>(layer - 1)].type), type);
        QVERIFY(inferShapes(m).ok());

        // The 1-D aliases, in the sequence model.
        Json seq = Json::parse(kTf2Sequence);
        seq["config"]["layers"][1]["class_name"] = "Convolution1D";
        seq["config"]["layers"][4]["class_name"] = "GlobalMaxPool1D";
        const ModelSpec s = parseModel(seq, "model", problems);
        QVERIFY2(problems.empty(), qPrintable(joined(problems)));
        QCOMPARE(s.layers[0].type, std::string("Conv1D"));
        QCOMPARE(s.layers[3].type, std::string("GlobalMaxPooling1D"));
        seq["config"]["layers"][4]["class_name"] = "GlobalAvgPool1D";
        QCOMPARE(parseModel(seq, "model", problems).layers[3].type, std::string("GlobalAveragePooling1D"));
    }

    // Settings of the new layers Strata cannot honour are refused at their path.
    void kerasNewLayerRefusals_data()
    {
        QTest::addColumn<QString>("fixture"); // "sequence", "images" or "keras3"
        QTest::addColumn<int>("layer");
        QTest::addColumn<QString>("key");
        QTest::addColumn<QByteArray>("value");
        QTest::addColumn<QString>("expected"); // the problem, after "model.config.layers[i].config."
        QTest::newRow("LayerNormalization axis [1]") << "sequence" << 3 << "axis" << QByteArray("[1]")
            << "axis: only the last axis (-1) is supported, got [1] on input (None, 100, 16)";
        QTest::newRow("LayerNormalization axes [1, 2]") << "sequence" << 3 << "axis" << QByteArray("[1, 2]")
            << "axis: only the last axis (-1) is supported, got [1,2]";
        QTest::newRow("LayerNormalization axis 1 (Keras 3)") << "keras3" << 6 << "axis" << QByteArray("1")
            << "axis: only the last axis (-1) is supported, got 1 on input (None, 105, 16)";
        QTest::newRow("rms_scaling") << "keras3" << 6 << "rms_scaling" << QByteArray("true")
            << "rms_scaling: RMS scaling is not supported";
        QTest::newRow("gamma_regularizer") << "sequence" << 3 << "gamma_regularizer"
            << QByteArray(R"({"class_name": "L2", "config": {"l2": 0.01}})") << "gamma_regularizer: is not supported (must be null)";
        QTest::newRow("beta_constraint") << "keras3" << 6 << "beta_constraint"
            << QByteArray(R"({"class_name": "NonNeg", "config": {}})") << "beta_constraint: is not supported (must be null)";
        QTest::newRow("gamma_initializer") << "sequence" << 3 << "gamma_initializer"
            << QByteArray(R"({"class_name": "Constant", "config": {"value": 2}})") << "gamma_initializer: initializer \"Constant\" is not supported";
        QTest::newRow("keepdims") << "images" << 4 << "keepdims" << QByteArray("true")
            << "keepdims: keepdims=true is not supported";
        QTest::newRow("GlobalMaxPooling1D keepdims") << "sequence" << 4 << "keepdims" << QByteArray("true")
            << "keepdims: keepdims=true is not supported";
        QTest::newRow("Conv1D dilation") << "sequence" << 1 << "dilation_rate" << QByteArray("[2]")
            << "dilation_rate: dilated convolutions are not supported";
        QTest::newRow("Conv1D channels_first") << "sequence" << 1 << "data_format" << QByteArray(R"("channels_first")")
            << "data_format: only channels_last is supported";
        QTest::newRow("Conv1D groups") << "keras3" << 5 << "groups" << QByteArray("2")
            << "groups: grouped convolutions are not supported";
        QTest::newRow("Conv1D padding") << "sequence" << 1 << "padding" << QByteArray(R"("full")")
            << "padding: unknown value \"full\"";
        QTest::newRow("AveragePooling2D channels_first") << "images" << 3 << "data_format" << QByteArray(R"("channels_first")")
            << "data_format: only channels_last is supported";
        QTest::newRow("ZeroPadding2D three entries") << "images" << 1 << "padding" << QByteArray("[1, 2, 3]")
            << "padding: must be an integer, [height, width] or [[top, bottom], [left, right]], got an array";
        QTest::newRow("ZeroPadding2D negative") << "keras3" << 1 << "padding" << QByteArray("[[1, -1], [0, 0]]")
            << "padding[0][1]: must be an integer between 0 and";
        QTest::newRow("ZeroPadding2D channels_first") << "keras3" << 1 << "data_format" << QByteArray(R"("channels_first")")
            << "data_format: only channels_last is supported";
        QTest::newRow("Reshape two -1") << "keras3" << 4 << "target_shape" << QByteArray("[-1, -1]")
            << "target_shape: may have only one -1 (inferred) entry";
        QTest::newRow("Reshape zero") << "keras3" << 4 << "target_shape" << QByteArray("[0, 8]")
            << "target_shape[0]: must be an integer between 1 and";
        QTest::newRow("Dropout noise_shape text") << "sequence" << 2 << "noise_shape" << QByteArray(R"("batch")")
            << "noise_shape: must be null or a non-empty list of dimensions";
        QTest::newRow("Dropout noise_shape 0") << "sequence" << 2 << "noise_shape" << QByteArray("[null, 0, 16]")
            << "noise_shape[1]: must be an integer between 1 and";
    }

    void kerasNewLayerRefusals()
    {
        QFETCH(QString, fixture);
        QFETCH(int, layer);
        QFETCH(QString, key);
        QFETCH(QByteArray, value);
        QFETCH(QString, expected);
        Json doc = Json::parse(fixture == "sequence" ? kTf2Sequence : fixture == "images" ? kTf2Images : kKeras3NewLayers);
        doc["config"]["layers"][static_cast<size_t>(layer)]["config"][key.toStdString()] = Json::parse(value.toStdString());
        Problems problems;
        parseModel(doc, "model", problems);
        const QString all = joined(problems);
        const QString path = QString("model.config.layers[%1].config.").arg(layer);
        QVERIFY2(all.contains(path + expected), qPrintable("expected \"" + path + expected + "\", got:\n" + all));
    }

    // Settings only the shapes can judge: reported by shape inference, naming the layer.
    void newLayerShapeErrors_data()
    {
        QTest::addColumn<QString>("layers");
        QTest::addColumn<QList<qint64>>("input");
        QTest::addColumn<QString>("expected");
        QTest::newRow("noise_shape entry") << R"([{"type": "Dropout", "rate": 0.5, "noise_shape": [null, 2, 16]}])"
            << QList<qint64>{10, 16} << "noise_shape[1] is 2: it must be null, 1 (the mask shared along that axis) or the input's 10";
        QTest::newRow("noise_shape rank") << R"([{"type": "Dropout", "rate": 0.5, "noise_shape": [null, 16]}])"
            << QList<qint64>{10, 16} << "noise_shape has 2 entries, the input 3 axes";
        QTest::newRow("reshape size") << R"([{"type": "Reshape", "target_shape": [5, 5]}])" << QList<qint64>{3, 4}
            << "target_shape (5, 5) holds 25 values, the input 12 per example";
        QTest::newRow("reshape -1 does not divide") << R"([{"type": "Reshape", "target_shape": [-1, 5]}])"
            << QList<qint64>{3, 4} << "its 12 values per example do not divide into target_shape (-1, 5)";
        QTest::newRow("conv1d on images") << R"([{"type": "Conv1D", "filters": 2, "kernel_size": 3}])"
            << QList<qint64>{8, 8, 1} << "expects (steps, channels) sequences";
        QTest::newRow("conv1d kernel too long") << R"([{"type": "Conv1D", "filters": 2, "kernel_size": 6}])"
            << QList<qint64>{5, 1} << "kernel 6 is longer than the 5 steps";
        QTest::newRow("gap2d on sequences") << R"([{"type": "GlobalAveragePooling2D"}])" << QList<qint64>{8, 8}
            << "expects (height, width, channels) images";
        QTest::newRow("gmp1d on images") << R"([{"type": "GlobalMaxPooling1D"}])" << QList<qint64>{8, 8, 3}
            << "expects (steps, features) sequences";
        QTest::newRow("avgpool too big") << R"([{"type": "AveragePooling2D", "pool_size": 5}])"
            << QList<qint64>{4, 4, 1} << "pool (5, 5) is larger than the image";
        QTest::newRow("zero padding on sequences") << R"([{"type": "ZeroPadding2D"}])" << QList<qint64>{8, 8}
            << "expects (height, width, channels) images";
    }

    void newLayerShapeErrors()
    {
        QFETCH(QString, layers);
        QFETCH(QList<qint64>, input);
        QFETCH(QString, expected);
        Json doc{{"input_shape", std::vector<int64_t>(input.begin(), input.end())},
                 {"layers", Json::parse(layers.toStdString())}};
        Problems problems;
        const ModelSpec m = parseModel(doc, "model", problems);
        QVERIFY2(problems.empty(), qPrintable(joined(problems)));
        const ModelShapes s = inferShapes(m);
        QCOMPARE(s.failedLayer, 0);
        QVERIFY2(QString::fromStdString(s.error).contains(expected), s.error.c_str());
    }

    // Our format keeps the new fields through a save and a load: padding normalized as Keras
    // does, null entries of a noise shape, a -1 in a target shape.
    void newLayersRoundTrip()
    {
        Problems problems;
        const ModelSpec m = parse(R"({"input_shape": [8, 8, 2], "layers": [
            {"type": "ZeroPadding2D", "padding": [1, [0, 2]]}, {"type": "AveragePooling2D", "padding": "same"},
            {"type": "Reshape", "target_shape": [-1, 2]}, {"type": "Dropout", "rate": 0.2, "noise_shape": [null, 1, null]},
            {"type": "Conv1D", "filters": 3, "kernel_size": 2, "padding": "causal"},
            {"type": "LayerNormalization", "epsilon": 0.01, "center": false}, {"type": "GlobalMaxPooling1D"}]})",
                                  problems);
        QVERIFY2(problems.empty(), qPrintable(joined(problems)));
        const Json saved = modelToJson(m);
        QCOMPARE(saved["layers"][0]["padding"], Json::parse("[[1, 1], [0, 2]]"));
        QCOMPARE(saved["layers"][3]["noise_shape"], Json::parse("[null, 1, null]"));
        QVERIFY(!saved["layers"][5].contains("scale")); // the default
        Problems again;
        const ModelSpec m2 = parseModel(saved, "model", again);
        QVERIFY2(again.empty(), qPrintable(joined(again)));
        QCOMPARE(modelToJson(m2).dump(), saved.dump());
        const ModelShapes s = inferShapes(m2);
        QVERIFY2(s.ok(), s.error.c_str());
        QCOMPARE(s.layers[0].output, Shape({10, 10, 2}));
        QCOMPARE(s.layers[2].output, Shape({25, 2}));
        QCOMPARE(s.layers[4].output, Shape({25, 3}));
        QCOMPARE(s.totalParams, int64_t(2 * 2 * 3 + 3 + 3));
        // ZeroPadding2D's default is Keras' 1 on every side.
        const ModelSpec pad = parse(R"({"input_shape": [3, 3, 1], "layers": [{"type": "ZeroPadding2D"}]})", problems);
        QCOMPARE(inferShapes(pad).output(), Shape({5, 5, 1}));
    }

    void importsRecurrentLayersFromTf2()
    {
        Problems problems;
        const ModelSpec m = parse(kTf2Recurrent, problems);
        QVERIFY2(problems.empty(), qPrintable(joined(problems)));
        QCOMPARE(m.inputShape, Shape({50}));
        QCOMPARE(m.layers.size(), size_t(4));
        const LayerSpec& lstm = m.layers[1];
        QCOMPARE(lstm.type, std::string("LSTM"));
        QCOMPARE(lstm.integer("units"), int64_t(64));
        QVERIFY(lstm.flag("return_sequences"));
        QVERIFY(lstm.flag("unit_forget_bias"));
        QCOMPARE(lstm.text("recurrent_initializer"), std::string("orthogonal"));
        QCOMPARE(lstm.text("recurrent_activation"), std::string("sigmoid"));
        const LayerSpec& gru = m.layers[2];
        QCOMPARE(gru.type, std::string("GRU"));
        QVERIFY(gru.flag("reset_after"));
        QVERIFY(!gru.flag("return_sequences"));
        QCOMPARE(gru.l2("kernel_regularizer"), 0.001);
        QCOMPARE(gru.l2("recurrent_regularizer"), 0.002);
        const ModelShapes s = inferShapes(m);
        QVERIFY2(s.ok(), s.error.c_str());
        QCOMPARE(s.layers[1].output, Shape({50, 64}));
        QCOMPARE(s.layers[2].output, Shape({32}));
        QCOMPARE(s.layers[1].paramCount, kerasLstmParams(32, 64, true)); // 24,832 in Keras' summary
        QCOMPARE(s.layers[2].paramCount, kerasGruParams(64, 32, true, true)); // 9,408
        QCOMPARE(s.totalParams, int64_t(1000 * 32 + 24832 + 9408 + 33));
        // The regularizers land on their variables.
        QCOMPARE(s.layers[2].params[0].l2, 0.001);
        QCOMPARE(s.layers[2].params[1].name, std::string("recurrent_kernel"));
        QCOMPARE(s.layers[2].params[1].l2, 0.002);
        QCOMPARE(s.layers[2].params[2].shape, Shape({2, 96}));
    }

    void importsRecurrentLayersFromKeras3()
    {
        Problems problems;
        const ModelSpec m = parse(kKeras3Recurrent, problems);
        QVERIFY2(problems.empty(), qPrintable(joined(problems)));
        QCOMPARE(m.inputShape, Shape({20, 8}));
        QCOMPARE(m.layers[0].type, std::string("GRU"));
        QVERIFY(!m.layers[0].flag("reset_after"));
        QCOMPARE(m.layers[1].type, std::string("LSTM"));
        const ModelShapes s = inferShapes(m);
        QVERIFY2(s.ok(), s.error.c_str());
        QCOMPARE(s.layers[0].output, Shape({20, 16}));
        QCOMPARE(s.layers[0].paramCount, kerasGruParams(8, 16, true, false)); // 1,200
        QCOMPARE(s.layers[0].params[2].shape, Shape({48}));
        QCOMPARE(s.layers[1].output, Shape({8}));
        QCOMPARE(s.layers[1].paramCount, kerasLstmParams(16, 8, true)); // 800
        QCOMPARE(s.totalParams, int64_t(1200 + 800 + 9));
    }

    // Keras 2.0-2.1 wrote GRU without reset_after (it had only the "before" form); tf 1.x's
    // CuDNNGRU is GRU with reset_after, CuDNNLSTM the LSTM.
    void importsOlderRecurrentLayers()
    {
        Problems problems;
        const ModelSpec old = parse(R"({"class_name": "Sequential", "config": [
            {"class_name": "GRU", "config": {"name": "gru_1", "trainable": true, "batch_input_shape": [null, 10, 4], "dtype": "float32",
               "return_sequences": false, "return_state": false, "go_backwards": false, "stateful": false, "unroll": false,
               "units": 6, "activation": "tanh", "recurrent_activation": "sigmoid", "use_bias": true,
               "kernel_initializer": {"class_name": "VarianceScaling", "config": {"scale": 1.0, "mode": "fan_avg", "distribution": "uniform", "seed": null}},
               "recurrent_initializer": {"class_name": "Orthogonal", "config": {"gain": 1.0, "seed": null}},
               "bias_initializer": {"class_name": "Zeros", "config": {}}, "kernel_regularizer": null, "recurrent_regularizer": null,
               "bias_regularizer": null, "activity_regularizer": null, "kernel_constraint": null, "recurrent_constraint": null,
               "bias_constraint": null, "dropout": 0.0, "recurrent_dropout": 0.0, "implementation": 1}}],
            "keras_version": "2.1.2", "backend": "tensorflow"})",
                                    problems);
        QVERIFY2(problems.empty(), qPrintable(joined(problems)));
        QVERIFY(!old.layers[0].flag("reset_after"));
        QCOMPARE(inferShapes(old).totalParams, kerasGruParams(4, 6, true, false));

        const ModelSpec cudnn = parse(R"({"class_name": "Sequential", "config": {"name": "sequential", "layers": [
            {"class_name": "CuDNNGRU", "config": {"name": "cu_dnngru", "trainable": true, "batch_input_shape": [null, 10, 4], "dtype": "float32",
               "return_sequences": true, "return_state": false, "go_backwards": false, "stateful": false, "time_major": false, "units": 6,
               "kernel_initializer": {"class_name": "GlorotUniform", "config": {"seed": null, "dtype": "float32"}},
               "recurrent_initializer": {"class_name": "Orthogonal", "config": {"gain": 1.0, "seed": null, "dtype": "float32"}},
               "bias_initializer": {"class_name": "Zeros", "config": {"dtype": "float32"}}, "kernel_regularizer": null,
               "recurrent_regularizer": null, "bias_regularizer": null, "activity_regularizer": null, "kernel_constraint": null,
               "recurrent_constraint": null, "bias_constraint": null}},
            {"class_name": "CuDNNLSTM", "config": {"name": "cu_dnnlstm", "trainable": true, "dtype": "float32",
               "return_sequences": false, "return_state": false, "go_backwards": false, "stateful": false, "time_major": false, "units": 5,
               "kernel_initializer": {"class_name": "GlorotUniform", "config": {"seed": null, "dtype": "float32"}},
               "recurrent_initializer": {"class_name": "Orthogonal", "config": {"gain": 1.0, "seed": null, "dtype": "float32"}},
               "bias_initializer": {"class_name": "Zeros", "config": {"dtype": "float32"}}, "unit_forget_bias": true, "kernel_regularizer": null,
               "recurrent_regularizer": null, "bias_regularizer": null, "activity_regularizer": null, "kernel_constraint": null,
               "recurrent_constraint": null, "bias_constraint": null}}]},
            "keras_version": "2.1.6-tf", "backend": "tensorflow"})",
                                      problems);
        QVERIFY2(problems.empty(), qPrintable(joined(problems)));
        QCOMPARE(cudnn.layers[0].type, std::string("GRU"));
        QVERIFY(cudnn.layers[0].flag("reset_after"));
        QCOMPARE(cudnn.layers[0].text("activation"), std::string("tanh"));
        QCOMPARE(cudnn.layers[1].type, std::string("LSTM"));
        QCOMPARE(cudnn.layers[1].name, std::string("cu_dnnlstm"));
        const ModelShapes s = inferShapes(cudnn);
        QVERIFY2(s.ok(), s.error.c_str());
        QCOMPARE(s.layers[0].paramCount, kerasGruParams(4, 6, true, true));
        QCOMPARE(s.output(), Shape({5}));
    }

    void recurrentParameterCountsAreKeras_data()
    {
        QTest::addColumn<QString>("layer");
        QTest::addColumn<qint64>("features");
        QTest::addColumn<qint64>("expected");
        for (const auto& [d, u] : std::vector<std::pair<int64_t, int64_t>>{{1, 1}, {32, 64}, {300, 128}, {7, 3}}) {
            const QString du = QString("d=%1,u=%2").arg(d).arg(u);
            const QString units = QString::number(u);
            QTest::newRow(qPrintable("lstm " + du)) << R"({"type": "LSTM", "units": )" + units + "}" << qint64(d)
                                                    << qint64(kerasLstmParams(d, u, true));
            QTest::newRow(qPrintable("lstm no bias " + du))
                << R"({"type": "LSTM", "use_bias": false, "units": )" + units + "}" << qint64(d)
                << qint64(kerasLstmParams(d, u, false));
            QTest::newRow(qPrintable("gru " + du)) << R"({"type": "GRU", "units": )" + units + "}" << qint64(d)
                                                   << qint64(kerasGruParams(d, u, true, true));
            QTest::newRow(qPrintable("gru reset before " + du))
                << R"({"type": "GRU", "reset_after": false, "units": )" + units + "}" << qint64(d)
                << qint64(kerasGruParams(d, u, true, false));
            QTest::newRow(qPrintable("gru no bias " + du))
                << R"({"type": "GRU", "use_bias": false, "units": )" + units + "}" << qint64(d)
                << qint64(kerasGruParams(d, u, false, true));
        }
        // Keras' summaries: LSTM(64) on 32 features 24,832; GRU(32) on 64 features 9,408.
        QTest::newRow("keras summary lstm") << R"({"type": "LSTM", "units": 64})" << qint64(32) << qint64(24832);
        QTest::newRow("keras summary gru") << R"({"type": "GRU", "units": 32})" << qint64(64) << qint64(9408);
    }

    void recurrentParameterCountsAreKeras()
    {
        QFETCH(QString, layer);
        QFETCH(qint64, features);
        QFETCH(qint64, expected);
        Problems problems;
        const std::string doc = R"({"input_shape": [5, )" + std::to_string(features) + R"(], "layers": [)" +
                                layer.toStdString() + "]}";
        const ModelSpec m = parseModel(Json::parse(doc), "model", problems);
        QVERIFY2(problems.empty(), qPrintable(joined(problems)));
        const ModelShapes s = inferShapes(m);
        QVERIFY2(s.ok(), s.error.c_str());
        QCOMPARE(s.totalParams, int64_t(expected));
    }

    void recurrentShapeErrorsNameTheLayer()
    {
        Problems problems;
        const ModelSpec m = parse(R"({"input_shape": [28, 28, 1], "layers": [{"type": "LSTM", "units": 4}]})", problems);
        QVERIFY(problems.empty());
        const ModelShapes s = inferShapes(m);
        QVERIFY(!s.ok());
        QVERIFY2(QString::fromStdString(s.error).contains("(steps, features) sequences"), s.error.c_str());
        Problems bad;
        parse(R"({"input_shape": [5, 3], "layers": [{"type": "GRU", "units": 4, "activation": "softmax"}]})", bad);
        QVERIFY2(joined(bad).contains("model.layers[0].activation"), qPrintable(joined(bad)));
    }

    // What Strata's LSTM and GRU do not do is refused at its path; how Keras computes (unroll,
    // implementation, use_cudnn) and dropout's seed are not.
    void recurrentSettingsWeCannotHonourAreReported_data()
    {
        QTest::addColumn<int>("layer"); // in kTf2Recurrent: 2 LSTM, 3 GRU
        QTest::addColumn<QString>("key");
        QTest::addColumn<QString>("value"); // JSON
        QTest::addColumn<QString>("message");
        QTest::newRow("dropout") << 2 << "dropout" << "0.2" << "must be 0, got 0.2";
        QTest::newRow("recurrent_dropout") << 3 << "recurrent_dropout" << "0.1" << "dropout inside recurrent layers";
        QTest::newRow("go_backwards") << 2 << "go_backwards" << "true" << "backwards is not supported";
        QTest::newRow("stateful") << 3 << "stateful" << "true" << "stateful layers are not supported";
        QTest::newRow("return_state") << 2 << "return_state" << "true" << "returning the states";
        QTest::newRow("time_major") << 3 << "time_major" << "true" << "time-major inputs";
        QTest::newRow("hard_sigmoid") << 2 << "recurrent_activation" << R"("hard_sigmoid")" << "hard_sigmoid";
        QTest::newRow("softmax") << 3 << "activation" << R"("softmax")" << "expected one of: tanh, sigmoid, relu, linear";
        QTest::newRow("orthogonal gain") << 2 << "recurrent_initializer"
                                         << R"({"class_name": "Orthogonal", "config": {"gain": 2.0, "seed": null}})"
                                         << "gain 1 only";
        QTest::newRow("recurrent_constraint") << 3 << "recurrent_constraint"
                                              << R"({"class_name": "MaxNorm", "config": {"max_value": 2}})"
                                              << "is not supported (must be null)";
        QTest::newRow("recurrent L1") << 2 << "recurrent_regularizer"
                                      << R"({"class_name": "L1", "config": {"l1": 0.01}})" << "only L2";
        QTest::newRow("unknown") << 3 << "mixed_memory" << "true" << "not supported by Strata's GRU";
    }

    void recurrentSettingsWeCannotHonourAreReported()
    {
        QFETCH(int, layer);
        QFETCH(QString, key);
        QFETCH(QString, value);
        QFETCH(QString, message);
        Json doc = Json::parse(kTf2Recurrent);
        doc["config"]["layers"][layer]["config"][key.toStdString()] = Json::parse(value.toStdString());
        Problems problems;
        parseModel(doc, "model", problems);
        const QString all = joined(problems);
        const QString path = QString("model.config.layers[%1].config.%2").arg(layer).arg(key);
        QVERIFY2(all.contains(path) && all.contains(message), qPrintable(all));
        QCOMPARE(problems.list().size(), size_t(1));

        // The neutral settings pass.
        Json neutral = Json::parse(kTf2Recurrent);
        for (const char* k : {"unroll", "implementation", "use_cudnn", "seed", "zero_output_for_mask"})
            neutral["config"]["layers"][layer]["config"][k] = k == std::string("unroll") ? Json(true) : Json("auto");
        Problems none;
        parseModel(neutral, "model", none);
        QVERIFY2(none.empty(), qPrintable(joined(none)));
    }

    void roundTripsThroughJson()
    {
        Problems problems;
        const ModelSpec m = parse(kTf2Mlp, problems);
        Problems again;
        const ModelSpec m2 = parseModel(modelToJson(m), "model", again);
        QVERIFY2(again.empty(), qPrintable(joined(again)));
        QCOMPARE(modelToJson(m2).dump(), modelToJson(m).dump());
        // Defaults are not written out.
        QVERIFY(!modelToJson(m)["layers"][1].contains("use_bias"));
    }

    void registryDescribesEveryField()
    {
        for (const auto& type : layerTypes()) {
            QVERIFY(!type.description.empty());
            for (const auto& f : type.fields)
                QVERIFY2(!f.help.empty(), (type.type + "." + f.name).c_str());
        }
        QVERIFY(findLayerType("Dense"));
        QVERIFY(findLayerType("LSTM"));
        QVERIFY(findLayerType("GRU"));
        QVERIFY(!findLayerType("SimpleRNN"));
    }
};

QTEST_GUILESS_MAIN(TestModelSpec)
#include "tst_model_spec.moc"
