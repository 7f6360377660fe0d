// The rendezvous and the Gloo process group, with ranks as threads of this process (each
// with its own Gloo context and TCP connections on 127.0.0.1): collectives give equal,
// correct results on every rank; the rendezvous refuses connections without the token, with
// a wrong one, with garbage, oversized or silent ones, and the job is unaffected; a task
// that does not join is named (and its client leaves no descriptor open); a task that vanishes
// or goes silent is named as lost.

#include "strata/distribute/process_group.h"
#include "strata/distribute/rendezvous.h"

#include "dist_test_helpers.h"

#include <QtTest>

#include <arpa/inet.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <functional>
#include <numeric>
#include <thread>

using namespace strata;
using namespace strata::distribute;
using namespace std::chrono_literals;
using testing::freePort;
using testing::onRanks;

namespace {

const std::string kToken = "0123456789abcdef0123456789abcdef";

std::vector<std::string> names(int n)
{
    std::vector<std::string> out;
    for (int i = 0; i < n; ++i)
        out.push_back("worker:" + std::to_string(i));
    return out;
}


ProcessGroupOptions options(int size, int rank, int port, std::chrono::milliseconds timeout = 10s)
{
    ProcessGroupOptions o;
    o.taskNames = names(size);
    o.rank = rank;
    o.rendezvousHost = "127.0.0.1";
    o.rendezvousPort = port;
    o.host = "127.0.0.1";
    o.token = kToken;
    o.timeout = timeout;
    return o;
}


int connectTo(int port)
{
    const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_port = htons(static_cast<uint16_t>(port));
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) {
        ::close(fd);
        return -1;
    }
    return fd;
}

std::string frame(const std::string& token, char op, const std::vector<std::string>& args)
{
    std::string p;
    p.push_back(static_cast<char>(token.size() & 0xff));
    p.push_back(static_cast<char>(token.size() >> 8));
    p += token;
    p.push_back(op);
    const auto u32 = [](std::string& s, uint32_t v) {
        for (int i = 0; i < 4; ++i)
            s.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
    };
    for (const auto& a : args) {
        u32(p, static_cast<uint32_t>(a.size()));
        p += a;
    }
    std::string out;
    u32(out, static_cast<uint32_t>(p.size()));
    return out + p;
}

// Sends `bytes` and reports whether the server closed the connection without answering
// (waiting up to `within`).
bool closedWithoutAnswer(int fd, const std::string& bytes, std::chrono::milliseconds within = 3s)
{
    if (!bytes.empty())
        ::send(fd, bytes.data(), bytes.size(), MSG_NOSIGNAL);
    timeval tv{static_cast<time_t>(within.count() / 1000), static_cast<suseconds_t>((within.count() % 1000) * 1000)};
    ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    char buf[16];
    const ssize_t n = ::recv(fd, buf, sizeof buf, 0);
    ::close(fd);
    return n == 0 || (n < 0 && errno == ECONNRESET);
}

} // namespace

