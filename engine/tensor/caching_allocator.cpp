#include "strata/tensor/caching_allocator.h"

#include "strata/core/error.h"

namespace strata {

CachingAllocator::CachingAllocator(Backend backend) : m_backend(std::move(backend)) {}

CachingAllocator::~CachingAllocator() { releaseCached(); }

size_t CachingAllocator::roundedSize(size_t bytes)
{
    constexpr size_t kSmall = 512, kLarge = size_t{2} << 20, kLargeFrom = size_t{1} << 20;
    const size_t unit = bytes < kLargeFrom ? kSmall : kLarge;
    return bytes == 0 ? unit : (bytes + unit - 1) / unit * unit;
}

void* CachingAllocator::allocate(size_t bytes, const void* stream)
{
    const size_t size = roundedSize(bytes);
    std::lock_guard lock(m_mutex);
    auto it = m_cached.lower_bound({stream, size});
    if (it != m_cached.end() && it->first.first == stream && it->first.second <= 2 * size) {
        void* p = it->second;
        const size_t blockSize = it->first.second;
        m_cached.erase(it);
        m_inUse.emplace(p, Block{blockSize, stream});
        m_stats.bytesCached -= blockSize;
        m_stats.bytesInUse += blockSize;
        m_stats.peakBytesInUse = std::max(m_stats.peakBytesInUse, m_stats.bytesInUse);
        ++m_stats.reuses;
        return p;
    }
    void* p = m_backend.allocate(size);
    if (!p && !m_cached.empty()) {
        releaseCachedLocked();
        p = m_backend.allocate(size);
    }
    if (!p)
        return nullptr;
    m_inUse.emplace(p, Block{size, stream});
    m_stats.bytesInUse += size;
    m_stats.peakBytesInUse = std::max(m_stats.peakBytesInUse, m_stats.bytesInUse);
    ++m_stats.backendAllocations;
    return p;
}

void CachingAllocator::deallocate(void* p)
{
    if (!p)
        return;
    std::lock_guard lock(m_mutex);
    auto it = m_inUse.find(p);
    STRATA_CHECK(it != m_inUse.end(), "a block the caching allocator did not hand out was given back");
    const Block block = it->second;
    m_inUse.erase(it);
    m_cached.emplace(std::pair{block.stream, block.size}, p);
    m_stats.bytesInUse -= block.size;
    m_stats.bytesCached += block.size;
}

void CachingAllocator::releaseCached()
{
    std::lock_guard lock(m_mutex);
    releaseCachedLocked();
}

void CachingAllocator::releaseCachedLocked()
{
    for (auto& [key, p] : m_cached)
        m_backend.release(p);
    m_cached.clear();
    m_stats.bytesCached = 0;
}

CachingAllocator::Stats CachingAllocator::stats() const
{
    std::lock_guard lock(m_mutex);
    return m_stats;
}

} // namespace strata
