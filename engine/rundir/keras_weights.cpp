#include "strata/rundir/keras_weights.h"

#include "strata/core/error.h"

#include <hdf5.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <utility>

namespace strata::run {

namespace fs = std::filesystem;

namespace {

// --- libhdf5 with RAII ----------------------------------------------------------------------

// One HDF5 identifier (file, group, dataset, dataspace, datatype, attribute, property list),
// closed with its own close function.
class H5Id {
public:
    H5Id() = default;
    H5Id(hid_t id, herr_t (*close)(hid_t)) : m_id(id), m_close(close) {}
    H5Id(H5Id&& other) noexcept : m_id(std::exchange(other.m_id, H5I_INVALID_HID)), m_close(other.m_close) {}
    H5Id& operator=(H5Id&& other) noexcept
    {
        if (this != &other) {
            reset();
            m_id = std::exchange(other.m_id, H5I_INVALID_HID);
            m_close = other.m_close;
        }
        return *this;
    }
    H5Id(const H5Id&) = delete;
    H5Id& operator=(const H5Id&) = delete;
    ~H5Id() { reset(); }

    hid_t get() const { return m_id; }
    explicit operator bool() const { return m_id >= 0; }
    // Gives up ownership (the caller closes it).
    hid_t release() { return std::exchange(m_id, H5I_INVALID_HID); }

private:
    void reset()
    {
        if (m_id >= 0 && m_close)
            m_close(m_id);
        m_id = H5I_INVALID_HID;
    }

    hid_t m_id = H5I_INVALID_HID;
    herr_t (*m_close)(hid_t) = nullptr;
};

// Turns HDF5's printing of its error stack to stderr off for this thread while it lives
// (the messages go into our exceptions instead), and restores what was set before.
class QuietHdf5 {
public:
    QuietHdf5()
    {
        H5Eget_auto2(H5E_DEFAULT, &m_func, &m_data);
        H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
    }
    ~QuietHdf5() { H5Eset_auto2(H5E_DEFAULT, m_func, m_data); }
    QuietHdf5(const QuietHdf5&) = delete;
    QuietHdf5& operator=(const QuietHdf5&) = delete;

private:
    H5E_auto2_t m_func = nullptr;
    void* m_data = nullptr;
};

// The most specific message on this thread's HDF5 error stack ("" when empty).
std::string hdf5Message()
{
    std::string message;
    H5Ewalk2(
        H5E_DEFAULT, H5E_WALK_UPWARD,
        [](unsigned n, const H5E_error2_t* e, void* data) -> herr_t {
            if (n == 0 && e && e->desc)
                *static_cast<std::string*>(data) = e->desc;
            return 0;
        },
        &message);
    H5Eclear2(H5E_DEFAULT);
    return message;
}

std::string because()
{
    const std::string m = hdf5Message();
    return m.empty() ? std::string() : " (HDF5: " + m + ")";
}

std::string shapeText(const std::vector<hsize_t>& dims)
{
    std::vector<int64_t> d(dims.begin(), dims.end());
    return Shape(std::move(d)).str();
}

// Whether every component of `path` ("layers/dense/vars") exists below `loc`.
bool exists(hid_t loc, const std::string& path)
{
    size_t pos = 0;
    while (true) {
        pos = path.find('/', pos);
        const std::string prefix = path.substr(0, pos);
        if (H5Lexists(loc, prefix.c_str(), H5P_DEFAULT) <= 0)
            return false;
        if (pos == std::string::npos)
            return true;
        ++pos;
    }
}

// The names of a group's links, in name order.
std::vector<std::string> linkNames(hid_t group)
{
    H5G_info_t info{};
    if (H5Gget_info(group, &info) < 0)
        return {};
    std::vector<std::string> names;
    for (hsize_t i = 0; i < info.nlinks; ++i) {
        const ssize_t size = H5Lget_name_by_idx(group, ".", H5_INDEX_NAME, H5_ITER_INC, i, nullptr, 0, H5P_DEFAULT);
        if (size < 0)
            continue;
        std::string name(static_cast<size_t>(size) + 1, '\0');
        H5Lget_name_by_idx(group, ".", H5_INDEX_NAME, H5_ITER_INC, i, name.data(), name.size(), H5P_DEFAULT);
        name.resize(static_cast<size_t>(size));
        names.push_back(std::move(name));
    }
    return names;
}

// Datasets anywhere below `group`.
int64_t countDatasets(hid_t group, int depth = 0)
{
    if (depth > 32)
        return 0;
    int64_t n = 0;
    for (const auto& name : linkNames(group)) {
        H5Id obj(H5Oopen(group, name.c_str(), H5P_DEFAULT), H5Oclose);
        if (!obj)
            continue;
        const H5I_type_t type = H5Iget_type(obj.get());
        if (type == H5I_DATASET)
            ++n;
        else if (type == H5I_GROUP)
            n += countDatasets(obj.get(), depth + 1);
    }
    return n;
}

std::string joined(const std::vector<std::string>& names)
{
    std::string out;
    for (const auto& n : names)
        out += (out.empty() ? "" : ", ") + n;
    return out.empty() ? "none" : out;
}

// --- writing --------------------------------------------------------------------------------

class Writer {
public:
    // Creates `file`; messages name `target`, the path the caller renames it to.
    Writer(const std::string& file, std::string target) : m_path(std::move(target))
    {
        m_file = H5Id(H5Fcreate(file.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT), H5Fclose);
        if (!m_file)
            fail("cannot create the file");
        // Groups along a path are created as needed ("layers/dense/vars").
        m_linkCreation = H5Id(H5Pcreate(H5P_LINK_CREATE), H5Pclose);
        H5Pset_create_intermediate_group(m_linkCreation.get(), 1);
    }

