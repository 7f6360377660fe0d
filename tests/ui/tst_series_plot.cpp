// SeriesPlot over a real MetricsStore (offscreen): per-pixel reduction of a long run, finer
// detail when zoomed in, the view following the data until the user drags, reset, legend
// clicks hiding a line, and every export (PNG, SVG, PDF with legend and axes; CSV) with its
// failures reported.

#include "app/metrics/metrics_store.h"
#include "app/metrics/store_lines.h"
#include "ui/plot/series_plot.h"

#include <qcustomplot.h>

#include <QFile>
#include <QImage>
#include <QTemporaryDir>
#include <QTest>

#include <cmath>

using namespace strata;

namespace {

// A run of `steps` steps with two replicas whose losses differ by a constant.
void feed(app::MetricsStore& store, int steps)
{
    QByteArray lines;
    for (int s = 1; s <= steps; ++s) {
        const double loss = 1.0 + 0.5 * std::sin(s * 0.01);
        lines += QStringLiteral(R"({"v":1,"type":"step","t":%1,"task":"worker:0","step":%2,"loss":%3,)"
                                R"("replicas":[{"replica":0,"device":"cpu:0","loss":%3,"samples":32},)"
                                R"({"replica":1,"device":"cpu:1","loss":%4,"samples":32}]})")
                     .arg(1000 + s)
                     .arg(s)
                     .arg(loss)
                     .arg(loss + 1)
                     .toUtf8()
                 + '\n';
    }
    store.ingestLines("worker:0", lines);
}

QByteArray head(const QString& path, int bytes)
{
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.read(bytes) : QByteArray();
}

} // namespace

class TestSeriesPlot : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void init();
    void cleanup();
    void drawsAReductionOfEveryPoint();
    void zoomingInShowsFinerDetail();
    void followsTheDataUntilTheUserDrags();
    void legendClickHidesALine();
    void exportsImagesWithLegendAndAxes_data();
    void exportsImagesWithLegendAndAxes();
    void exportFailuresAreReported();
    void exportsEveryPointAsCsv();

private:
    std::unique_ptr<app::MetricsStore> m_store;
    std::unique_ptr<app::ReplicaLossLines> m_lines;
    std::unique_ptr<ui::SeriesPlot> m_plot;
    QTemporaryDir m_dir;
};

void TestSeriesPlot::init()
{
    m_store = std::make_unique<app::MetricsStore>();
    m_lines = std::make_unique<app::ReplicaLossLines>(*m_store);
    m_plot = std::make_unique<ui::SeriesPlot>();
    m_plot->setTitle("Loss per replica");
    m_plot->setAxisLabels("step", "loss");
    m_plot->resize(800, 400);
    m_plot->show();
    QVERIFY(QTest::qWaitForWindowExposed(m_plot.get()));
    m_plot->setSource(m_lines.get());
}

void TestSeriesPlot::cleanup()
{
    m_plot.reset();
    m_lines.reset();
    m_store.reset();
}

void TestSeriesPlot::drawsAReductionOfEveryPoint()
{
    feed(*m_store, 100000);
    m_plot->refresh();
    QCustomPlot* p = m_plot->plot();
    QCOMPARE(p->graphCount(), 2);
    QCOMPARE(p->graph(0)->name(), QString("replica 0 (cpu:0)"));
    // At most first/min/max/last per pixel column and line, from 200,000 points.
    const int columns = p->axisRect()->width();
    QVERIFY(m_plot->drawnPoints() > 0);
    QVERIFY2(m_plot->drawnPoints() <= 2 * (4 * columns + 2), qPrintable(QString::number(m_plot->drawnPoints())));
    // The view covers the whole run and every value.
    QVERIFY(p->xAxis->range().lower <= 1 && p->xAxis->range().upper >= 100000);
    QVERIFY(p->yAxis->range().lower <= 0.5 && p->yAxis->range().upper >= 2.5);
    // The extremes survive the reduction: the sine's peaks are drawn.
    double lo = 10, hi = -10;
    for (const auto& point : *p->graph(0)->data()) {
        lo = std::min(lo, point.value);
        hi = std::max(hi, point.value);
    }
    QVERIFY(std::abs(lo - 0.5) < 1e-4);
    QVERIFY(std::abs(hi - 1.5) < 1e-4);
}

void TestSeriesPlot::zoomingInShowsFinerDetail()
{
    feed(*m_store, 100000);
    m_plot->refresh();
    QCustomPlot* p = m_plot->plot();
    p->xAxis->setRange(5000, 5100); // as a wheel zoom does: the plot reduces the data again
    // Every one of the 101 steps in view (and one on each side) is drawn now.
    QCOMPARE(p->graph(0)->data()->size(), 103);
    QCOMPARE(p->graph(0)->data()->at(1)->key, 5000.0);
}

