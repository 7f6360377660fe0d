#include "ui/plot/plot_ticks.h"

#include <QFontMetrics>

#include <cmath>
#include <type_traits>

namespace strata::ui {

namespace {

struct Scale {
    double unit;
    const char* suffix;
};

// The scale of labels whose largest value is `magnitude`: thousands from 10,000 up, bytes
// in kB from 1000 up.
Scale scaleFor(double magnitude, TickUnits units)
{
    static const Scale plain[] = {{1e9, "G"}, {1e6, "M"}, {1e3, "k"}};
    static const Scale sizes[] = {{1e9, " GB"}, {1e6, " MB"}, {1e3, " kB"}};
    const bool bytes = units == TickUnits::Bytes;
    for (const Scale& s : bytes ? sizes : plain)
        if (magnitude >= (s.unit == 1e3 && !bytes ? 1e4 : s.unit))
            return s;
    return {1, bytes ? " B" : ""};
}

// `decimals`: digits after the point of the scaled value (trailing zeros dropped: "5k" beside
// "7.5k"), or -1 for three significant digits.
QString compactLabel(double value, const Scale& scale, int decimals)
{
    if (value == 0)
        return QStringLiteral("0");
    const double scaled = value / scale.unit;
    QString number = decimals < 0 ? QString::number(scaled, 'g', 3) : QString::number(scaled, 'f', decimals);
    if (decimals > 0) {
        while (number.endsWith('0'))
            number.chop(1);
        if (number.endsWith('.'))
            number.chop(1);
    }
    // 'g' writes large and small powers as "1e+03": written out instead, never as QCustomPlot's "1·10³".
    if (number.contains('e'))
        number = QString::number(scaled, 'f', std::max(0, 2 - int(std::floor(std::log10(std::abs(scaled))))));
    return number + QLatin1String(scale.suffix);
}

// Digits after the point that write every multiple of `step` (in `scale`) exactly: a step of
// 2500 in thousands -> 1 ("2.5k", "5k"); -1 when no few digits do.
int decimalsFor(double step, const Scale& scale)
{
    const double scaled = step / scale.unit;
    for (int d = 0; d <= 6; ++d) {
        const double shifted = scaled * std::pow(10.0, d);
        if (std::abs(shifted - std::round(shifted)) < 1e-6 * std::max(1.0, shifted))
            return d;
    }
    return -1;
}

// As many ticks as fit the axis: fewer are asked for until neighbouring labels leave a gap
// (half a line's height) between them.
template<typename Base>
class CompactTicker : public Base {
public:
    CompactTicker(TickUnits units, const QCPAxis* axis, bool integral) : m_units(units), m_axis(axis), m_integral(integral) {}

    void generate(const QCPRange& range, const QLocale& locale, QChar formatChar, int precision, QVector<double>& ticks,
                  QVector<double>* subTicks, QVector<QString>* tickLabels) override
    {
        for (int count = kMostTicks;; --count) {
            Base::setTickCount(count);
            Base::generate(range, locale, formatChar, precision, ticks, subTicks, tickLabels);
            if (count <= 1 || !tickLabels || fits(ticks, *tickLabels))
                return;
        }
    }

protected:
    double getTickStep(const QCPRange& range) override
    {
        const double step = Base::getTickStep(range);
        if constexpr (!std::is_same_v<Base, QCPAxisTickerLog>)
            if (m_integral)
                return std::max(1.0, std::floor(step)); // QCPAxisTicker's 2.5 and 0.5 steps are no steps
        return step;
    }

    int getSubTickCount(double tickStep) override
    {
        if constexpr (!std::is_same_v<Base, QCPAxisTickerLog>)
            if (m_integral && tickStep <= 4)
                return int(tickStep) - 1; // sub ticks on whole steps only
        return Base::getSubTickCount(tickStep);
    }

    QVector<QString> createLabelVector(const QVector<double>& ticks, const QLocale&, QChar, int) override
    {
        QVector<QString> labels;
        labels.reserve(ticks.size());
        if constexpr (std::is_same_v<Base, QCPAxisTickerLog>) {
            // Powers apart: each in its own scale.
            for (const double t : ticks)
                labels << compactLabel(t, scaleFor(std::abs(t), m_units), -1);
        } else {
            // One scale and one number of decimals for all, so that neighbours read alike.
            const double step = ticks.size() > 1 ? ticks[1] - ticks[0] : 0;
            double largest = 0;
            for (const double t : ticks)
                largest = std::max(largest, std::abs(t));
            const Scale scale = scaleFor(largest, m_units);
            const int decimals = step > 0 ? decimalsFor(step, scale) : -1;
            for (const double t : ticks)
                labels << compactLabel(std::abs(t) < step * 1e-9 ? 0 : t, scale, decimals); // no "-0"
        }
        return labels;
    }

private:
    static constexpr int kMostTicks = 8;

    bool fits(const QVector<double>& ticks, const QVector<QString>& labels) const
    {
        const QFontMetrics metrics(m_axis->tickLabelFont());
        const bool horizontal = m_axis->orientation() == Qt::Horizontal;
        const double gap = metrics.height() / 2.0;
        for (qsizetype i = 1; i < ticks.size(); ++i) {
            const double distance = std::abs(m_axis->coordToPixel(ticks[i]) - m_axis->coordToPixel(ticks[i - 1]));
            const double needed = horizontal
                                      ? (metrics.horizontalAdvance(labels[i]) + metrics.horizontalAdvance(labels[i - 1])) / 2.0
                                      : metrics.height();
            if (distance < needed + gap)
                return false;
        }
        return true;
    }

    TickUnits m_units;
    const QCPAxis* m_axis;
    bool m_integral;
};

} // namespace

QSharedPointer<QCPAxisTicker> compactTicker(const QCPAxis* axis, TickUnits units, bool logarithmic, bool integral)
{
    if (logarithmic)
        return QSharedPointer<CompactTicker<QCPAxisTickerLog>>::create(units, axis, false);
    return QSharedPointer<CompactTicker<QCPAxisTicker>>::create(units, axis, integral);
}

} // namespace strata::ui