class TestProcessGroup : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void allReduceSumsOnEveryRank_data()
    {
        QTest::addColumn<int>("size");
        QTest::newRow("2 ranks") << 2;
        QTest::newRow("3 ranks") << 3;
        QTest::newRow("6 ranks (halving-doubling, not a power of 2)") << 6;
    }

    void allReduceSumsOnEveryRank()
    {
        QFETCH(int, size);
        const int port = freePort();
        const size_t n = 100'003; // not a multiple of the ranks: uneven ring chunks
        std::vector<std::vector<float>> results(static_cast<size_t>(size));
        std::vector<std::vector<double>> stats(static_cast<size_t>(size));
        const auto errors = onRanks(size, [&](int rank) {
            ProcessGroup group(options(size, rank, port));
            QCOMPARE(group.rank(), rank);
            std::vector<float> data(n);
            for (int round = 0; round < 3; ++round) { // the same buffer again: reused algorithm
                for (size_t i = 0; i < n; ++i)
                    data[i] = static_cast<float>((rank + 1) * (i % 7)) + 0.25f * static_cast<float>(round);
                group.allReduce(std::span<float>(data));
            }
            std::vector<double> s{1.0 * rank, 1e12 + rank};
            group.allReduce(std::span<double>(s));
            results[static_cast<size_t>(rank)] = data;
            stats[static_cast<size_t>(rank)] = s;
            group.leaveTogether(); // as a trainer ends: nobody closes what a peer still reads
        });
        for (const auto& e : errors)
            QVERIFY2(e.empty(), e.c_str());
        const float rankSum = static_cast<float>(size * (size + 1) / 2);
        for (int r = 0; r < size; ++r) {
            QCOMPARE(results[size_t(r)], results[0]); // bitwise equal on every rank
            for (size_t i = 0; i < n; i += 997)
                QCOMPARE(results[size_t(r)][i], rankSum * static_cast<float>(i % 7) + 0.5f * static_cast<float>(size));
            QCOMPARE(stats[size_t(r)][0], size * (size - 1) / 2.0);
            QCOMPARE(stats[size_t(r)][1], size * 1e12 + size * (size - 1) / 2.0);
        }
    }

    // Sums that float rounding makes depend on their order: each algorithm still leaves every
    // rank bitwise equal (each element summed by one rank, then copied), at any number of ranks.
    void everyAlgorithmEndsBitwiseEqual_data()
    {
        QTest::addColumn<int>("size");
        QTest::addColumn<bool>("ring");
        for (int size : {3, 5, 8})
            for (bool ring : {true, false})
                QTest::addRow("%d ranks, %s", size, ring ? "ring" : "halving-doubling") << size << ring;
    }

    void everyAlgorithmEndsBitwiseEqual()
    {
        QFETCH(int, size);
        QFETCH(bool, ring);
        const AllReduceAlgorithm algorithm = ring ? AllReduceAlgorithm::Ring : AllReduceAlgorithm::HalvingDoubling;
        const int port = freePort();
        const size_t n = 10'007;
        auto value = [](int rank, size_t i) { return std::sin(float(i) * 0.37f + float(rank)) * 1e3f / float(i + 1); };
        std::vector<std::vector<float>> results(static_cast<size_t>(size));
        const auto errors = onRanks(size, [&](int rank) {
            ProcessGroup group(options(size, rank, port));
            std::vector<float> data(n);
            for (size_t i = 0; i < n; ++i)
                data[i] = value(rank, i);
            group.allReduce(std::span<float>(data), algorithm);
            results[static_cast<size_t>(rank)] = data;
            group.leaveTogether();
        });
        for (const auto& e : errors)
            QVERIFY2(e.empty(), e.c_str());
        for (int r = 1; r < size; ++r)
            QVERIFY2(results[size_t(r)] == results[0], qPrintable(QStringLiteral("rank %1 differs from rank 0").arg(r)));
        for (size_t i = 0; i < n; i += 101) {
            double exact = 0;
            for (int r = 0; r < size; ++r)
                exact += value(r, i);
            QVERIFY(std::abs(results[0][i] - exact) <= 1e-5 * (1.0 + std::abs(exact)));
        }
    }

    // The rule the group follows (bench/README.md, "Collectives against the number of tasks").
    void algorithmChosenForTheRanksAndSize()
    {
        QCOMPARE(allReduceAlgorithmFor(2, 1024), AllReduceAlgorithm::Ring);
        QCOMPARE(allReduceAlgorithmFor(3, 1024), AllReduceAlgorithm::Ring);
        QCOMPARE(allReduceAlgorithmFor(4, 1024), AllReduceAlgorithm::HalvingDoubling);
        QCOMPARE(allReduceAlgorithmFor(64, kHalvingDoublingUpToBytes), AllReduceAlgorithm::HalvingDoubling);
        QCOMPARE(allReduceAlgorithmFor(64, kHalvingDoublingUpToBytes + 1), AllReduceAlgorithm::Ring);
    }

    void broadcastAndQueuedAllReduce()
    {
        const int size = 3;
        const int port = freePort();
        std::vector<std::string> bytesSeen(size);
        std::vector<std::vector<float>> weights(size), buckets(size);
        std::vector<std::vector<SpanRecorder::Span>> spans(size);
        std::vector<int64_t> offsets(size);
        const auto errors = onRanks(size, [&](int rank) {
            ProcessGroup group(options(size, rank, port));
            // The step timeline: each queued all-reduce a "bucket" span on the reduce lane.
            SpanRecorder recorder;
            group.setSpanRecorder(&recorder);
            std::string bytes = rank == 0 ? std::string("state of the chief\0with a zero", 30) : "";
            group.broadcast(bytes);
            bytesSeen[size_t(rank)] = bytes;
            std::vector<float> w(1000, static_cast<float>(rank));
            group.broadcast(std::span<float>(w), 0);
            weights[size_t(rank)] = w;
            // Three buckets of one buffer queued while this thread goes on.
            std::vector<float> g(3000);
            std::iota(g.begin(), g.end(), static_cast<float>(rank));
            group.allReduceQueued(std::span<float>(g).subspan(2000, 1000));
            group.allReduceQueued(std::span<float>(g).subspan(1000, 1000));
            group.allReduceQueued(std::span<float>(g).subspan(0, 1000));
            group.waitQueued();
            buckets[size_t(rank)] = g;
            // Counted afresh after waitQueued(): the next step's first bucket is 0 again.
            group.allReduceQueued(std::span<float>(g).subspan(2000, 1000));
            group.waitQueued();
            recorder.take(TraceLane::Reduce, spans[size_t(rank)]);
            offsets[size_t(rank)] = group.clockOffsetUs();
            group.leaveTogether();
        });
        for (const auto& e : errors)
            QVERIFY2(e.empty(), e.c_str());
        for (int r = 0; r < size; ++r) {
            QCOMPARE(bytesSeen[size_t(r)], std::string("state of the chief\0with a zero", 30));
            QCOMPARE(weights[size_t(r)], std::vector<float>(1000, 0.0f));
            for (size_t i = 0; i < 3000; i += 101)
                QCOMPARE(buckets[size_t(r)][i], static_cast<float>(3 * i + 0 + 1 + 2));
            const auto& s = spans[size_t(r)];
            QCOMPARE(s.size(), size_t(4));
            for (size_t k = 0; k < s.size(); ++k) {
                QCOMPARE(std::string(s[k].name), std::string("bucket"));
                QCOMPARE(s[k].index, k < 3 ? int32_t(k) : 0);
                QVERIFY(s[k].end >= s[k].begin);
                if (k > 0) // one after the other, on the queue's thread
                    QVERIFY(s[k].begin >= s[k - 1].end);
            }
            // Every task shares this clock: the estimated offset to rank 0's is within a
            // round trip on loopback (rank 0's is 0 by definition).
            QVERIFY2(std::abs(offsets[size_t(r)]) < 20000, qPrintable(QString::number(offsets[size_t(r)])));
        }
        QCOMPARE(offsets[0], int64_t(0));
    }

    void missingTaskIsNamed()
    {
        const int port = freePort();
        const auto started = std::chrono::steady_clock::now();
        // worker:2 never starts.
        const auto errors = onRanks(2, [&](int rank) { ProcessGroup group(options(3, rank, port, 1500ms)); });
        const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
        QVERIFY2(seconds < 10, qPrintable(QString::number(seconds)));
        for (const auto& e : errors)
            QVERIFY2(QString::fromStdString(e).contains("worker:2"), e.c_str());
    }

    void unreachableChiefIsNamed()
    {
        try {
            RendezvousClient client("127.0.0.1", freePort(), kToken, names(2), 1, 600ms);
            QFAIL("connected to nothing");
        } catch (const CollectiveError& e) {
            const QString m = e.what();
            QVERIFY2(m.contains("worker:0") && m.contains("127.0.0.1:"), e.what());
        }
    }

    // A chief's port that takes the connection but never answers the join: the client gives
    // up with the chief named, and leaves no descriptor open behind it (it did before the
    // socket had an owner: a throwing constructor runs no destructor).
    void clientThatCannotJoinLeavesNoDescriptor()
    {
        const int listener = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        sockaddr_in a{};
        a.sin_family = AF_INET;
        a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        socklen_t size = sizeof a;
        QVERIFY(::bind(listener, reinterpret_cast<sockaddr*>(&a), size) == 0 && ::listen(listener, 4) == 0);
        QVERIFY(::getsockname(listener, reinterpret_cast<sockaddr*>(&a), &size) == 0);
        const auto openDescriptors = [] {
            return std::distance(std::filesystem::directory_iterator("/proc/self/fd"), {});
        };
        const auto before = openDescriptors();
        try {
            RendezvousClient client("127.0.0.1", ntohs(a.sin_port), kToken, names(2), 1, 300ms);
            QFAIL("joined a rendezvous that never answers");
        } catch (const CollectiveError& e) {
            QVERIFY2(QString(e.what()).contains("worker:0 is gone"), e.what());
        }
        QCOMPARE(openDescriptors(), before);
        ::close(listener);
    }

    void badConnectionsAreRefusedAndTheJobGoesOn()
    {
        RendezvousServer server("127.0.0.1", 0, kToken);
        const int port = server.port();
        // No token, a wrong token, a right-length wrong token, garbage, an oversized frame,
        // a valid frame before joining, and a connection that says nothing.
        QVERIFY(closedWithoutAnswer(connectTo(port), frame("", 'J', {"worker:0"})));
        QVERIFY(closedWithoutAnswer(connectTo(port), frame("secret", 'J', {"worker:0"})));
        std::string wrong = kToken;
        wrong.back() = 'X';
        QVERIFY(closedWithoutAnswer(connectTo(port), frame(wrong, 'J', {"worker:0"})));
        QVERIFY(closedWithoutAnswer(connectTo(port), std::string("GET / HTTP/1.1\r\nHost: x\r\n\r\n")));
        QVERIFY(closedWithoutAnswer(connectTo(port), std::string("\xff\xff\xff\x7f", 4) + "junk"));
        QVERIFY(closedWithoutAnswer(connectTo(port), frame(kToken, 'S', {"0", "poisoned"})));
        QVERIFY(closedWithoutAnswer(connectTo(port), "", 8s)); // silent: dropped after a few seconds
        QCOMPARE(server.refusedConnections(), 7);

        // The wrong-token set did not land, and a real client works as before.
        RendezvousClient client("127.0.0.1", port, kToken, names(1), 0, 2s);
        client.set("other", {'x'});
        QCOMPARE(client.get("other"), std::vector<char>{'x'});
        try {
            client.wait({"0"}, 300ms);
            QFAIL("a key set without the token is in the store");
        } catch (const CollectiveError& e) {
            QVERIFY2(QString(e.what()).contains("worker:0 did not join"), e.what());
        }
        // A joined task that then sends a frame with a wrong token is cut off too.
        const int fd = connectTo(port);
        ::send(fd, frame(kToken, 'J', {"intruder"}).data(), frame(kToken, 'J', {"intruder"}).size(), MSG_NOSIGNAL);
        char reply[64];
        QVERIFY(::recv(fd, reply, sizeof reply, 0) > 0);
        QVERIFY(closedWithoutAnswer(fd, frame(wrong, 'S', {"0", "x"})));
    }

    void badConnectionsDuringAJobLeaveItUnaffected()
    {
        const int port = freePort();
        std::atomic<bool> done{false};
        std::thread attacker([&] {
            while (!done) {
                const int fd = connectTo(port);
                if (fd >= 0)
                    closedWithoutAnswer(fd, "garbage garbage garbage", 200ms);
                std::this_thread::sleep_for(20ms);
            }
        });
        std::vector<std::vector<float>> results(2);
        const auto errors = onRanks(2, [&](int rank) {
            ProcessGroup group(options(2, rank, port));
            std::vector<float> v(4096, 1.0f + rank);
            for (int i = 0; i < 50; ++i)
                group.allReduce(std::span<float>(v));
            results[size_t(rank)] = v;
            group.leaveTogether();
        });
        done = true;
        attacker.join();
        for (const auto& e : errors)
            QVERIFY2(e.empty(), e.c_str());
        QCOMPARE(results[0], results[1]);
        QCOMPARE(results[0][0], 3.0f * static_cast<float>(1ull << 49)); // 3, doubled 49 times
    }

    void listensOnTheNamedAddressOnly()
    {
        // Another address of this machine, if it has one besides loopback.
        ifaddrs* list = nullptr;
        QVERIFY(::getifaddrs(&list) == 0);
        std::string other;
        for (ifaddrs* i = list; i && other.empty(); i = i->ifa_next)
            if (i->ifa_addr && i->ifa_addr->sa_family == AF_INET && !(i->ifa_flags & IFF_LOOPBACK)) {
                char text[INET_ADDRSTRLEN];
                ::inet_ntop(AF_INET, &reinterpret_cast<sockaddr_in*>(i->ifa_addr)->sin_addr, text, sizeof text);
                other = text;
            }
        ::freeifaddrs(list);
        if (other.empty())
            QSKIP("this machine has no address besides loopback to try");
        RendezvousServer server("127.0.0.1", 0, kToken);
        const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
        sockaddr_in a{};
        a.sin_family = AF_INET;
        a.sin_port = htons(static_cast<uint16_t>(server.port()));
        ::inet_pton(AF_INET, other.c_str(), &a.sin_addr);
        const bool connected = ::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0;
        ::close(fd);
        QVERIFY2(!connected, qPrintable(QString("the rendezvous answered on %1").arg(QString::fromStdString(other))));
        const int given = connectTo(server.port()); // and does on the address it was given
        QVERIFY(given >= 0);
        ::close(given);
    }

    void lostTasksAreNamed()
    {
        RendezvousServer server("127.0.0.1", 0, kToken, 1000ms);
        auto a = std::make_unique<RendezvousClient>("127.0.0.1", server.port(), kToken, names(3), 1, 2s);
        auto b = std::make_unique<RendezvousClient>("127.0.0.1", server.port(), kToken, names(3), 2, 2s);
        QVERIFY(server.lostTasks().empty());
        // Asked through a client (as a task whose collective failed asks), nothing lost is an
        // empty answer, not the rendezvous' host gone.
        const std::vector<std::string> nothing = a->lostTasks();
        QVERIFY2(nothing.empty(), nothing.empty() ? "" : nothing.front().c_str());
        b->goodbye();
        b.reset(); // left on purpose: not lost
        a.reset(); // vanished without a goodbye
        QTRY_COMPARE_WITH_TIMEOUT(server.lostTasks().size(), size_t(1), 120000); // an event; the deadline is for a hang
        QVERIFY2(QString::fromStdString(server.lostTasks()[0]).startsWith("worker:1 (on 127.0.0.1: connection lost"),
                 server.lostTasks()[0].c_str());
    }
};

QTEST_GUILESS_MAIN(TestProcessGroup)
#include "tst_process_group.moc"