void TestSeriesPlot::followsTheDataUntilTheUserDrags()
{
    feed(*m_store, 1000);
    m_plot->refresh();
    QCustomPlot* p = m_plot->plot();
    QVERIFY(m_plot->followsData());
    QVERIFY(p->xAxis->range().upper < 1100);
    // New steps arrive: the view grows with them.
    QByteArray more;
    for (int s = 1001; s <= 3000; ++s)
        more += QStringLiteral(R"({"v":1,"type":"step","step":%1,"replicas":[{"replica":0,"loss":1.0}]})").arg(s).toUtf8()
                + '\n';
    m_store->ingestLines("worker:0", more);
    m_plot->refresh();
    QVERIFY(p->xAxis->range().upper >= 3000);

    // The user drags: the view stays where they put it while data keeps coming.
    const QPoint center = p->axisRect()->center();
    QTest::mousePress(p, Qt::LeftButton, {}, center);
    QTest::mouseMove(p, center + QPoint(100, 0));
    QTest::mouseRelease(p, Qt::LeftButton, {}, center + QPoint(100, 0));
    QVERIFY(!m_plot->followsData());
    const QCPRange dragged = p->xAxis->range();
    QVERIFY(dragged.upper < 3000);
    m_store->ingestLines("worker:0", R"({"v":1,"type":"step","step":9000,"replicas":[{"replica":0,"loss":1.0}]})"
                                     "\n");
    m_plot->refresh();
    QCOMPARE(p->xAxis->range().upper, dragged.upper);

    // Reset view (also a double click) follows the data again.
    m_plot->resetView();
    QVERIFY(m_plot->followsData());
    QVERIFY(p->xAxis->range().upper >= 9000);
}

void TestSeriesPlot::legendClickHidesALine()
{
    feed(*m_store, 1000);
    m_plot->refresh();
    QCustomPlot* p = m_plot->plot();
    QCPAbstractLegendItem* item = p->legend->itemWithPlottable(p->graph(1));
    QVERIFY(item);
    p->replot();
    QTest::mouseClick(p, Qt::LeftButton, {}, item->outerRect().center());
    QVERIFY(!m_plot->isLineVisible(1));
    QVERIFY(!p->graph(1)->visible());
    QCOMPARE(p->graph(1)->data()->size(), 0); // a hidden line costs nothing
    QVERIFY(m_plot->isLineVisible(0));
    QTest::mouseClick(p, Qt::LeftButton, {}, item->outerRect().center());
    QVERIFY(m_plot->isLineVisible(1));
    QVERIFY(p->graph(1)->data()->size() > 0);
}

void TestSeriesPlot::exportsImagesWithLegendAndAxes_data()
{
    QTest::addColumn<QString>("suffix");
    QTest::addColumn<QByteArray>("magic");
    QTest::newRow("png") << "png" << QByteArray("\x89PNG");
    QTest::newRow("svg") << "svg" << QByteArray("<?xml");
    QTest::newRow("pdf") << "pdf" << QByteArray("%PDF");
}

void TestSeriesPlot::exportsImagesWithLegendAndAxes()
{
    QFETCH(QString, suffix);
    QFETCH(QByteArray, magic);
    feed(*m_store, 5000);
    m_plot->refresh();
    const QString path = m_dir.filePath("loss." + suffix);
    QString error;
    QVERIFY2(m_plot->exportImage(path, &error), qPrintable(error));
    QCOMPARE(head(path, magic.size()), magic);
    if (suffix == "png") {
        const QImage image(path);
        QVERIFY(image.width() >= 800 && image.height() >= 400);
        // Lines in both palette colours made it into the picture.
        bool blue = false, orange = false;
        for (int y = 0; y < image.height(); ++y)
            for (int x = 0; x < image.width(); ++x) {
                const QColor c = image.pixelColor(x, y);
                blue = blue || (c.blue() > 150 && c.red() < 80);
                orange = orange || (c.red() > 200 && c.green() > 100 && c.green() < 160 && c.blue() < 60);
            }
        QVERIFY(blue && orange);
    }
    if (suffix == "svg") {
        QFile f(path);
        QVERIFY(f.open(QIODevice::ReadOnly));
        const QByteArray svg = f.readAll();
        // The title, the axis labels and the legend are text in the drawing.
        for (const char* text : {"Loss per replica", "step", "loss", "replica 1 (cpu:1)"})
            QVERIFY2(svg.contains(text), text);
    }
}

void TestSeriesPlot::exportFailuresAreReported()
{
    feed(*m_store, 100);
    QString error;
    QVERIFY(!m_plot->exportImage(m_dir.filePath("loss.bmp"), &error));
    QVERIFY2(error.contains(".png, .svg or .pdf"), qPrintable(error));
    for (const char* suffix : {"png", "svg", "pdf"}) {
        const QString path = QStringLiteral("/nonexistent-dir/loss.") + suffix;
        QVERIFY(!m_plot->exportImage(path, &error));
        QVERIFY2(error.contains(path), qPrintable(error));
    }
    QVERIFY(!m_plot->exportCsv("/nonexistent-dir/loss.csv", &error));
    QVERIFY2(error.contains("/nonexistent-dir/loss.csv"), qPrintable(error));
}

void TestSeriesPlot::exportsEveryPointAsCsv()
{
    feed(*m_store, 3000);
    m_plot->refresh();
    m_plot->plot()->xAxis->setRange(10, 20); // the view does not limit the export
    const QString path = m_dir.filePath("loss.csv");
    QString error;
    QVERIFY2(m_plot->exportCsv(path, &error), qPrintable(error));
    QFile f(path);
    QVERIFY(f.open(QIODevice::ReadOnly | QIODevice::Text));
    const QList<QByteArray> rows = f.readAll().split('\n');
    QCOMPARE(rows.front(), QByteArray("step,replica 0 (cpu:0),replica 1 (cpu:1)"));
    QCOMPARE(rows.size(), 3000 + 2); // header, every step, the final newline
    const QList<QByteArray> row = rows[1500].split(',');
    QCOMPARE(row[0].toDouble(), 1500.0);
    QCOMPARE(float(row[2].toDouble()), float(2.0 + 0.5 * std::sin(1500 * 0.01)));
}

QTEST_MAIN(TestSeriesPlot)
#include "tst_series_plot.moc"