    H5Id group(const std::string& path)
    {
        H5Id g(H5Gcreate2(m_file.get(), path.c_str(), m_linkCreation.get(), H5P_DEFAULT, H5P_DEFAULT), H5Gclose);
        if (!g)
            fail("cannot create group " + path);
        return g;
    }

    // A scalar variable-length UTF-8 string attribute, as h5py writes a Python str.
    void stringAttribute(const H5Id& loc, const char* name, const std::string& value, const std::string& where)
    {
        H5Id type(H5Tcopy(H5T_C_S1), H5Tclose);
        H5Tset_size(type.get(), H5T_VARIABLE);
        H5Tset_cset(type.get(), H5T_CSET_UTF8);
        H5Id space(H5Screate(H5S_SCALAR), H5Sclose);
        H5Id attr(H5Acreate2(loc.get(), name, type.get(), space.get(), H5P_DEFAULT, H5P_DEFAULT), H5Aclose);
        const char* text = value.c_str();
        if (!attr || H5Awrite(attr.get(), type.get(), &text) < 0)
            fail("cannot write the attribute " + std::string(name) + " of " + where);
    }

    // A float32 (little-endian) dataset of the tensor's shape, as h5py stores a float32 array.
    void dataset(const H5Id& group, const std::string& name, const Tensor& value, const std::string& where)
    {
        std::vector<hsize_t> dims(value.shape().dims().begin(), value.shape().dims().end());
        H5Id space(dims.empty() ? H5Screate(H5S_SCALAR)
                                : H5Screate_simple(static_cast<int>(dims.size()), dims.data(), nullptr),
                   H5Sclose);
        H5Id ds(H5Dcreate2(group.get(), name.c_str(), H5T_IEEE_F32LE, space.get(), H5P_DEFAULT, H5P_DEFAULT,
                           H5P_DEFAULT),
                H5Dclose);
        if (!ds || H5Dwrite(ds.get(), H5T_NATIVE_FLOAT, H5S_ALL, H5S_ALL, H5P_DEFAULT, value.data()) < 0)
            fail("cannot write dataset " + where);
    }

