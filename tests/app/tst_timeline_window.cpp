// The Timeline panel's data (app/trace): a task's last steps kept in a ring (the newest 64, a
// resumed session's steps replacing the ones they repeat), and the window the panel shows:
// rows per task and lane in order, each span's nesting depth, the followed range over the last
// steps of the tasks still current (a task that stopped long ago does not stretch it), the
// steps of a ParameterServer job's workers aligned by the job clock, a range asked for.

#include "app/trace/step_trace_ring.h"
#include "app/trace/timeline_window.h"

#include <QtTest>

#include <algorithm>

using namespace strata::app;

namespace {

// A synchronous step as the engine records it, `us` long from `t0`: the step span holding
// input, forward, backward, wait and optimizer (a tenth, three tenths, four, a tenth, a tenth),
// and on the reduce lane two buckets reduced during the backward pass.
StepTrace syncStep(int64_t step, int64_t t0, int64_t us)
{
    StepTrace t;
    t.step = step;
    t.t0Us = t0;
    const int64_t d = us / 10;
    t.spans = {{"step", "step", 0, us},          {"step", "input", 0, d},       {"step", "forward", d, 3 * d},
               {"step", "backward", 4 * d, 4 * d}, {"step", "wait", 8 * d, d},   {"step", "optimizer", 9 * d, d},
               {"reduce", "bucket 0", 5 * d, 2 * d}, {"reduce", "bucket 1", 7 * d, 2 * d}};
    return t;
}

// `steps` steps of `us` each from `t0`, 100 µs apart, into `ring`.
void fill(StepTraceRing& ring, int64_t firstStep, int steps, int64_t t0, int64_t us)
{
    for (int i = 0; i < steps; ++i)
        ring.add(syncStep(firstStep + i, t0 + i * (us + 100), us));
}

std::vector<int64_t> stepsOf(const Timeline& t, int task)
{
    std::vector<int64_t> steps;
    for (const TimelineStepStart& s : t.stepStarts)
        if (s.task == task)
            steps.push_back(s.step);
    return steps;
}

} // namespace

