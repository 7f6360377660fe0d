// The Plan page driven as a user drives it (offscreen, real input): Ctrl+9 shows it, saying what
// Probe does before any plan; a plan (made by hand here, as the model would make it) fills the
// recommendation with its reasons, the warnings (speedup below 1 in the error colour, the others
// in the warning colour), the table (the recommended row bold, the model's formula on hover), the
// curves (a line per strategy, the probed points marked) and what the probe measured with its
// spread.

#include "../event_deadline.h"
#include "real_input.h"
#include "scripted_dialogs.h"

#include "app/plan/plan_session.h"
#include "ui/plan/plan_curves.h"
#include "ui/plan/plan_page.h"
#include "ui/plan/plan_table.h"
#include "ui/plan/probe_inputs_view.h"
#include "ui/shell/main_window.h"
#include "ui/shell/message_banner.h"
#include "ui/shell/theme.h"

#include <qcustomplot.h>

#include <QLabel>
#include <QPushButton>
#include <QTemporaryDir>
#include <QTest>
#include <QToolTip>

using namespace strata;
using namespace strata::app::plan;
using uitest::ScriptedDialogs;

namespace {

Prediction predicted(Strategy strategy, int workers, double samplesPerSecond, double speedup)
{
    Prediction p;
    p.strategy = strategy;
    p.workers = workers;
    p.hosts = 1;
    p.samplesPerSecond = samplesPerSecond;
    p.stepSeconds = 0.032 * workers * 600 / samplesPerSecond;
    p.speedup = speedup;
    p.efficiency = speedup / workers;
    p.terms.compute = 0.030;
    p.terms.communication = workers > 1 ? 0.004 : 0;
    p.terms.exposed = workers > 1 ? 0.002 : 0;
    p.terms.overlapped = workers > 1 ? 0.002 : 0;
    p.terms.limit = workers > 2 ? "cores" : "compute";
    p.terms.formula = QStringLiteral("step = compute 30.0 ms + exposed all-reduce 2(%1-1) a + 2(%1-1)/%1 S/B").arg(workers);
    p.coresShared = workers > 2;
    p.extrapolated = workers > 4;
    return p;
}

// A plan of a two-core machine: two workers help, four share the cores and are slower than one.
ScalingPlan twoCorePlan()
{
    ScalingPlan plan;
    plan.request.experiment = "fashion-mnist-mlp";
    plan.probe.host = "box";
    plan.probe.cpu = "AMD EPYC";
    plan.probe.cores = 2;
    plan.probe.probeSeconds = 21.5;
    plan.probe.compute.batch = 64;
    plan.probe.compute.step = {0.030, 0.04, 20};
    plan.probe.compute.input = {0.001, 0.3, 20};
    plan.probe.collective.ranks = 2;
    plan.probe.collective.transport = "loopback (127.0.0.1)";
    plan.probe.collective.algorithm = "chunked ring";
    plan.probe.collective.latencySeconds = 40e-6;
    plan.probe.collective.bytesPerSecond = 1.2e9;
    plan.probe.collective.points = {{1 << 16, {0.0002, 0.05, 10}, 0.0001}, {1 << 22, {0.004, 0.08, 10}, 0.003}};
    plan.probe.collective.fitError = 0.06;
    plan.predictions = {predicted(Strategy::OneDevice, 1, 2000, 1),
                        predicted(Strategy::MultiWorkerMirrored, 1, 1950, 0.98),
                        predicted(Strategy::MultiWorkerMirrored, 2, 3500, 1.75),
                        predicted(Strategy::MultiWorkerMirrored, 4, 1600, 0.8),
                        predicted(Strategy::MultiWorkerMirrored, 8, 1200, 0.6)};
    plan.recommendation = {Strategy::MultiWorkerMirrored, 2, {"Several processes on one host: MultiWorkerMirrored.",
                                                              "Two workers predict 1.75x one."}};
    plan.warnings = {{WarningKind::SpeedupBelowOne, "MultiWorkerMirrored at 4 workers is slower than one (0.80x)."},
                     {WarningKind::SharedCores, "4 and 8 workers share this host's 2 cores."}};
    plan.noise.threshold = 0.15;
    plan.noise.text = "The inputs are steady enough (worst: input, 30%).";
    return plan;
}

QColor textColour(QLabel* label) { return label->palette().color(QPalette::WindowText); }

} // namespace

class TestPlanPage : public QObject {
    Q_OBJECT

