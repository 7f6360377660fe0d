// Series: storage across chunk boundaries, lowerBound, yRange and decimate against brute
// force on random data (duplicate x, empty and outside ranges, single points), the
// smoothers against straightforward references, and the memory held per point.

#include "app/metrics/series.h"

#include <QtTest>

#include <algorithm>
#include <cmath>
#include <random>

using namespace strata::app;

namespace {

struct Data {
    std::vector<double> x;
    std::vector<float> y;
};

// Random walk in y; x increments of 0 (duplicates), 1 or a random fraction.
Data randomData(int64_t n, uint32_t seed)
{
    std::mt19937 rng(seed);
    std::uniform_real_distribution<double> unit(0.0, 1.0);
    std::normal_distribution<float> noise(0.0f, 1.0f);
    Data d;
    double x = unit(rng) * 10 - 5;
    float y = 0;
    for (int64_t i = 0; i < n; ++i) {
        const double r = unit(rng);
        x += r < 0.2 ? 0.0 : r < 0.6 ? 1.0 : unit(rng) * 3;
        y += noise(rng);
        // Exact repeats of the same value, so that ties between min/max candidates occur.
        d.x.push_back(x);
        d.y.push_back(unit(rng) < 0.1 ? std::round(y) : y);
    }
    return d;
}

Series toSeries(const Data& d)
{
    Series s;
    for (size_t i = 0; i < d.x.size(); ++i)
        s.append(d.x[i], d.y[i]);
    return s;
}

// What decimate promises, computed point by point.
QVector<QPointF> bruteDecimate(const Data& d, double x0, double x1, int columns)
{
    QVector<QPointF> out;
    const auto n = int64_t(d.x.size());
    if (n == 0 || x1 < x0)
        return out;
    const auto point = [&](int64_t i) { return QPointF(d.x[size_t(i)], double(d.y[size_t(i)])); };
    int64_t begin = 0;
    while (begin < n && d.x[size_t(begin)] < x0)
        ++begin;
    int64_t end = begin;
    while (end < n && d.x[size_t(end)] <= x1)
        ++end;
    if (begin > 0)
        out.append(point(begin - 1));
    const double scale = double(columns) / (x1 - x0);
    const auto columnOf = [&](double x) -> int64_t {
        if (!(x1 > x0))
            return 0;
        const double c = std::floor((x - x0) * scale);
        return c <= 0 ? 0 : c >= double(columns - 1) ? columns - 1 : int64_t(c);
    };
    for (int64_t i = begin; i < end;) {
        int64_t j = i;
        int64_t minAt = i, maxAt = i;
        while (j < end && columnOf(d.x[size_t(j)]) == columnOf(d.x[size_t(i)])) {
            if (d.y[size_t(j)] < d.y[size_t(minAt)])
                minAt = j;
            if (d.y[size_t(j)] > d.y[size_t(maxAt)])
                maxAt = j;
            ++j;
        }
        std::vector<int64_t> at{i, minAt, maxAt, j - 1};
        std::sort(at.begin(), at.end());
        at.erase(std::unique(at.begin(), at.end()), at.end());
        for (const int64_t k : at)
            out.append(point(k));
        i = j;
    }
    if (end < n)
        out.append(point(end));
    return out;
}

std::vector<float> referenceEma(const std::vector<float>& v, double w)
{
    std::vector<float> out;
    double last = 0;
    for (size_t i = 0; i < v.size(); ++i) {
        last = last * w + (1 - w) * double(v[i]);
        out.push_back(float(last / (1 - std::pow(w, double(i + 1)))));
    }
    return out;
}

std::vector<float> referenceMovingAverage(const std::vector<float>& v, int window)
{
    std::vector<float> out;
    for (size_t i = 0; i < v.size(); ++i) {
        const size_t first = i + 1 >= size_t(window) ? i + 1 - size_t(window) : 0;
        double sum = 0;
        for (size_t j = first; j <= i; ++j)
            sum += double(v[j]);
        out.push_back(float(sum / double(i - first + 1)));
    }
    return out;
}

bool sameFloats(const Series& a, const Series& b)
{
    if (a.size() != b.size())
        return false;
    for (int64_t i = 0; i < a.size(); ++i)
        if (a.x(i) != b.x(i) || a.y(i) != b.y(i))
            return false;
    return true;
}

} // namespace