    // Every group and dataset handle must be closed by now: the file is complete after this.
    void close()
    {
        if (H5Fclose(m_file.release()) < 0)
            fail("cannot finish the file");
    }

    [[noreturn]] void fail(const std::string& what) { throw IoError(m_path + ": " + what + because()); }

private:
    std::string m_path;
    H5Id m_file;
    H5Id m_linkCreation;
};

// The variables of layer `i` in Keras' order: trainable, then non-trainable.
std::vector<Tensor*> layerVariables(nn::Sequential& model, size_t i)
{
    std::vector<Tensor*> out;
    for (auto& p : model.layer(i).parameters())
        out.push_back(&p.value);
    for (auto& s : model.layer(i).states())
        out.push_back(&s.value);
    return out;
}

// The layout, checked against the built model's variables (names and shapes).
std::vector<schema::KerasLayerWeights> layoutOf(nn::Sequential& model)
{
    auto layout = schema::kerasWeightsLayout(model.spec());
    STRATA_CHECK(layout.size() == model.layerCount(), "one layout entry per layer");
    for (const auto& w : layout) {
        const auto vars = layerVariables(model, w.layer);
        STRATA_CHECK(vars.size() == w.variables.size(), "layer " + std::to_string(w.layer) + " variable count");
        for (size_t j = 0; j < vars.size(); ++j)
            STRATA_CHECK(vars[j]->shape() == w.variables[j].shape, w.variables[j].dataset + " shape");
    }
    return layout;
}

} // namespace

void writeKerasWeights(const nn::Sequential& constModel, const std::string& path, schema::KerasVersion version)
{
    // Only read here; layer(i) is non-const on the model.
    auto& model = const_cast<nn::Sequential&>(constModel);
    const auto layout = layoutOf(model);
    const bool names = version.atLeast(3, 6); // saving_lib._save_state: metadata {"name"} since 3.6
    const std::string tmp = path + ".tmp-" + std::to_string(::getpid());
    QuietHdf5 quiet;
    try {
        Writer w(tmp, path);
        {
            // The model's own (empty) variables first, as _save_state visits it before its layers.
            H5Id root = w.group("vars");
            if (names)
                w.stringAttribute(root, "name", model.spec().name, "vars");
        }
        for (const auto& l : layout) {
            if (l.varsGroup != l.group + "/vars") {
                // The layer's own group: empty vars of its own, its variables in an inner object's.
                H5Id own = w.group(l.group + "/vars");
                if (names)
                    w.stringAttribute(own, "name", model.spec().layers[l.layer].name, l.group + "/vars");
            }
            H5Id vars = w.group(l.varsGroup);
            if (names)
                w.stringAttribute(vars, "name", l.ownerName, l.varsGroup);
            const auto values = layerVariables(model, l.layer);
            for (size_t j = 0; j < values.size(); ++j) {
                STRATA_CHECK(values[j]->device().isCpu(), "the model's variables are in host memory");
                w.dataset(vars, std::to_string(j), *values[j], l.variables[j].dataset);
            }
        }
        w.close();
    } catch (...) {
        std::error_code ec;
        fs::remove(tmp, ec);
        throw;
    }
    std::error_code ec;
    fs::rename(tmp, path, ec);
    if (ec) {
        fs::remove(tmp, ec);
        throw IoError("cannot write " + path + ": " + ec.message());
    }
}

bool isHdf5File(const std::string& path)
{
    QuietHdf5 quiet;
    const bool yes = H5Fis_hdf5(path.c_str()) > 0;
    H5Eclear2(H5E_DEFAULT);
    return yes;
}

namespace {

// The file opened for reading, after checks that name what is wrong with it.
H5Id openWeightsFile(const std::string& path)
{
    std::error_code ec;
    if (!fs::exists(path, ec))
        throw IoError(path + ": no such file");
    if (!fs::is_regular_file(path, ec))
        throw IoError(path + ": not a file");
    if (std::ifstream probe(path, std::ios::binary); !probe)
        throw IoError(path + ": cannot read: " + std::strerror(errno));
    const htri_t hdf5 = H5Fis_hdf5(path.c_str());
    if (hdf5 < 0)
        throw IoError(path + ": cannot read" + because());
    if (hdf5 == 0)
        throw DataError(path, "is not an HDF5 file (Keras' model.weights.h5 is one)");
    H5Id file(H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), H5Fclose);
    if (!file)
        throw DataError(path, "cannot be opened as HDF5" + because());
    return file;
}

// The group holding the layers. H5IOStore.get: layers/...; files of Keras 2.13 (the first
// with this format) named the Sequential's container _layer_checkpoint_dependencies.
std::string layersRoot(hid_t file, const std::string& path)
{
    std::string root = "layers";
    if (!exists(file, root) && exists(file, "_layer_checkpoint_dependencies"))
        root = "_layer_checkpoint_dependencies";
    if (!exists(file, root)) {
        const bool keras2 = H5Aexists(file, "layer_names") > 0;
        throw DataError(path, std::string("has no group \"layers\": it is not Keras 3's model.weights.h5 of a "
                                          "Sequential model") +
                                  (keras2 ? " (it is Keras 2's HDF5 weights format, with a group per layer name: "
                                            "load it in Keras 3 and save it again with model.save_weights)"
                                          : " (its top-level groups: " + joined(linkNames(file)) + ")"));
    }
    return root;
}

// Variable `j` of a layer's vars group, as float32, checked against what the layer (`who`)
// needs; `dataset` is its path in the file.
std::vector<float> readVariable(hid_t vars, size_t j, const schema::KerasVariable& v, const std::string& dataset,
                                const std::string& who, const std::string& path)
{
    const std::string name = std::to_string(j);
    const std::string what = who + "'s " + v.name + " " + v.shape.str();
    if (H5Lexists(vars, name.c_str(), H5P_DEFAULT) <= 0)
        throw DataError(path, "has no dataset " + dataset + " (expected: " + what + ")");
    H5Id ds(H5Dopen2(vars, name.c_str(), H5P_DEFAULT), H5Dclose);
    if (!ds)
        throw DataError(path, dataset + " is not a dataset (expected: " + what + ")" + because());
    H5Id type(H5Dget_type(ds.get()), H5Tclose);
    if (H5Tget_class(type.get()) != H5T_FLOAT)
        throw DataError(path, "dataset " + dataset + " does not hold floating-point values (expected: " + what +
                                  " as float32)");
    H5Id space(H5Dget_space(ds.get()), H5Sclose);
    const int rank = H5Sget_simple_extent_ndims(space.get());
    std::vector<hsize_t> dims(static_cast<size_t>(std::max(rank, 0)));
    if (rank > 0)
        H5Sget_simple_extent_dims(space.get(), dims.data(), nullptr);
    const std::vector<hsize_t> expected(v.shape.dims().begin(), v.shape.dims().end());
    if (rank < 0 || dims != expected)
        throw DataError(path, "dataset " + dataset + " has shape " + shapeText(dims) + ", " + who + " needs " +
                                  v.shape.str() + " for its " + v.name);
    std::vector<float> buffer(static_cast<size_t>(v.shape.numel()));
    // HDF5 converts other float types (float64, float16) to float32 here.
    if (H5Dread(ds.get(), H5T_NATIVE_FLOAT, H5S_ALL, H5S_ALL, H5P_DEFAULT, buffer.data()) < 0)
        throw DataError(path, "cannot read dataset " + dataset + because());
    return buffer;
}

// Weights the model has no layer for: the file belongs to another model (Keras itself
// would ignore them; as a run's starting point that is almost certainly a mistake).
void refuseForeignWeights(hid_t file, const std::string& root, const std::vector<schema::KerasLayerWeights>& layout,
                          const std::set<std::string>& matched, const std::string& path)
{
    H5Id layers(H5Gopen2(file, root.c_str(), H5P_DEFAULT), H5Gclose);
    for (const auto& name : linkNames(layers.get())) {
        if (matched.count(name))
            continue;
        H5Id g(H5Oopen(layers.get(), name.c_str(), H5P_DEFAULT), H5Oclose);
        if (g && H5Iget_type(g.get()) == H5I_GROUP && countDatasets(g.get()) > 0) {
            std::vector<std::string> ours;
            for (const auto& l : layout)
                ours.push_back(l.group.substr(std::string("layers/").size()));
            throw DataError(path, "holds weights in " + root + "/" + name +
                                      ", which no layer of the model matches (the model's layers there: " +
                                      joined(ours) + "): it was saved from another model");
        }
    }
}

} // namespace

