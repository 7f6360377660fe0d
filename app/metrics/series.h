#pragma once
// Series: an append-only sequence of (x, y) points with non-decreasing x, every point kept.
// Stored in fixed-size chunks (no reallocation spikes, ~12 bytes per point: x double, y
// float) with a min/max pyramid over blocks, so that reducing any x-range to one min and
// one max per pixel column costs O(columns * log n), whatever the number of points.
//
// Thread-safety: none; the MetricsStore serializes access.

#include <QPointF>
#include <QVector>

#include <cstdint>
#include <memory>
#include <vector>

namespace strata::app {

class Series {
public:
    Series();
    ~Series();
    Series(Series&&) noexcept;
    Series& operator=(Series&&) noexcept;

    // x must not be smaller than the last x (a smaller one is stored as the last x, so the
    // order every query relies on holds; the point itself is kept).
    void append(double x, float y);
    int64_t size() const;
    bool empty() const { return size() == 0; }
    double x(int64_t i) const;
    float y(int64_t i) const;
    double lastX() const;
    float lastY() const;

    // Index of the first point with x >= value (size() when none).
    int64_t lowerBound(double value) const;
    // min and max y over points [begin, end) (end > begin).
    std::pair<float, float> yRange(int64_t begin, int64_t end) const;
    std::pair<float, float> yRange() const { return yRange(0, size()); }

    // The points of [x0, x1] reduced for drawing `columns` pixel columns: for each column
    // that holds points, its first point, min and max (in x order) and last point, so lines
    // drawn through them look exactly like lines through every point. Where a column holds
    // a single point it is returned once. One point before x0 and one after x1 are included
    // so lines reach the edges.
    void decimate(double x0, double x1, int columns, QVector<QPointF>& out) const;
    // The same, kept from one call to the next: called again for the same bounded view after
    // the series grew, it reduces again only from the last column it had reached (a run
    // followed live costs its new points, not all of them). False when nothing changed.
    struct Reduction {
        QVector<QPointF> points; // as decimate() gives them
        double x0 = 0, x1 = 0;
        int columns = 0;
        int64_t size = -1;      // the series' size they were made from; -1: none
        int64_t lastColumn = 0; // where the last column reduced begins
        qsizetype kept = 0;     // points before the last column's
    };
    bool decimate(double x0, double x1, int columns, Reduction& reduction) const;

    // Bytes held, for the memory-per-point figure.
    size_t memoryBytes() const;

private:
    // The smoothers keep their running state in the output series, so that continuing
    // from out.size() gives exactly what a run from scratch gives.
    friend void smoothEma(const Series& in, double weight, Series& out);

    struct Impl;
    std::unique_ptr<Impl> d;
};

// TensorBoard's debiased exponential moving average over every point of `in` (weight in
// [0, 1): 0 = no smoothing), appended to `out` from index out.size() on (incremental).
// As in TensorBoard, a non-finite value is passed through and does not enter the average.
void smoothEma(const Series& in, double weight, Series& out);
// Mean of the last `window` points (fewer at the start), incremental like smoothEma.
void smoothMovingAverage(const Series& in, int window, Series& out);

} // namespace strata::app
