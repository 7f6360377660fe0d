// strata-bench-plots: the scaling benchmarks' curves as pictures (bench/README.md, "Scaling
// curves"), drawn with the dashboard's own plot library from the benches' JSON files.
//
//   strata-bench-plots [--out DIR] [--launch FILE] [--launch-ps FILE] [--collectives FILE] [--dashboard FILE]
//
// Each file given (as the benches write them: build/bench/launch-scale.json,
// launch-scale-ps.json, collectives.json, dashboard-scale.json) gives one PNG in DIR
// (docs/bench by default), every axis against the number of tasks, log 2:
//   launch-scale.png   launch to every first step, and ms per step (MultiWorkerMirrored and,
//                      from --launch-ps, ParameterServer), against workers;
//   collectives.png    the rendezvous (join) and an all-reduce of 64 KiB and 4 MiB by each
//                      algorithm, against tasks;
//   dashboard-scale.png
//                      the app's ingestion (steps stored per second) against the workers streaming.
// Runs under any Qt platform (offscreen by default).

#include "ui/plot/plot_image.h"
#include "ui/plot/plot_style.h"

#include <nlohmann/json.hpp>
#include <qcustomplot.h>

#include <QApplication>
#include <QCommandLineParser>
#include <QDir>
#include <QFile>

#include <cstdio>
#include <functional>

namespace {

using Json = nlohmann::json;

struct Curve {
    QString name;
    QVector<double> x, y;
    Qt::PenStyle style = Qt::SolidLine;
};

Json readJson(const QString& path)
{
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly)) {
        std::fprintf(stderr, "strata-bench-plots: cannot read %s\n", qPrintable(path));
        return nullptr;
    }
    return Json::parse(f.readAll().toStdString(), nullptr, false);
}

// One value of each row of `rows` against its `xKey`; rows without the value are left out.
Curve curveOf(const QString& name, const Json& rows, const char* xKey, const std::function<double(const Json&)>& y)
{
    Curve c{name, {}, {}};
    for (const Json& r : rows) {
        const double v = y(r);
        if (r.contains(xKey) && std::isfinite(v)) {
            c.x << r[xKey].get<double>();
            c.y << v;
        }
    }
    return c;
}

double field(const Json& r, const char* key) { return r.contains(key) && r[key].is_number() ? r[key].get<double>() : NAN; }

// A plot of `curves` against the number of tasks (log 2) on a log y axis, saved as `path`.
bool savePlot(const QString& path, const QString& title, const QString& xLabel, const QString& yLabel,
              const QVector<Curve>& curves, const QString& cpu)
{
    QCustomPlot plot;
    plot.resize(900, 640);
    strata::ui::stylePlot(&plot, QApplication::palette());
    plot.plotLayout()->insertRow(0);
    plot.plotLayout()->addElement(0, 0, new QCPTextElement(&plot, title + (cpu.isEmpty() ? "" : "\n" + cpu),
                                                           QFont(QApplication::font().family(), 11, QFont::Bold)));
    static const QColor colours[] = {QColor(0x1f, 0x77, 0xb4), QColor(0xd6, 0x27, 0x28), QColor(0x2c, 0xa0, 0x2c),
                                     QColor(0xff, 0x7f, 0x0e), QColor(0x94, 0x67, 0xbd), QColor(0x8c, 0x56, 0x4b)};
    double xMax = 1, yMin = 1e300, yMax = 0;
    for (int i = 0; i < curves.size(); ++i) {
        QCPGraph* g = plot.addGraph();
        g->setName(curves[i].name);
        g->setData(curves[i].x, curves[i].y);
        g->setPen(QPen(colours[i % 6], 2, curves[i].style));
        g->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCircle, 6));
        for (int k = 0; k < curves[i].x.size(); ++k) {
            xMax = std::max(xMax, curves[i].x[k]);
            if (curves[i].y[k] > 0) {
                yMin = std::min(yMin, curves[i].y[k]);
                yMax = std::max(yMax, curves[i].y[k]);
            }
        }
    }
    auto log2Ticker = QSharedPointer<QCPAxisTickerLog>::create();
    log2Ticker->setLogBase(2);
    log2Ticker->setSubTickCount(0);
    plot.xAxis->setScaleType(QCPAxis::stLogarithmic);
    plot.xAxis->setTicker(log2Ticker);
    plot.xAxis->setNumberFormat("f");
    plot.xAxis->setNumberPrecision(0);
    plot.xAxis->setRange(0.8, xMax * 1.25);
    plot.xAxis->setLabel(xLabel);
    plot.yAxis->setScaleType(QCPAxis::stLogarithmic);
    plot.yAxis->setTicker(QSharedPointer<QCPAxisTickerLog>::create());
    plot.yAxis->setNumberFormat("gb");
    plot.yAxis->setRange(yMin / 1.5, yMax * 1.5);
    plot.yAxis->setLabel(yLabel);
    // Below the axes, in two columns: inside, it would cover the curves.
    plot.legend->setVisible(true);
    plot.axisRect()->insetLayout()->take(plot.legend);
    plot.plotLayout()->addElement(2, 0, plot.legend);
    plot.plotLayout()->setRowStretchFactor(2, 0.001);
    plot.legend->setWrap(2);
    plot.legend->setFillOrder(QCPLegend::foColumnsFirst);
    QString error;
    if (!strata::ui::savePlotImage(&plot, path, title, &error)) {
        std::fprintf(stderr, "strata-bench-plots: %s\n", qPrintable(error));
        return false;
    }
    std::printf("%s\n", qPrintable(path));
    return true;
}