void readKerasWeights(const std::string& path, nn::Sequential& model)
{
    QuietHdf5 quiet;
    const H5Id file = openWeightsFile(path);
    const std::string root = layersRoot(file.get(), path);
    const auto layout = layoutOf(model);
    const auto& spec = model.spec();
    auto rooted = [&](const std::string& p) { return root + p.substr(std::string("layers").size()); };
    std::vector<std::vector<float>> values; // every variable's values, in layout order
    std::set<std::string> matched;
    for (const auto& l : layout) {
        const auto& layer = spec.layers[l.layer];
        const std::string who = "layer " + std::to_string(l.layer) + " \"" + layer.name + "\" (" + layer.type + ")";
        const std::string group = rooted(l.group);
        matched.insert(group.substr(root.size() + 1));
        const std::string varsPath = rooted(l.varsGroup);
        if (!exists(file.get(), varsPath)) {
            if (l.variables.empty())
                continue;
            std::string names;
            for (const auto& v : l.variables)
                names += (names.empty() ? "" : ", ") + v.name + " " + v.shape.str();
            H5Id layers(H5Gopen2(file.get(), root.c_str(), H5P_DEFAULT), H5Gclose);
            throw DataError(path, "has no group " + varsPath + " for " + who + ", whose variables are " + names +
                                      " (Keras names a Sequential's layers by class and position; the file's: " +
                                      joined(linkNames(layers.get())) + ")");
        }
        H5Id vars(H5Gopen2(file.get(), varsPath.c_str(), H5P_DEFAULT), H5Gclose);
        if (!vars)
            throw DataError(path, varsPath + " is not a group" + because());
        const auto present = linkNames(vars.get());
        if (present.size() != l.variables.size()) {
            // Layer.load_own_variables refuses this too.
            std::string names;
            for (const auto& v : l.variables)
                names += (names.empty() ? "" : ", ") + v.name;
            throw DataError(path, varsPath + " holds " + std::to_string(present.size()) + " datasets (" + joined(present) +
                                      "), " + who + " has " + std::to_string(l.variables.size()) + " variables (" +
                                      (names.empty() ? "none" : names) + ")");
        }
        for (size_t j = 0; j < l.variables.size(); ++j) {
            const auto& v = l.variables[j];
            values.push_back(readVariable(vars.get(), j, v, rooted(v.dataset), who, path));
        }
    }
    refuseForeignWeights(file.get(), root, layout, matched, path);

    // Everything fits: now copy.
    size_t k = 0;
    for (const auto& l : layout) {
        if (l.variables.empty())
            continue;
        auto vars = layerVariables(model, l.layer);
        for (Tensor* t : vars) {
            STRATA_CHECK(t->device().isCpu(), "the model's variables are in host memory");
            std::memcpy(t->data(), values[k++].data(), t->bytes());
        }
    }
}

} // namespace strata::run
