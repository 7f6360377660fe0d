#pragma once
// A tensor shape: a list of non-negative dimensions. Used with the batch dimension
// (tensors) and without it (layer specs, where Keras shows it as "None").

#include <cstdint>
#include <initializer_list>
#include <string>
#include <vector>

namespace strata {

class Shape {
public:
    Shape() = default;
    Shape(std::initializer_list<int64_t> dims) : m_dims(dims) {}
    explicit Shape(std::vector<int64_t> dims) : m_dims(std::move(dims)) {}

    int rank() const { return static_cast<int>(m_dims.size()); }
    int64_t operator[](int i) const { return m_dims[static_cast<size_t>(i)]; }
    int64_t& operator[](int i) { return m_dims[static_cast<size_t>(i)]; }
    int64_t back() const { return m_dims.back(); }
    const std::vector<int64_t>& dims() const { return m_dims; }

    // Product of all dimensions (1 for a scalar shape).
    int64_t numel() const;
    // This shape with `batch` prepended.
    Shape withBatch(int64_t batch) const;
    // This shape without its first dimension.
    Shape withoutBatch() const;

    // "(28, 28, 1)"; with a batch placeholder: "(None, 28, 28, 1)" as Keras prints it.
    std::string str() const;
    std::string strWithBatch() const;

    friend bool operator==(const Shape&, const Shape&) = default;

private:
    std::vector<int64_t> m_dims;
};

} // namespace strata
