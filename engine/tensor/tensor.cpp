#include "strata/tensor/tensor.h"

#include "strata/core/error.h"
#include "cuda/ops.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <new>

namespace strata {

namespace {
std::shared_ptr<float[]> allocate(int64_t numel, Device device)
{
    if (!device.isCpu()) {
        const int index = device.index;
        auto* p = static_cast<float*>(cuda::ops().allocate(index, static_cast<size_t>(numel) * sizeof(float)));
        return std::shared_ptr<float[]>(p, [index](float* q) { cuda::ops().deallocate(index, q); });
    }
    const size_t bytes = std::max<size_t>(static_cast<size_t>(numel) * sizeof(float), Tensor::kAlignment);
    const size_t rounded = (bytes + Tensor::kAlignment - 1) / Tensor::kAlignment * Tensor::kAlignment;
    void* p = std::aligned_alloc(Tensor::kAlignment, rounded);
    if (!p)
        throw std::bad_alloc();
    return std::shared_ptr<float[]>(static_cast<float*>(p), [](float* q) { std::free(q); });
}
} // namespace

Tensor::Tensor(Shape shape, Device device)
    : m_data(allocate(shape.numel(), device)), m_capacity(shape.numel()), m_shape(std::move(shape)),
      m_numel(m_shape.numel()), m_device(device)
{
}

Tensor Tensor::zeros(Shape shape, Device device)
{
    Tensor t(std::move(shape), device);
    t.setZero();
    return t;
}

Tensor Tensor::full(Shape shape, float value, Device device)
{
    Tensor t(std::move(shape), device);
    t.fill(value);
    return t;
}

Tensor Tensor::reshaped(Shape shape) const
{
    if (shape.numel() != m_numel)
        throw ShapeError("cannot reshape " + m_shape.str() + " to " + shape.str());
    Tensor t = *this;
    t.m_shape = std::move(shape);
    return t;
}

Tensor Tensor::view(int64_t offset, Shape shape) const
{
    const int64_t n = shape.numel();
    if (offset < 0 || offset + n > m_numel)
        throw ShapeError("view of " + std::to_string(n) + " values at " + std::to_string(offset) +
                         " is outside a tensor of " + std::to_string(m_numel));
    Tensor t;
    // Aliasing constructor: points into this storage, shares its ownership.
    t.m_data = std::shared_ptr<float[]>(m_data, m_data.get() + offset);
    t.m_capacity = n;
    t.m_shape = std::move(shape);
    t.m_numel = n;
    t.m_device = m_device;
    return t;
}

Tensor Tensor::rows(int64_t begin, int64_t end) const
{
    if (rank() < 1 || begin < 0 || end < begin || end > dim(0))
        throw ShapeError("rows [" + std::to_string(begin) + ", " + std::to_string(end) + ") of " + m_shape.str());
    Shape s = m_shape;
    s[0] = end - begin;
    const int64_t rowSize = dim(0) > 0 ? m_numel / dim(0) : 0;
    return view(begin * rowSize, std::move(s));
}

Tensor Tensor::clone() const { return to(m_device); }

Tensor Tensor::to(Device device) const
{
    Tensor t(m_shape, device);
    t.copyFrom(*this);
    return t;
}

void Tensor::copyFrom(const Tensor& src)
{
    if (src.numel() != m_numel)
        throw ShapeError("cannot copy " + src.shape().str() + " into " + m_shape.str());
    if (m_numel == 0)
        return;
    if (m_device.isCpu() && src.device().isCpu()) {
        std::memcpy(data(), src.data(), bytes());
        return;
    }
    if (src.device().isCpu())
        cuda::ops().copyToDevice(m_device.index, data(), src.data(), m_numel);
    else if (m_device.isCpu())
        cuda::ops().copyToHost(src.device().index, data(), src.data(), m_numel);
    else if (m_device == src.device())
        cuda::ops().copyOnDevice(m_device.index, data(), src.data(), m_numel);
    else
        cuda::ops().copyBetweenDevices(m_device.index, data(), src.device().index, src.data(), m_numel);
}

void Tensor::fill(float value)
{
    if (!m_device.isCpu())
        return cuda::ops().fill(m_device.index, m_data.get(), m_numel, value);
    std::fill_n(m_data.get(), m_numel, value);
}

void Tensor::requireHost() const
{
    if (!m_device.isCpu())
        throw InternalError(__FILE__, __LINE__, "host access to a tensor on " + m_device.str());
}

void Tensor::ensureShape(const Shape& shape, Device device)
{
    if (device != m_device) {
        m_data.reset();
        m_capacity = 0;
        m_device = device;
    }
    ensureShape(shape);
}

void Tensor::ensureShape(const Shape& shape)
{
    const int64_t n = shape.numel();
    if (!m_data || n > m_capacity) {
        m_data = allocate(n, m_device);
        m_capacity = n;
    }
    m_shape = shape;
    m_numel = n;
}

} // namespace strata