class TstTimelineWindow : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void ringKeepsTheNewestSteps()
    {
        StepTraceRing ring;
        QVERIFY(ring.empty());
        fill(ring, 1, 100, 0, 1000);
        QCOMPARE(ring.size(), StepTraceRing::kKept);
        for (size_t i = 0; i < ring.size(); ++i)
            QCOMPARE(ring.at(i).step, int64_t(100 - StepTraceRing::kKept + 1 + i));
        QCOMPARE(ring.newest().step, 100);
        QCOMPARE(ring.newest().spans.size(), size_t(8));
    }

    void resumedStepsReplaceTheOnesTheyRepeat()
    {
        StepTraceRing ring;
        fill(ring, 1, 10, 0, 1000);
        // Resumed from the checkpoint of step 6: steps 7.. run again, later on the clock.
        ring.add(syncStep(7, 1'000'000, 1000));
        QCOMPARE(ring.size(), size_t(7));
        QCOMPARE(ring.at(5).step, 6);
        QCOMPARE(ring.newest().step, 7);
        QCOMPARE(ring.newest().t0Us, 1'000'000);
        // And past the end of the ring's slots again, in order.
        fill(ring, 8, 70, 2'000'000, 1000);
        QCOMPARE(ring.size(), StepTraceRing::kKept);
        QCOMPARE(ring.at(0).step, 77 - int64_t(StepTraceRing::kKept) + 1);
        QCOMPARE(ring.newest().step, 77);
    }

    void rowsPerTaskAndLaneInOrder()
    {
        StepTraceRing chief, worker, ps;
        fill(chief, 1, 3, 0, 1000);
        StepTrace own{1, 0, {}, {{"step", "step", 0, 900}, {"ps", "pull", 0, 100}, {"ps", "push", 800, 100},
                                 {"custom", "x", 0, 10}}};
        worker.add(std::move(own));
        // ps:0 records no steps: no row.
        const Timeline t = timelineWindow({{"chief:0", &chief}, {"ps:0", &ps}, {"worker:0", &worker}}, {});
        QCOMPARE(t.tasks.size(), size_t(2));
        QCOMPARE(t.tasks[0].task, "chief:0");
        QCOMPARE(t.tasks[1].task, "worker:0");
        QStringList rows;
        for (const TimelineRow& r : t.rows)
            rows << t.tasks[size_t(r.task)].task + " " + r.lane;
        QCOMPARE(rows, QStringList({"chief:0 step", "chief:0 reduce", "worker:0 step", "worker:0 ps", "worker:0 custom"}));
        QCOMPARE(t.tasks[1].firstRow, 2);
        QCOMPARE(t.tasks[1].rows, 3);
    }

    void spansNestByDepthInTheirLane()
    {
        StepTraceRing ring;
        ring.add(syncStep(5, 10'000, 1000));
        const Timeline t = timelineWindow({{"worker:0", &ring}}, {});
        QCOMPARE(t.spans.size(), size_t(8));
        for (const TimelineSpan& s : t.spans) {
            QCOMPARE(s.step, 5);
            QCOMPARE(s.stepT0Us, 10'000);
            if (s.row == 0)
                QCOMPARE(s.depth, s.name == "step" ? 0 : 1);
            else
                QCOMPARE(s.depth, 0); // the buckets follow one another
        }
        // By row, then start, the enclosing span first; on the job clock.
        QCOMPARE(t.spans[0].name, "step");
        QCOMPARE(t.spans[1].name, "input");
        QCOMPARE(t.spans[0].startUs, 10'000);
        QCOMPARE(t.spans[2].name, "forward");
        QCOMPARE(t.spans[2].startUs, 10'100);
        QCOMPARE(t.spans[2].durUs, 300);
        QCOMPARE(t.spans[6].name, "bucket 0");
        QCOMPARE(t.spans[6].row, 1);
    }

    void followsTheLastStepsOfTheCurrentTasks()
    {
        // Two synchronous workers, worker:1 starting each step 30 µs later; worker:2 lost at step 3.
        StepTraceRing w0, w1, w2;
        fill(w0, 1, 20, 0, 1000);
        fill(w1, 1, 20, 30, 1000);
        fill(w2, 1, 3, 0, 1000);
        const Timeline t = timelineWindow({{"worker:0", &w0}, {"worker:1", &w1}, {"worker:2", &w2}}, {.steps = 4});
        // Steps 17-20: from worker:0's start of 17 to worker:1's end of 20.
        QCOMPARE(t.followFromUs, 16 * 1100);
        QCOMPARE(t.followToUs, 19 * 1100 + 30 + 1000);
        QCOMPARE(t.followStep, 17);
        QCOMPARE(t.followTask, 0);
        QCOMPARE(t.referenceTask, 0);
        QCOMPARE(stepsOf(t, 0), std::vector<int64_t>({17, 18, 19, 20}));
        QCOMPARE(stepsOf(t, 1), std::vector<int64_t>({17, 18, 19, 20}));
        // The lost worker keeps its rows, empty in this range.
        QCOMPARE(t.tasks.size(), size_t(3));
        QVERIFY(stepsOf(t, 2).empty());
        QVERIFY(std::none_of(t.spans.begin(), t.spans.end(), [&](const TimelineSpan& s) { return s.row >= t.tasks[2].firstRow; }));
        QCOMPARE(t.keptFromUs, 0);
        QCOMPARE(t.keptToUs, t.followToUs);

        // Older steps asked for by their range (the user panned back).
        const Timeline back = timelineWindow({{"worker:0", &w0}, {"worker:1", &w1}, {"worker:2", &w2}},
                                             {.steps = 4, .fromUs = 1100, .toUs = 2 * 1100 + 500});
        QCOMPARE(stepsOf(back, 0), std::vector<int64_t>({2, 3}));
        QCOMPARE(stepsOf(back, 2), std::vector<int64_t>({2, 3}));
        QCOMPARE(back.followFromUs, t.followFromUs); // the followed range is the same
    }

    void parameterServerWorkersAlignByTheClock()
    {
        // worker:0 steps every 1.1 ms, worker:1 (slower) every 2.1 ms, their own step numbers.
        StepTraceRing fast, slow;
        fill(fast, 1, 40, 0, 1000);
        fill(slow, 1, 20, 0, 2000);
        const Timeline t = timelineWindow({{"worker:0", &fast}, {"worker:1", &slow}}, {.steps = 2});
        // The slow worker's last two steps (19, 20) begin the range; the fast one shows what it did meanwhile.
        QCOMPARE(t.followFromUs, 18 * 2100);
        QCOMPARE(t.followStep, 19);
        QCOMPARE(t.followTask, 1);
        QCOMPARE(t.followToUs, 39 * 1100 + 1000); // the fast one's last step ends last
        QCOMPARE(stepsOf(t, 1), std::vector<int64_t>({19, 20}));
        const std::vector<int64_t> fastSteps = stepsOf(t, 0);
        QVERIFY2(fastSteps.size() >= 3, "the fast worker's steps of the same time");
        QCOMPARE(fastSteps.back(), 40);
        for (const TimelineStepStart& s : t.stepStarts)
            QVERIFY(s.t0Us + 1000 >= t.followFromUs && s.t0Us <= t.followToUs);
    }

    void aCheckpointBeforeAStepIsPartOfIt()
    {
        StepTraceRing ring;
        fill(ring, 1, 3, 100'000, 1000);
        StepTrace withCheckpoint = syncStep(4, 200'000, 1000);
        withCheckpoint.spans.push_back({"step", "checkpoint", -50'000, 40'000});
        ring.add(std::move(withCheckpoint));
        const Timeline t = timelineWindow({{"worker:0", &ring}}, {.steps = 1});
        QCOMPARE(t.followFromUs, 200'000);
        // Asked for the range before step 4 began: its checkpoint reaches into it.
        const Timeline before = timelineWindow({{"worker:0", &ring}}, {.steps = 1, .fromUs = 155'000, .toUs = 160'000});
        QCOMPARE(stepsOf(before, 0), std::vector<int64_t>({4}));
        const auto checkpoint = std::find_if(before.spans.begin(), before.spans.end(),
                                             [](const TimelineSpan& s) { return s.name == "checkpoint"; });
        QVERIFY(checkpoint != before.spans.end());
        QCOMPARE(checkpoint->startUs, 150'000);
        QCOMPARE(checkpoint->depth, 0);
        QCOMPARE(before.keptFromUs, 100'000);
    }

    void nothingKept()
    {
        StepTraceRing none;
        const Timeline t = timelineWindow({{"worker:0", &none}}, {});
        QVERIFY(t.empty());
        QVERIFY(t.spans.empty());
        QCOMPARE(t.referenceTask, -1);
    }
};

QTEST_GUILESS_MAIN(TstTimelineWindow)
#include "tst_timeline_window.moc"
