#pragma once
// Tensor: float32 values in contiguous, 64-byte aligned storage on a Device: host memory for
// cpu:N, device memory from the CUDA backend's caching allocator for gpu:N (data() is then a
// device pointer; values() is for host tensors only).
//
// Copies share storage (like numpy views); clone() makes an independent copy. A tensor
// is not thread-safe: one replica thread owns and mutates it (a GPU tensor's work runs on
// that thread's stream).

#include "strata/core/shape.h"
#include "strata/core/device.h"

#include <cstddef>
#include <memory>
#include <span>

namespace strata {

class Tensor {
public:
    static constexpr size_t kAlignment = 64;

    Tensor() = default;
    // Uninitialized storage for `shape`.
    explicit Tensor(Shape shape, Device device = Device::cpu());

    static Tensor zeros(Shape shape, Device device = Device::cpu());
    static Tensor full(Shape shape, float value, Device device = Device::cpu());

    const Shape& shape() const { return m_shape; }
    int rank() const { return m_shape.rank(); }
    int64_t dim(int i) const { return m_shape[i]; }
    int64_t numel() const { return m_numel; }
    size_t bytes() const { return static_cast<size_t>(m_numel) * sizeof(float); }
    Device device() const { return m_device; }
    bool empty() const { return m_numel == 0; }

    float* data() { return m_data.get(); }
    const float* data() const { return m_data.get(); }
    std::span<float> values()
    {
        requireHost();
        return {m_data.get(), static_cast<size_t>(m_numel)};
    }
    std::span<const float> values() const
    {
        requireHost();
        return {m_data.get(), static_cast<size_t>(m_numel)};
    }

    // Same storage seen with another shape of equal numel.
    Tensor reshaped(Shape shape) const;
    // `shape.numel()` values of this tensor's storage from `offset` on, as their own tensor
    // (the storage stays alive while the view does). Used for a replica's slice of a batch
    // and for gradients laid out in one contiguous buffer.
    Tensor view(int64_t offset, Shape shape) const;
    // Rows [begin, end) along the first dimension.
    Tensor rows(int64_t begin, int64_t end) const;
    Tensor clone() const;
    // An independent copy on `device` (host <-> GPU, GPU <-> GPU).
    Tensor to(Device device) const;
    // Overwrites this tensor's values with `src`'s (equal numel), from any device.
    void copyFrom(const Tensor& src);
    void fill(float value);
    void setZero() { fill(0.0f); }

    // Makes this tensor hold `shape`, reusing its storage when it is large enough (tensors
    // sharing that storage see the new contents). Contents are unspecified afterwards. Used
    // for buffers a layer rewrites every step.
    void ensureShape(const Shape& shape);
    // The same on `device` (new storage when the tensor was on another one).
    void ensureShape(const Shape& shape, Device device);

private:
    void requireHost() const;

    std::shared_ptr<float[]> m_data;
    int64_t m_capacity = 0;
    Shape m_shape;
    int64_t m_numel = 0;
    Device m_device;
};

} // namespace strata
