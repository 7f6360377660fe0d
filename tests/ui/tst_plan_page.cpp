// The Plan page driven as a user drives it (offscreen, real input): Ctrl+9 shows it, saying what
// Probe does before any plan; a plan (made by hand here, as the model would make it) fills the
// recommendation with its reasons, the warnings (speedup below 1 in the error colour, the others
// in the warning colour), the table (the recommended row bold, the model's formula on hover), the
// curves (a line per strategy, the probed points marked) and what the probe measured with its
// spread. Probe with the real engine (a quick probe) makes a plan, shows it and stores it in the
// run history; Cancel stops a probe and keeps the page as it was; a probe that cannot run says
// why in the window's banner.

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
#include <QSignalSpy>
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
    plan.probe.compute.points = {{1, 1, {0.030, 0.04, 0.03, 20}}, {1, 2, {0.034, 0.05, 0.04, 20}}};
    plan.probe.compute.input = {0.001, 0.3, 0.2, 20};
    plan.probe.collective.ranks = 2;
    plan.probe.collective.transport = "loopback (127.0.0.1)";
    plan.probe.collective.algorithm = "chunked ring";
    plan.probe.collective.latencySeconds = 40e-6;
    plan.probe.collective.bytesPerSecond = 1.2e9;
    plan.probe.collective.points = {{1 << 16, {0.0002, 0.05, 0.05, 10}, 0.0001}, {1 << 22, {0.004, 0.08, 0.07, 10}, 0.003}};
    plan.probe.collective.fitError = 0.06;
    plan.probe.collective.rehearsal = {.median = 0.041, .cv = 0.04, .robustCv = 0.05, .samples = 7, .mean = 0.042};
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

void showPlanPage(ui::MainWindow& window)
{
    window.resize(1600, 1000);
    window.show();
    QApplication::setActiveWindow(&window);
    QVERIFY(QTest::qWaitForWindowActive(&window));
    QTest::keyClick(&window, Qt::Key_9, Qt::ControlModifier);
    QCOMPARE(window.currentPage(), ui::MainWindow::PlanPageIndex);
}