class TestSeries : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void emptySeries()
    {
        Series s;
        QVERIFY(s.empty());
        QCOMPARE(s.lowerBound(0.0), int64_t(0));
        QVector<QPointF> out{QPointF(1, 1)};
        s.decimate(0, 10, 100, out);
        QVERIFY(out.isEmpty());
        QVERIFY(s.memoryBytes() > 0);
    }

    void chunkBoundaries()
    {
        // Points on both sides of every 4096-point chunk boundary read back exactly.
        Series s;
        const int64_t n = 3 * 4096 + 1;
        const auto value = [](int64_t i) { return float(i * 7919 % 977) - 300.0f; };
        for (int64_t i = 0; i < n; ++i)
            s.append(double(i) * 0.5, value(i));
        QCOMPARE(s.size(), n);
        for (const int64_t i : {int64_t(0), int64_t(4095), int64_t(4096), int64_t(4097), int64_t(8191),
                                int64_t(8192), n - 1}) {
            QCOMPARE(s.x(i), double(i) * 0.5);
            QCOMPARE(s.y(i), value(i));
            QCOMPARE(s.lowerBound(double(i) * 0.5), i);
            QCOMPARE(s.lowerBound(double(i) * 0.5 - 0.25), i);
        }
        QCOMPARE(s.lastX(), double(n - 1) * 0.5);
        QCOMPARE(s.lowerBound(1e12), n);
        // A range spanning a boundary, reduced to one column: the neighbours, then first,
        // min, max and last in index order.
        QVector<QPointF> out;
        s.decimate(4090 * 0.5, 4100 * 0.5, 1, out);
        int64_t minAt = 4090, maxAt = 4090;
        for (int64_t i = 4090; i <= 4100; ++i) {
            minAt = value(i) < value(minAt) ? i : minAt;
            maxAt = value(i) > value(maxAt) ? i : maxAt;
        }
        std::vector<int64_t> at{4089, 4090, minAt, maxAt, 4100, 4101};
        std::sort(at.begin(), at.end());
        at.erase(std::unique(at.begin(), at.end()), at.end());
        QCOMPARE(out.size(), qsizetype(at.size()));
        for (size_t k = 0; k < at.size(); ++k)
            QCOMPARE(out[qsizetype(k)], QPointF(double(at[k]) * 0.5, double(value(at[k]))));
    }

    void lowerBound()
    {
        for (const int64_t n : {1, 2, 63, 64, 65, 4096, 4097, 20000}) {
            const Data d = randomData(n, uint32_t(n));
            const Series s = toSeries(d);
            std::mt19937 rng(7);
            std::uniform_real_distribution<double> pick(d.x.front() - 2, d.x.back() + 2);
            for (int k = 0; k < 500; ++k) {
                // Half the probes hit stored values exactly (duplicates included).
                const double v = k % 2 ? pick(rng) : d.x[size_t(k * 7919 % n)];
                const auto expected = int64_t(std::lower_bound(d.x.begin(), d.x.end(), v) - d.x.begin());
                QCOMPARE(s.lowerBound(v), expected);
            }
        }
    }

    void yRangeMatchesBruteForce()
    {
        for (const int64_t n : {1, 5, 64, 129, 4096, 5000, 70000}) {
            const Data d = randomData(n, uint32_t(100 + n));
            const Series s = toSeries(d);
            std::mt19937 rng{uint32_t(n)};
            std::uniform_int_distribution<int64_t> index(0, n - 1);
            for (int k = 0; k < 300; ++k) {
                int64_t a = index(rng), b = index(rng);
                if (a > b)
                    std::swap(a, b);
                ++b;
                const auto first = d.y.begin() + a, last = d.y.begin() + b;
                const auto [lo, hi] = s.yRange(a, b);
                QCOMPARE(lo, *std::min_element(first, last));
                QCOMPARE(hi, *std::max_element(first, last));
            }
            const auto [lo, hi] = s.yRange();
            QCOMPARE(lo, *std::min_element(d.y.begin(), d.y.end()));
            QCOMPARE(hi, *std::max_element(d.y.begin(), d.y.end()));
        }
    }

    // A falling loss sets a new minimum at every step: read while it grows (blocks complete
    // and not), every range ending at the newest point is still exact, ties to the earlier.
    void yRangeWhileAFallingSeriesGrows()
    {
        Series s;
        std::vector<float> y;
        for (int64_t i = 0; i < 3000; ++i) {
            y.push_back(float(1000 - i / 3)); // each value three times
            s.append(double(i), y.back());
            for (const int64_t from : {int64_t(0), i / 2, std::max<int64_t>(i - 40, 0), i}) {
                const auto [lo, hi] = s.yRange(from, i + 1);
                QCOMPARE(lo, y.back());
                QCOMPARE(hi, y[size_t(from)]);
            }
        }
    }

    void yRangeIgnoresNaN()
    {
        Series s;
        const float nan = std::numeric_limits<float>::quiet_NaN();
        for (int i = 0; i < 1000; ++i)
            s.append(i, i == 500 ? -7.0f : i % 3 == 0 ? nan : 1.0f);
        const auto [lo, hi] = s.yRange();
        QCOMPARE(lo, -7.0f);
        QCOMPARE(hi, 1.0f);
        QVERIFY(std::isnan(s.yRange(0, 1).first));
    }

    void decimate_data()
    {
        QTest::addColumn<qint64>("n");
        QTest::addColumn<int>("columns");
        QTest::newRow("single point") << qint64(1) << 100;
        QTest::newRow("few points, many columns") << qint64(37) << 800;
        QTest::newRow("one column") << qint64(5000) << 1;
        QTest::newRow("chunk boundaries") << qint64(3 * 4096 + 17) << 333;
        QTest::newRow("dense") << qint64(200000) << 1200;
        QTest::newRow("dense, few columns") << qint64(100000) << 7;
    }

    void decimate()
    {
        QFETCH(qint64, n);
        QFETCH(int, columns);
        const Data d = randomData(n, uint32_t(n * 31 + columns));
        const Series s = toSeries(d);
        const double first = d.x.front(), last = d.x.back(), span = std::max(last - first, 1.0);
        std::vector<std::pair<double, double>> ranges{
            {first, last},                           // everything
            {first - span, last + span},             // wider than the data
            {first + span * 0.3, first + span * 0.31}, // zoomed in
            {first + span * 0.5, first + span * 0.5},  // empty width: one column
            {last + 1, last + 100},                  // after the data
            {first - 100, first - 1},                // before the data
            {last - 1, first},                       // reversed: nothing
            {d.x[size_t(n / 2)], d.x[size_t(n / 2)]}, // exactly a stored x (maybe duplicated)
        };
        std::mt19937 rng{uint32_t(n)};
        std::uniform_real_distribution<double> pick(first - span * 0.1, last + span * 0.1);
        for (int k = 0; k < 40; ++k) {
            double a = pick(rng), b = pick(rng);
            ranges.emplace_back(std::min(a, b), std::max(a, b));
        }
        QVector<QPointF> out;
        for (const auto& [x0, x1] : ranges) {
            s.decimate(x0, x1, columns, out);
            const QVector<QPointF> expected = bruteDecimate(d, x0, x1, columns);
            if (out != expected)
                qWarning() << "range" << x0 << x1 << "got" << out.size() << "expected" << expected.size();
            QCOMPARE(out, expected);
            // At most first/min/max/last per column plus the two neighbours.
            QVERIFY(out.size() <= 4 * columns + 2);
        }
    }

    // A reduction kept while the series grows (a run followed live) is, after every growth,
    // exactly the reduction made from scratch; a view that did not move over a series that did
    // not grow is not reduced again, and an unbounded view is made again as the data grows.
    void reductionExtendedAsTheSeriesGrows_data()
    {
        QTest::addColumn<int>("columns");
        QTest::addColumn<int>("batch"); // points per growth
        QTest::newRow("dense, windows of 50") << 1200 << 50;
        QTest::newRow("dense, single points") << 300 << 1;
        QTest::newRow("sparse") << 1200 << 7;
        QTest::newRow("one column") << 1 << 333;
    }

    void reductionExtendedAsTheSeriesGrows()
    {
        QFETCH(int, columns);
        QFETCH(int, batch);
        const Data d = randomData(60000, uint32_t(columns * 7 + batch));
        const double x0 = d.x.front() - 3, x1 = d.x[40000]; // the view ends inside the data
        Series s;
        Series::Reduction kept, unbounded;
        QVector<QPointF> fresh;
        size_t next = 0;
        int checks = 0;
        while (next < d.x.size()) {
            const size_t stop = std::min(d.x.size(), next + size_t(batch) * (1 + size_t(checks % 5) * 4));
            for (; next < stop; ++next)
                s.append(d.x[next], d.y[next]);
            s.decimate(x0, x1, columns, kept);
            s.decimate(x0, x1, columns, fresh);
            QCOMPARE(kept.points, fresh);
            QVERIFY(!s.decimate(x0, x1, columns, kept)); // nothing new
            s.decimate(-INFINITY, INFINITY, columns, unbounded);
            s.decimate(-INFINITY, INFINITY, columns, fresh);
            QCOMPARE(unbounded.points, fresh);
            ++checks;
        }
        QVERIFY(checks > 10);
        // Another view is made from scratch.
        QVERIFY(s.decimate(x0, x1 + 1, columns, kept));
        s.decimate(x0, x1 + 1, columns, fresh);
        QCOMPARE(kept.points, fresh);
    }

    void decimateKeepsEveryExtreme()
    {
        // Independent of the column rule: the reduced points of the whole range hold the
        // global min and max, and their count is bounded by the columns, not the data.
        const Data d = randomData(1'000'000, 99);
        const Series s = toSeries(d);
        QVector<QPointF> out;
        s.decimate(d.x.front(), d.x.back(), 1000, out);
        QVERIFY(out.size() <= 4000);
        QVERIFY(out.size() >= 2000);
        double lo = INFINITY, hi = -INFINITY;
        for (const QPointF& p : out) {
            lo = std::min(lo, p.y());
            hi = std::max(hi, p.y());
        }
        QCOMPARE(float(lo), *std::min_element(d.y.begin(), d.y.end()));
        QCOMPARE(float(hi), *std::max_element(d.y.begin(), d.y.end()));
        QCOMPARE(out.front().x(), d.x.front());
        QCOMPARE(out.back().x(), d.x.back());
    }

    void smallerXIsClamped()
    {
        Series s;
        s.append(10, 1);
        s.append(5, 2); // stored at x 10 so the order holds; the point is kept
        QCOMPARE(s.size(), int64_t(2));
        QCOMPARE(s.x(1), 10.0);
        QCOMPARE(s.y(1), 2.0f);
    }

    void ema_data()
    {
        QTest::addColumn<double>("weight");
        QTest::newRow("no smoothing") << 0.0;
        QTest::newRow("0.6 (TensorBoard's default)") << 0.6;
        QTest::newRow("0.99") << 0.99;
        QTest::newRow("0.999") << 0.999;
    }

    void ema()
    {
        QFETCH(double, weight);
        const Data d = randomData(20000, 5);
        const Series in = toSeries(d);
        Series whole;
        smoothEma(in, weight, whole);
        const std::vector<float> ref = referenceEma(d.y, weight);
        QCOMPARE(whole.size(), in.size());
        for (int64_t i = 0; i < whole.size(); ++i) {
            QCOMPARE(whole.x(i), in.x(i));
            const float tolerance = 1e-5f * std::max(1.0f, std::abs(ref[size_t(i)]));
            if (std::abs(whole.y(i) - ref[size_t(i)]) > tolerance)
                QFAIL(qPrintable(QString("index %1: %2 vs %3").arg(i).arg(whole.y(i)).arg(ref[size_t(i)])));
        }
        if (weight == 0)
            for (int64_t i = 0; i < in.size(); ++i)
                QCOMPARE(whole.y(i), in.y(i));

        // Incremental, as the dashboard calls it while points arrive: identical results.
        Series growing, incremental;
        std::mt19937 rng(3);
        std::uniform_int_distribution<int> piece(1, 700);
        for (size_t i = 0; i < d.x.size();) {
            const size_t stop = std::min(d.x.size(), i + size_t(piece(rng)));
            for (; i < stop; ++i)
                growing.append(d.x[i], d.y[i]);
            smoothEma(growing, weight, incremental);
        }
        QVERIFY(sameFloats(whole, incremental));

        // An output filled some other way is continued by replaying the input: same result.
        Series handMade;
        for (int64_t i = 0; i < 1234; ++i)
            handMade.append(whole.x(i), whole.y(i));
        smoothEma(in, weight, handMade);
        QVERIFY(sameFloats(whole, handMade));
    }

    void movingAverage_data()
    {
        QTest::addColumn<int>("window");
        QTest::newRow("1") << 1;
        QTest::newRow("2") << 2;
        QTest::newRow("10") << 10;
        QTest::newRow("333") << 333;
    }

    void movingAverage()
    {
        QFETCH(int, window);
        // Large offset with small variations: what a naive float running sum gets wrong.
        Data d = randomData(30000, 11);
        for (float& v : d.y)
            v = 1000.0f + v * 0.001f;
        const Series in = toSeries(d);
        Series whole;
        smoothMovingAverage(in, window, whole);
        const std::vector<float> ref = referenceMovingAverage(d.y, window);
        QCOMPARE(whole.size(), in.size());
        for (int64_t i = 0; i < whole.size(); ++i)
            if (std::abs(whole.y(i) - ref[size_t(i)]) > 1e-6f * 1000.0f)
                QFAIL(qPrintable(QString("index %1: %2 vs %3").arg(i).arg(whole.y(i)).arg(ref[size_t(i)])));

        Series growing, incremental;
        std::mt19937 rng(4);
        std::uniform_int_distribution<int> piece(1, 500);
        for (size_t i = 0; i < d.x.size();) {
            const size_t stop = std::min(d.x.size(), i + size_t(piece(rng)));
            for (; i < stop; ++i)
                growing.append(d.x[i], d.y[i]);
            smoothMovingAverage(growing, window, incremental);
        }
        QVERIFY(sameFloats(whole, incremental));
    }

    void memoryPerPoint()
    {
        Series s;
        const int64_t n = 1'000'000;
        for (int64_t i = 0; i < n; ++i)
            s.append(double(i), float(i % 1000));
        const double perPoint = double(s.memoryBytes()) / double(s.size());
        qInfo("%.2f bytes per point", perPoint);
        QVERIFY(perPoint >= 12.0);
        QVERIFY(perPoint <= 16.0);
    }
};

QTEST_GUILESS_MAIN(TestSeries)
#include "tst_series.moc"
