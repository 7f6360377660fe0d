// Sizes declared inside files and frames (a checkpoint's header and tensor shapes, an IDX
// header's dimensions, a rendezvous frame's length, a ParameterServer frame's) are checked
// against what is there before anything is allocated for them: each small crafted input here
// declares gigabytes and gets a DataError (or a dropped connection) naming the cause, while
// the process's peak memory stays where it was. Also the text loader's bound on one split's
// word ids, and the rendezvous client's reading of malformed answers.

#include "data_test_files.h"
#include "dist_test_helpers.h"

#include "ps/transport.h"
#include "strata/core/error.h"
#include "strata/data/loaders.h"
#include "strata/distribute/communicator.h"
#include "strata/distribute/rendezvous_frames.h"
#include "strata/rundir/checkpoint.h"

#include <QtTest>

#include <netinet/in.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstring>

using namespace strata;
using namespace datatest;

namespace {

// The process's peak resident memory, in MiB.
long peakMiB()
{
    rusage usage{};
    ::getrusage(RUSAGE_SELF, &usage);
    return usage.ru_maxrss / 1024;
}

// A checkpoint file: the magic, format 1, the header's declared length, the header, and
// whatever follows.
QByteArray checkpointFile(uint32_t declaredLength, const QByteArray& header, const QByteArray& rest = {})
{
    QByteArray out("STRATACK");
    const uint32_t version = 1;
    out.append(reinterpret_cast<const char*>(&version), 4);
    out.append(reinterpret_cast<const char*>(&declaredLength), 4);
    return out + header + rest;
}

QByteArray checkpointHeader(const QByteArray& tensors)
{
    return R"({"step":1,"epoch":0,"step_in_epoch":1,"stream_batch":1,"extra":{},"tensors":)" + tensors +
           R"(,"data_bytes":16,"data_crc32":0})";
}

// What a reader throws for `fn`, as text; fails the test when it throws nothing else.
template<typename Fn>
QString dataError(Fn fn)
{
    try {
        fn();
    } catch (const DataError& e) {
        return QString::fromStdString(e.what());
    }
    return QStringLiteral("(no DataError)");
}

} // namespace

class TestSizeLimits : public QObject {
    Q_OBJECT

private slots:
    void checkpointHeaderLength_data()
    {
        QTest::addColumn<QByteArray>("file");
        QTest::addColumn<QString>("reason");
        // 20 bytes asking for a 4 GiB header.
        QTest::newRow("header length") << checkpointFile(0xffffffffu, "{}!!") << "declares 4294967295 bytes, the file holds 4";
        const QByteArray huge = checkpointHeader(R"([{"name":"w","shape":[100000,100000,100],"offset":0}])");
        QTest::newRow("tensor shape") << checkpointFile(uint32_t(huge.size()), huge, QByteArray(64, '\0'))
                                      << "tensor w of shape (100000, 100000, 100) needs more than the file's";
        const QByteArray overflow = checkpointHeader(R"([{"name":"w","shape":[4611686018427387904,4]}])");
        QTest::newRow("shape overflows") << checkpointFile(uint32_t(overflow.size()), overflow, QByteArray(64, '\0'))
                                         << "needs more than the file's";
        const QByteArray negative = checkpointHeader(R"([{"name":"w","shape":[-1,-8]}])");
        QTest::newRow("negative dimension") << checkpointFile(uint32_t(negative.size()), negative, QByteArray(64, '\0'))
                                            << "tensor w has shape (-1, -8)";
        const QByteArray offset = checkpointHeader(R"([{"name":"a","shape":[2],"offset":0},{"name":"b","shape":[2],"offset":64}])");
        QTest::newRow("offset") << checkpointFile(uint32_t(offset.size()), offset, QByteArray(128, '\0'))
                                << "tensor b is at offset 64, where the tensors before it end at 8";
    }

    void checkpointHeaderLength()
    {
        QFETCH(QByteArray, file);
        QFETCH(QString, reason);
        QTemporaryDir dir;
        const std::string path = datatest::path(dir.path(), "ckpt-0000000001.strata");
        writeBytes(path, file);
        const long before = peakMiB();
        const QString message = dataError([&] { run::readCheckpoint(path); });
        QVERIFY2(message.contains(reason), qPrintable(message));
        QVERIFY2(message.contains(QString::fromStdString(path)), qPrintable(message));
        QVERIFY2(peakMiB() - before < 64, qPrintable(QString("peak memory grew by %1 MiB").arg(peakMiB() - before)));
    }

    void idxDeclaredCounts_data()
    {
        QTest::addColumn<bool>("gzip");
        QTest::addColumn<QString>("reason");
        QTest::newRow("plain") << false << "truncated: the header promises 549755813888 bytes of data, the file has 4";
        QTest::newRow("gzip") << true << "more than a gzip file of";
    }

    // 20-byte images files whose header promises 512 GiB (2^20 images of 2^19 bytes): under
    // the 2^40 bound, far over what the file can hold.
    void idxDeclaredCounts()
    {
        QFETCH(bool, gzip);
        QFETCH(QString, reason);
        QTemporaryDir dir;
        const std::string images = path(dir.path(), "images"), labels = path(dir.path(), "labels");
        const QByteArray header = idx({1u << 20, 1u << 10, 1u << 9}, {1, 2, 3, 4});
        QCOMPARE(header.size(), 20);
        if (gzip)
            writeGzip(images, header);
        else
            writeBytes(images, header);
        writeBytes(labels, idx({1}, {0}));
        const long before = peakMiB();
        const QString message = dataError([&] { data::loadIdx(images, labels, true); });
        QVERIFY2(message.contains(reason), qPrintable(message));
        QVERIFY2(peakMiB() - before < 64, qPrintable(QString("peak memory grew by %1 MiB").arg(peakMiB() - before)));
    }