    QTemporaryDir m_dir;

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        qputenv("STRATA_HISTORY", m_dir.filePath("history.sqlite").toUtf8());
        qputenv("XDG_CONFIG_HOME", m_dir.filePath("config").toUtf8());
    }

    void planShownAsTheModelMadeIt()
    {
        ui::MainWindow window(STRATA_ENGINE_PATH, std::make_unique<ScriptedDialogs>());
        window.resize(1600, 1000);
        window.show();
        QApplication::setActiveWindow(&window);
        QVERIFY(QTest::qWaitForWindowActive(&window));
        QTest::keyClick(&window, Qt::Key_9, Qt::ControlModifier);
        QCOMPARE(window.currentPage(), ui::MainWindow::PlanPageIndex);
        ui::PlanPage* page = window.planPage();
        QVERIFY(page->emptyHint()->isVisible());
        QVERIFY(page->emptyHint()->text().contains("Probe measures"));
        QVERIFY(page->probeButton()->isEnabled());
        QVERIFY(!page->cancelButton()->isVisible());

        window.session().planner().setPlan(twoCorePlan());
        QVERIFY(!page->emptyHint()->isVisible());
        // The recommendation with its reasons and its prediction.
        const QString recommendation = page->recommendationLabel()->text();
        QVERIFY2(recommendation.contains("Recommended: MultiWorkerMirrored with 2 workers") &&
                     recommendation.contains("3500 samples/s predicted, 1.75x one worker") &&
                     recommendation.contains("Two workers predict 1.75x one."),
                 qPrintable(recommendation));
        // The warnings: below 1 in the error colour, the other in the warning colour.
        const QList<QLabel*> warnings = page->warningLabels();
        QCOMPARE(warnings.size(), 2);
        QVERIFY(warnings[0]->isVisible());
        QVERIFY(warnings[0]->text().contains("slower than one (0.80x)"));
        QCOMPARE(textColour(warnings[0]), ui::theme::error(page->palette()));
        QCOMPARE(textColour(warnings[1]), ui::theme::warning(page->palette()));

        // The table: a row per prediction, the recommended one bold, below 1 in the error colour.
        ui::PlanTable* table = page->table();
        QCOMPARE(table->rowCount(), 5);
        const int recommended = table->rowOf(Strategy::MultiWorkerMirrored, 2);
        QCOMPARE(recommended, 2);
        QCOMPARE(table->item(recommended, ui::PlanTable::SamplesColumn)->text(), QString("3500"));
        QCOMPARE(table->item(recommended, ui::PlanTable::SpeedupColumn)->text(), QString("1.75x"));
        QCOMPARE(table->item(recommended, ui::PlanTable::EfficiencyColumn)->text(), QString("88%"));
        QVERIFY(table->item(recommended, ui::PlanTable::StrategyColumn)->font().bold());
        QVERIFY(!table->item(0, ui::PlanTable::StrategyColumn)->font().bold());
        const int slower = table->rowOf(Strategy::MultiWorkerMirrored, 4);
        QCOMPARE(table->item(slower, ui::PlanTable::SpeedupColumn)->foreground().color(), ui::theme::error(page->palette()));

        // Pointing at a row shows the model's formula with its numbers, and why it is marked.
        QToolTip::hideText();
        QTRY_VERIFY(!QToolTip::isVisible());
        table->scrollToItem(table->item(slower, ui::PlanTable::WorkersColumn));
        const QPoint cell = table->visualItemRect(table->item(slower, ui::PlanTable::WorkersColumn)).center();
        QCOMPARE(realinput::under(table->viewport(), cell), table->viewport());
        realinput::move(table->viewport(), cell);
        QTRY_VERIFY_WITH_TIMEOUT(QToolTip::isVisible(), testing::kEventDeadlineMs);
        const QString tip = QToolTip::text();
        QVERIFY2(tip.contains("2(4-1) a + 2(4-1)/4 S/B") && tip.contains("Slower than one worker: speedup 0.80") &&
                     tip.contains("share the host's cores"),
                 qPrintable(tip));
        // Another row: its own formula.
        const QPoint other = table->visualItemRect(table->item(recommended, ui::PlanTable::StepColumn)).center();
        realinput::move(table->viewport(), other);
        QTRY_VERIFY_WITH_TIMEOUT(QToolTip::text().contains("2(2-1) a"), testing::kEventDeadlineMs);

        // The curves: a line per strategy on a log2 worker axis, the probed points (1 and the
        // sweep's 2 ranks) marked, a legend entry for them.
        QCustomPlot* throughput = page->curves()->throughputPlot();
        QCOMPARE(throughput->xAxis->scaleType(), QCPAxis::stLogarithmic);
        QCOMPARE(throughput->graphCount(), 2 * 2 + 1);
        QCOMPARE(throughput->graph(2)->name(), QString("MultiWorkerMirrored"));
        QCOMPARE(throughput->graph(2)->dataCount(), 4);
        QCOMPARE(throughput->graph(3)->dataCount(), 2); // probed: 1 and 2 workers
        QCOMPARE(throughput->graph(3)->data()->at(1)->key, 2.0);
        QCOMPARE(throughput->graph(3)->data()->at(1)->value, 3500.0);
        QCOMPARE(page->curves()->efficiencyPlot()->graph(2)->data()->at(3)->value, 0.6 / 8 * 100);

        // What the probe measured, with its spread.
        const QList<QStringList> inputs = page->inputs()->rows();
        QVERIFY(inputs.size() >= 4);
        QCOMPARE(inputs[0][1], QString("30.00 ms"));
        QVERIFY2(inputs[0][2].contains(QString::fromUtf8("±4.0% over 20 samples")), qPrintable(inputs[0][2]));
        const auto latency = std::find_if(inputs.begin(), inputs.end(),
                                          [](const QStringList& row) { return row[0].startsWith("All-reduce latency"); });
        QVERIFY(latency != inputs.end());
        QCOMPARE((*latency)[1], QString::fromUtf8("40.0 µs"));
    }
};

QTEST_MAIN(TestPlanPage)
#include "tst_plan_page.moc"
