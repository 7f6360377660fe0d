#pragma once
// A model's weights as Keras 3's `model.weights.h5` (HDF5, through libhdf5), both ways, and
// the initial weights of a run (training.initial_weights). The layout (which group and
// dataset holds each variable) is schema::kerasWeightsLayout's; docs/keras-export.md shows it.
//
// Any thread may call these (Debian's libhdf5 is built thread-safe); HDF5's own error printing
// is turned off for the calling thread while they run, and its messages go into the exceptions.

#include "strata/nn/sequential.h"
#include "strata/schema/keras_format.h"

#include <string>

namespace strata::run {

// Writes every variable of `model` (host memory) to `path` as Keras' H5IOStore does for a
// Sequential model: groups layers/<key>/vars with float32 datasets "0", "1", ..., an empty
// "vars" group for the model itself, and (Keras 3.6 and later) each vars group's `name`
// attribute. Written to a temporary file and renamed over `path`. Throws IoError.
void writeKerasWeights(const nn::Sequential& model, const std::string& path,
                       schema::KerasVersion version = schema::kDefaultKerasVersion);

// Loads a Keras 3 weights file into `model`, matching layers as Keras does (by class and
// position, not by name). Every dataset the model needs is checked (present, floating point,
// the variable's shape) before any is copied, so the model is unchanged when the file does
// not fit. IoError: the file is missing or unreadable; DataError: it is not HDF5, not Keras 3's
// layout, or a group or dataset is missing or has another shape (the message names the file,
// the dataset's path, and what the model expected there).
void readKerasWeights(const std::string& path, nn::Sequential& model);

// Whether `path` is an HDF5 file (false when it is not, or cannot be read).
bool isHdf5File(const std::string& path);

// The initial weights of a run: a Keras 3 weights file (HDF5), or Strata's own weights
// (a run's model.weights, or a checkpoint; its optimizer state is ignored). Errors as above,
// naming the file.
void loadInitialWeights(const std::string& path, nn::Sequential& model);

} // namespace strata::run
