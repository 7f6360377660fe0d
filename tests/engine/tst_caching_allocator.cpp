// The GPU backend's caching allocator, driven by a fake device (counted host blocks with a
// capacity), so its bookkeeping is tested without a GPU.

#include "strata/core/error.h"
#include "strata/tensor/caching_allocator.h"

#include <QTest>

#include <cstdlib>
#include <map>
#include <set>

namespace {

// A device of `capacity` bytes: allocate() fails (nullptr) beyond it, as cudaMalloc does.
struct FakeDevice {
    size_t capacity = 0;
    size_t used = 0;
    int allocations = 0;
    int releases = 0;
    std::set<void*> live;

    strata::CachingAllocator::Backend backend()
    {
        return {[this](size_t bytes) -> void* {
                    if (used + bytes > capacity)
                        return nullptr;
                    used += bytes;
                    ++allocations;
                    void* p = std::malloc(bytes);
                    live.insert(p);
                    sizes[p] = bytes;
                    return p;
                },
                [this](void* p) {
                    used -= sizes.at(p);
                    ++releases;
                    live.erase(p);
                    std::free(p);
                }};
    }
    std::map<void*, size_t> sizes;
};

const void* const kStreamA = reinterpret_cast<const void*>(0x1);
const void* const kStreamB = reinterpret_cast<const void*>(0x2);

} // namespace

class TestCachingAllocator : public QObject {
    Q_OBJECT

private slots:
    void roundsSizes()
    {
        using A = strata::CachingAllocator;
        QCOMPARE(A::roundedSize(0), size_t{512});
        QCOMPARE(A::roundedSize(1), size_t{512});
        QCOMPARE(A::roundedSize(513), size_t{1024});
        QCOMPARE(A::roundedSize((size_t{1} << 20) + 1), size_t{2} << 20);
        QCOMPARE(A::roundedSize((size_t{5} << 20)), size_t{6} << 20);
    }

    // A training step's allocations come back from the cache from the second step on.
    void reusesFreedBlocksOfTheSameStream()
    {
        FakeDevice device{1 << 24};
        strata::CachingAllocator a(device.backend());
        void* p = a.allocate(1000, kStreamA);
        QVERIFY(p);
        a.deallocate(p);
        void* q = a.allocate(900, kStreamA); // same rounded size
        QCOMPARE(q, p);
        QCOMPARE(device.allocations, 1);
        QCOMPARE(a.stats().reuses, int64_t{1});
        QCOMPARE(a.stats().bytesInUse, size_t{1024});
        a.deallocate(q);
        QCOMPARE(a.stats().bytesCached, size_t{1024});
        QCOMPARE(a.stats().bytesInUse, size_t{0});
    }

    // Another stream's queued work may still use a freed block: it is not handed across.
    void keepsStreamsApart()
    {
        FakeDevice device{1 << 24};
        strata::CachingAllocator a(device.backend());
        void* p = a.allocate(4096, kStreamA);
        a.deallocate(p);
        void* q = a.allocate(4096, kStreamB);
        QVERIFY(q != p);
        QCOMPARE(device.allocations, 2);
        a.deallocate(q);
    }

    // A small request does not pin a much larger cached block.
    void doesNotServeSmallRequestsFromLargeBlocks()
    {
        FakeDevice device{1 << 26};
        strata::CachingAllocator a(device.backend());
        void* big = a.allocate(size_t{8} << 20, kStreamA);
        a.deallocate(big);
        void* small = a.allocate(1024, kStreamA);
        QVERIFY(small != big);
        void* half = a.allocate(size_t{6} << 20, kStreamA); // 8 MiB <= 2 x 6 MiB: reused
        QCOMPARE(half, big);
        a.deallocate(small);
        a.deallocate(half);
    }

    // Out of device memory: the cache goes back to the device and the allocation is retried.
    void releasesTheCacheWhenTheDeviceIsFull()
    {
        FakeDevice device{4096};
        strata::CachingAllocator a(device.backend());
        void* p = a.allocate(3000, kStreamB); // 3072 bytes, cached for stream B afterwards
        a.deallocate(p);
        void* q = a.allocate(3000, kStreamA); // does not fit beside the cached block
        QVERIFY(q);
        QCOMPARE(device.releases, 1);
        QCOMPARE(a.stats().bytesCached, size_t{0});
        QVERIFY(!a.allocate(3000, kStreamA)); // truly full: nullptr, for the caller to report
        a.deallocate(q);
    }

    void refusesBlocksItDidNotHandOut()
    {
        FakeDevice device{4096};
        strata::CachingAllocator a(device.backend());
        int local = 0;
        QVERIFY_THROWS_EXCEPTION(strata::InternalError, a.deallocate(&local));
    }

    void givesEverythingBackWhenDestroyed()
    {
        FakeDevice device{1 << 20};
        {
            strata::CachingAllocator a(device.backend());
            a.deallocate(a.allocate(100, kStreamA));
            a.deallocate(a.allocate(5000, kStreamA));
            QCOMPARE(a.stats().peakBytesInUse, size_t{5120});
        }
        QVERIFY(device.live.empty());
    }
};

QTEST_GUILESS_MAIN(TestCachingAllocator)
#include "tst_caching_allocator.moc"