void clickButton(QPushButton* button)
{
    QVERIFY(button->isVisible() && button->isEnabled());
    realinput::click(button, button->rect().center());
}

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
        showPlanPage(window);
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
        // sweep's 2 ranks) marked, one legend for both plots with an entry for them.
        QCustomPlot* throughput = page->curves()->throughputPlot();
        QCustomPlot* efficiency = page->curves()->efficiencyPlot();
        QCOMPARE(throughput->xAxis->scaleType(), QCPAxis::stLogarithmic);
        QCOMPARE(throughput->graphCount(), 2 * 2);
        QVERIFY(!throughput->legend->visible());
        QCOMPARE(efficiency->graphCount(), 2 * 2 + 1);
        int entries = 0; // the legend's grid counts its empty cells too
        for (int i = 0; i < efficiency->legend->itemCount(); ++i)
            entries += efficiency->legend->item(i) != nullptr;
        QCOMPARE(entries, 3);
        QCOMPARE(efficiency->graph(4)->name(), QString("probed"));
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
        QVERIFY2(inputs[0][2].contains(QString::fromUtf8("±3.0% over 20 samples")), qPrintable(inputs[0][2]));
        // The input pipeline's robust spread (20%) is above the noise threshold (15%).
        const auto input = std::find_if(inputs.begin(), inputs.end(),
                                        [](const QStringList& row) { return row[0].startsWith("Input pipeline"); });
        QVERIFY(input != inputs.end() && (*input)[2].endsWith("(noisy)"));
        const auto latency = std::find_if(inputs.begin(), inputs.end(),
                                          [](const QStringList& row) { return row[0].startsWith("All-reduce latency"); });
        QVERIFY(latency != inputs.end());
        QCOMPARE((*latency)[1], QString::fromUtf8("40.0 µs"));
        // The rehearsal: its mean step, its spread over rounds.
        const auto rehearsal = std::find_if(inputs.begin(), inputs.end(), [](const QStringList& row) {
            return row[0] == QStringLiteral("MultiWorkerMirrored step, 2 workers rehearsed");
        });
        QVERIFY(rehearsal != inputs.end());
        QCOMPARE((*rehearsal)[1], QString("42.00 ms"));
        QCOMPARE((*rehearsal)[2], QString::fromUtf8("±5.0% over 7 rounds"));
    }

    // A quick probe of the window's experiment by the real engine: the page shows its plan and the
    // history keeps it for the experiment's runs.
    void probeMakesAndStoresAPlan()
    {
        ui::MainWindow window(STRATA_ENGINE_PATH, std::make_unique<ScriptedDialogs>());
        showPlanPage(window);
        ui::PlanPage* page = window.planPage();
        ProbeOptions quick;
        quick.quick = true;
        page->setProbeOptions(quick);
        PlanSession& planner = window.session().planner();
        QSignalSpy made(&planner, &PlanSession::planChanged);
        QSignalSpy failed(&planner, &PlanSession::failed);
        clickButton(page->probeButton());
        QVERIFY(planner.probing());
        QVERIFY(!page->probeButton()->isEnabled());
        QVERIFY(page->cancelButton()->isVisible());
        QVERIFY2(made.wait(180000), qPrintable(failed.isEmpty() ? page->statusLabel()->text() : failed[0][0].toString()));
        QVERIFY(page->probeButton()->isEnabled());
        QVERIFY(!page->cancelButton()->isVisible());
        QVERIFY(!page->emptyHint()->isVisible());
        const ScalingPlan& plan = *planner.plan();
        QVERIFY(!plan.predictions.empty());
        QCOMPARE(page->table()->rowCount(), int(plan.predictions.size()));
        QVERIFY(page->recommendationLabel()->text().contains(strategyName(plan.recommendation.strategy)));
        QVERIFY(page->curves()->throughputPlot()->graphCount() > 1);
        QVERIFY(!page->inputs()->rows().isEmpty());
        QVERIFY(page->statusLabel()->text().startsWith("Plan of"));
        // Kept in the history for the experiment's runs.
        QVERIFY(planner.storedPlanId() > 0);
        std::optional<app::PlanRecord> stored;
        QString error;
        QVERIFY2(window.history().latestPlan(window.document().json().value("name", std::string()).c_str(), 0, &stored,
                                             &error),
                 qPrintable(error));
        QVERIFY(stored);
        QCOMPARE(stored->id, planner.storedPlanId());
        QCOMPARE(stored->predictions.size(), plan.predictions.size());

        // Strata started again on the same history: the page shows that plan, made then.
        const QString status = page->statusLabel()->text();
        ui::MainWindow again(STRATA_ENGINE_PATH, std::make_unique<ScriptedDialogs>());
        showPlanPage(again);
        ui::PlanPage* restored = again.planPage();
        QVERIFY(again.session().planner().plan());
        QCOMPARE(again.session().planner().storedPlanId(), planner.storedPlanId());
        QVERIFY(!restored->emptyHint()->isVisible());
        QCOMPARE(restored->table()->rowCount(), page->table()->rowCount());
        for (int row = 0; row < page->table()->rowCount(); ++row)
            for (int column : {ui::PlanTable::StrategyColumn, ui::PlanTable::WorkersColumn, ui::PlanTable::StepColumn,
                               ui::PlanTable::SamplesColumn})
                QCOMPARE(restored->table()->item(row, column)->text(), page->table()->item(row, column)->text());
        QCOMPARE(restored->statusLabel()->text(), status);
    }

    // Cancel stops the probe: no plan, no error, Probe again.
    void cancelStopsTheProbe()
    {
        qputenv("STRATA_HISTORY", m_dir.filePath("cancel.sqlite").toUtf8()); // no plan kept yet
        ui::MainWindow window(STRATA_ENGINE_PATH, std::make_unique<ScriptedDialogs>());
        showPlanPage(window);
        ui::PlanPage* page = window.planPage();
        PlanSession& planner = window.session().planner();
        ProbeOptions quick; // what a cancelled probe's processes leave to finish is short
        quick.quick = true;
        page->setProbeOptions(quick);
        QSignalSpy cancelled(&planner, &PlanSession::cancelled);
        QSignalSpy made(&planner, &PlanSession::planChanged);
        clickButton(page->probeButton());
        QVERIFY(planner.probing());
        clickButton(page->cancelButton());
        QVERIFY(cancelled.size() == 1 || cancelled.wait(testing::kEventDeadlineMs));
        QVERIFY(!planner.probing());
        QCOMPARE(made.size(), 0);
        QVERIFY(!planner.plan());
        QVERIFY(page->emptyHint()->isVisible());
        QCOMPARE(page->statusLabel()->text(), QString("Probe cancelled."));
        QVERIFY(page->probeButton()->isEnabled());
        QVERIFY(window.banner()->text().isEmpty() || window.banner()->kind() != ui::MessageBanner::Kind::Error);
    }

    // No engine to probe with: the banner says so with the cause; the page stays as it was.
    void probeFailureGoesToTheBanner()
    {
        const QString missing = m_dir.filePath("no-such-engine");
        qputenv("STRATA_HISTORY", m_dir.filePath("failure.sqlite").toUtf8()); // no plan kept yet
        ui::MainWindow window(missing, std::make_unique<ScriptedDialogs>());
        showPlanPage(window);
        ui::PlanPage* page = window.planPage();
        QSignalSpy failed(&window.session().planner(), &PlanSession::failed);
        clickButton(page->probeButton());
        QVERIFY(failed.size() == 1 || failed.wait(testing::kEventDeadlineMs));
        QCOMPARE(window.banner()->kind(), ui::MessageBanner::Kind::Error);
        QVERIFY2(window.banner()->text().startsWith("The planner's probe failed: ") &&
                     window.banner()->text().contains(failed[0][0].toString()) &&
                     window.banner()->text().contains("no-such-engine"),
                 qPrintable(window.banner()->text()));
        QVERIFY(page->probeButton()->isEnabled());
        QVERIFY(page->emptyHint()->isVisible());
    }
};

QTEST_MAIN(TestPlanPage)
#include "tst_plan_page.moc"
