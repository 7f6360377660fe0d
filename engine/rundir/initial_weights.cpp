// training.initial_weights: a Keras 3 weights file or Strata's own (rundir/keras_weights.h).

#include "strata/core/error.h"
#include "strata/rundir/checkpoint.h"
#include "strata/rundir/keras_weights.h"
#include "strata/rundir/model_state.h"

#include <filesystem>
#include <fstream>

namespace strata::run {

void loadInitialWeights(const std::string& path, nn::Sequential& model)
{
    std::error_code ec;
    if (!std::filesystem::exists(path, ec))
        throw IoError(path + ": no such file (the initial weights: a Keras model.weights.h5, or a Strata run's "
                             "model.weights)");
    if (isHdf5File(path)) {
        readKerasWeights(path, model);
        return;
    }
    std::ifstream in(path, std::ios::binary);
    char magic[8] = {};
    in.read(magic, sizeof magic);
    if (std::string(magic, static_cast<size_t>(in.gcount())) != "STRATACK")
        throw DataError(path, "is neither an HDF5 file (Keras' model.weights.h5) nor Strata's weights file "
                              "(a run's model.weights or a checkpoint)");
    restoreState(readCheckpoint(path), model, nullptr, path);
}

} // namespace strata::run