    // A split's word ids are bounded: 5,000 short lines at max_length 1,000,000 would be 20 GB.
    void textSequencesAreBounded()
    {
        QTemporaryDir dir;
        const std::string file = path(dir.path(), "train.tsv");
        writeBytes(file, QByteArray("0\tword\n").repeated(5000));
        const long before = peakMiB();
        const QString message = dataError([&] { data::loadText(file, "", 100, 1'000'000); });
        QVERIFY2(message.contains("5000 examples of 1000000 word ids each (max_length) are more than the 4 Gi ids")
                     && message.contains("lower data.source.max_length"),
                 qPrintable(message));
        QVERIFY2(peakMiB() - before < 64, qPrintable(QString("peak memory grew by %1 MiB").arg(peakMiB() - before)));
    }

    void rendezvousFrames()
    {
        const auto header = [](uint32_t length) {
            char h[4];
            for (int i = 0; i < 4; ++i)
                h[i] = static_cast<char>((length >> (8 * i)) & 0xff);
            return std::string(h, 4);
        };
        QCOMPARE(distribute::rendezvousFrameLength(header(distribute::kMaxRendezvousFrame).data()),
                 std::optional<uint32_t>(distribute::kMaxRendezvousFrame));
        QCOMPARE(distribute::rendezvousFrameLength(header(distribute::kMaxRendezvousFrame + 1).data()), std::nullopt);
        QCOMPARE(distribute::rendezvousFrameLength(header(0xffffffffu).data()), std::nullopt);
        // A request whose string declares more than its frame holds does not parse.
        std::string request = distribute::encodeRendezvousRequest("token", 'S', {"key", "value"}).substr(4);
        request[request.size() - 9] = '\x7f';
        QCOMPARE(distribute::parseRendezvousRequest(request), std::nullopt);

        // The client's answers: a get is "1" + value or "0"; anything else is an error, not a
        // read before the answer's start. Lost tasks are lines, the last one's newline optional.
        QCOMPARE(distribute::readRendezvousValue("1abc"), std::optional<std::string>("abc"));
        QCOMPARE(distribute::readRendezvousValue("0"), std::nullopt);
        QVERIFY_THROWS_EXCEPTION(distribute::CollectiveError, distribute::readRendezvousValue(""));
        QVERIFY_THROWS_EXCEPTION(distribute::CollectiveError, distribute::readRendezvousValue("x"));
        QCOMPARE(distribute::readRendezvousLostTasks("a (x)\nb (y)\n"), (std::vector<std::string>{"a (x)", "b (y)"}));
        QCOMPARE(distribute::readRendezvousLostTasks("a (x)\nb (y)"), (std::vector<std::string>{"a (x)", "b (y)"}));
        QCOMPARE(distribute::readRendezvousLostTasks(""), std::vector<std::string>{});
    }

    // A ParameterServer server drops a peer at once when a frame declares more than its limit,
    // before the CURVE handshake even: the peer cannot make it allocate what it declares.
    void psFramesAreBounded()
    {
        zmq::context_t context;
        const ps::CurveKeys keys = ps::deriveCurveKeys("token");
        const int port = testing::freePort();
        ps::Server server(context, keys, ps::endpointOf("127.0.0.1", port), 1 << 20);

        const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
        sockaddr_in a{};
        a.sin_family = AF_INET;
        a.sin_port = htons(static_cast<uint16_t>(port));
        a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        QCOMPARE(::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a), 0);
        // ZMTP 3.0's greeting (signature, version 3.0, mechanism CURVE, client), then a command
        // frame (flags: command, long size) declaring 2 GiB: an allocation that would succeed
        // (and be filled as the peer sends), not one malloc refuses.
        std::string greeting(64, '\0');
        greeting[0] = '\xff';
        greeting[9] = '\x7f';
        greeting[10] = 3;
        std::memcpy(greeting.data() + 12, "CURVE", 5);
        std::string frame = "\x06";
        for (int shift = 56; shift >= 0; shift -= 8)
            frame.push_back(static_cast<char>(((uint64_t(1) << 31) >> shift) & 0xff));
        const std::string bytes = greeting + frame;
        QCOMPARE(::send(fd, bytes.data(), bytes.size(), MSG_NOSIGNAL), ssize_t(bytes.size()));
        // The server polls its sockets while it waits; the connection must end, not wait for
        // the 2 GiB.
        timeval tv{0, 100'000};
        ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
        bool closed = false;
        for (int i = 0; i < 50 && !closed; ++i) {
            (void)server.wait(std::chrono::milliseconds(20));
            char buffer[256];
            const ssize_t n = ::recv(fd, buffer, sizeof buffer, 0);
            closed = n == 0 || (n < 0 && errno == ECONNRESET);
        }
        ::close(fd);
        QVERIFY2(closed, "the server kept a connection whose frame declares 2 GiB");
    }
};

QTEST_GUILESS_MAIN(TestSizeLimits)
#include "tst_size_limits.moc"