QString cpuOf(const Json& j) { return j.contains("cpu") ? QString::fromStdString(j["cpu"].get<std::string>()) : QString(); }

} // namespace

int main(int argc, char** argv)
{
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM"))
        qputenv("QT_QPA_PLATFORM", "offscreen");
    QApplication app(argc, argv);
    QCommandLineParser parser;
    parser.setApplicationDescription("The scaling benchmarks' curves as PNG pictures.");
    parser.addHelpOption();
    parser.addOption({"out", "Where the pictures go.", "DIR", "docs/bench"});
    parser.addOption({"launch", "strata-bench-launch --only scale's JSON.", "FILE"});
    parser.addOption({"launch-ps", "strata-bench-launch --only scale-ps's JSON.", "FILE"});
    parser.addOption({"collectives", "strata-bench-collectives' JSON.", "FILE"});
    parser.addOption({"dashboard", "strata-bench-dashboard --workers-scale's JSON.", "FILE"});
    parser.addOption({"cpu", "The CPU the figures were taken on, when a file does not say.", "NAME"});
    parser.process(app);
    const QDir out(parser.value("out"));
    QDir().mkpath(out.path());
    bool ok = true;

    if (parser.isSet("launch")) {
        const Json mwm = readJson(parser.value("launch"));
        const Json ps = parser.isSet("launch-ps") ? readJson(parser.value("launch-ps")) : Json();
        QVector<Curve> curves;
        const Json& rows = mwm.value("scale", Json::array());
        curves << curveOf("MultiWorkerMirrored: launch to every first step (ms)", rows, "workers",
                          [](const Json& r) { return field(r, "total_ms"); });
        curves << curveOf("MultiWorkerMirrored: ms per step", rows, "workers", [](const Json& r) { return field(r, "step_ms"); });
        curves.back().style = Qt::DashLine;
        // One worker all-reduces nothing.
        curves << curveOf("of it, the all-reduce (ms)", rows, "workers",
                          [](const Json& r) { return field(r, "workers") > 1 ? field(r, "all_reduce_ms") : NAN; });
        curves.back().style = Qt::DotLine;
        if (ps.is_object()) {
            const Json& psRows = ps.value("scale-ps", Json::array());
            curves << curveOf("ParameterServer: launch to every first step (ms)", psRows, "workers",
                              [](const Json& r) { return field(r, "total_ms"); });
            curves << curveOf("ParameterServer: ms per step", psRows, "workers",
                              [](const Json& r) { return field(r, "step_ms"); });
            curves.back().style = Qt::DashLine;
            curves << curveOf("coordinator CPU ms per global step", psRows, "workers",
                              [](const Json& r) { return field(r, "coordinator_cpu_ms_per_step"); });
            curves.back().style = Qt::DotLine;
        }
        ok &= savePlot(out.filePath("launch-scale.png"), "Launch and step time against the job's size (16 SSH hosts)",
                       "workers", "ms", curves, cpuOf(mwm).isEmpty() ? parser.value("cpu") : cpuOf(mwm));
    }
    if (parser.isSet("collectives")) {
        const Json c = readJson(parser.value("collectives"));
        const Json& rows = c.value("results", Json::array());
        QVector<Curve> curves;
        curves << curveOf("join (rendezvous and full mesh)", rows, "ranks", [](const Json& r) { return field(r, "join_seconds") * 1e3; });
        for (const int64_t bytes : {int64_t(64) << 10, int64_t(4) << 20}) {
            const QString size = bytes >= (1 << 20) ? QStringLiteral("%1 MiB").arg(bytes >> 20) : QStringLiteral("%1 KiB").arg(bytes >> 10);
            for (const char* algorithm : {"ring", "halving_doubling"}) {
                curves << curveOf(QStringLiteral("all-reduce %1, %2").arg(size, algorithm[0] == 'r' ? "chunked ring" : "halving-doubling"),
                                  rows, "ranks", [&](const Json& r) {
                                      for (const Json& s : r["sizes"])
                                          if (s["bytes"].get<int64_t>() == bytes)
                                              return field(s, (std::string(algorithm) + "_seconds").c_str()) * 1e3;
                                      return double(NAN);
                                  });
                curves.back().style = algorithm[0] == 'r' ? Qt::DashLine : Qt::SolidLine;
            }
        }
        ok &= savePlot(out.filePath("collectives.png"), "The rendezvous and the all-reduce against the number of tasks (127.0.0.1)",
                       "tasks", "ms", curves, cpuOf(c).isEmpty() ? parser.value("cpu") : cpuOf(c));
    }
    if (parser.isSet("dashboard")) {
        const Json d = readJson(parser.value("dashboard"));
        const Json& rows = d.value("ingestion_scale", Json::array());
        QVector<Curve> curves;
        curves << curveOf("steps stored per second", rows, "workers", [](const Json& r) { return field(r, "steps_per_second"); });
        curves << curveOf("longest event-loop stall (ms)", rows, "workers", [](const Json& r) { return field(r, "longest_stall_ms"); });
        curves.back().style = Qt::DashLine;
        ok &= savePlot(out.filePath("dashboard-scale.png"), "The app's ingestion against the workers streaming", "workers",
                       "", curves, cpuOf(d).isEmpty() ? parser.value("cpu") : cpuOf(d));
    }
    return ok ? 0 : 1;
}
