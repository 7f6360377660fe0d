// rundir/keras_weights.h in an engine built without libhdf5 (CMakeLists.txt: an engine-only build
// where it is not found): Keras weights files are refused with a message saying why.

#include "strata/core/error.h"
#include "strata/rundir/keras_weights.h"

#include <cstring>
#include <fstream>

namespace strata::run {

namespace {
[[noreturn]] void unavailable(const std::string& path)
{
    throw IoError(path + ": this strata-engine was built without libhdf5 and cannot read or write Keras weights "
                         "files (install libhdf5-dev and rebuild)");
}
} // namespace

void writeKerasWeights(const nn::Sequential&, const std::string& path, schema::KerasVersion) { unavailable(path); }

void readKerasWeights(const std::string& path, nn::Sequential&) { unavailable(path); }

bool isHdf5File(const std::string& path)
{
    // HDF5's signature at the start (where every file Keras writes has its superblock).
    static const char signature[8] = {'\x89', 'H', 'D', 'F', '\r', '\n', '\x1a', '\n'};
    char head[8] = {};
    std::ifstream in(path, std::ios::binary);
    in.read(head, sizeof head);
    return in.gcount() == sizeof head && std::memcmp(head, signature, sizeof head) == 0;
}

} // namespace strata::run
