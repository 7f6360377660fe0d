#pragma once
// CachingAllocator: keeps freed device blocks for reuse, as PyTorch's CUDA caching allocator
// does, so a training step allocates nothing from the device after the first. Independent of
// CUDA (the backend's raw allocate/release are passed in), so the CPU tests cover it.
//
// Blocks are kept per stream: a block freed by one stream's owner is handed out again only
// for that stream, whose queued work is ordered before any new use. Thread-safe.

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <unordered_map>
#include <utility>

namespace strata {

class CachingAllocator {
public:
    struct Backend {
        std::function<void*(size_t)> allocate; // nullptr when the device is out of memory
        std::function<void(void*)> release;
    };
    struct Stats {
        size_t bytesInUse = 0;
        size_t bytesCached = 0;
        size_t peakBytesInUse = 0;
        int64_t backendAllocations = 0; // blocks taken from the device
        int64_t reuses = 0;             // blocks handed out again from the cache
    };

    explicit CachingAllocator(Backend backend);
    ~CachingAllocator();
    CachingAllocator(const CachingAllocator&) = delete;
    CachingAllocator& operator=(const CachingAllocator&) = delete;

    // A block of at least `bytes` for work on `stream`: a cached one of that stream when one
    // fits (at most twice the rounded size, so a small tensor never pins a large block), else
    // a new one; when the device is out of memory, the cache is released and the allocation
    // tried once more. nullptr when even that fails.
    void* allocate(size_t bytes, const void* stream);
    // Returns a block from allocate() to the cache.
    void deallocate(void* p);
    // Gives every cached block back to the device.
    void releaseCached();
    Stats stats() const;

    // The size a request is rounded to: 512 bytes below 1 MiB, 2 MiB above (fewer distinct
    // sizes, more reuse).
    static size_t roundedSize(size_t bytes);

private:
    void releaseCachedLocked();

    struct Block {
        size_t size;
        const void* stream;
    };
    Backend m_backend;
    mutable std::mutex m_mutex;
    std::unordered_map<void*, Block> m_inUse;
    std::multimap<std::pair<const void*, size_t>, void*> m_cached;
    Stats m_stats;
};

} // namespace strata
