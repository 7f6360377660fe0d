#pragma once
// Many lines of one kind (each worker's compute time, each replica's loss) as one band: their
// median, lowest and highest value at every step, kept as three Series, so that a plot reduces
// them per pixel column as any line (a long run of 64 workers costs what three lines cost), and
// extended as the members grow (each refresh costs the steps that arrived since the last one).
// Which members stand out of a band (the slowest workers, the highest losses) is chosen here too.
//
// Threads: none of its own; call under the store's lock (a StoreLines' collect()).

#include "app/metrics/metrics_store.h"

#include <QString>

#include <map>
#include <vector>

namespace strata::app {

// More lines of one kind than this, and a plot draws their band (and the few that stand out): the
// palette has ten colours, so beyond eight a line's colour no longer names its worker, and a
// strip plot's legend of more than eight entries covers the plot or pushes it off.
constexpr int kBandAboveLines = 8;
// How many members a band draws as lines of their own.
constexpr int kStandOutLines = 3;
// How many of a series' latest points "lately" means (steps, or a live run's windows).
constexpr int kRecentPoints = 20;

class LineBand {
public:
    struct Member {
        QString name;                  // unique among the members (a task, or a task's replica)
        const Series* series = nullptr;
        bool reporting = true; // its task may still report: the band waits for it
    };

    // Extends the band from what the members gained: a point at each step some member reported
    // (its x), up to the last step that every member still reporting has reached (none
    // reporting: the last step of any); at each, the median, least and greatest of every
    // member's latest value at or before it (a member not heard from yet is left out). A member
    // joining later is counted from the band's next step on.
    void extend(const std::vector<Member>& members);
    const Series& median() const { return m_median; }
    const Series& low() const { return m_low; }
    const Series& high() const { return m_high; }

private:
    Series m_median, m_low, m_high;
    std::map<QString, int64_t> m_next; // each member's first point after the band's last step
    std::vector<float> m_values;       // reused for each step
};

// The mean of the latest kRecentPoints values of `series` (NaN ones left out); NaN when none.
double recentMean(const Series& series);
// How long `task` took per step lately on its own: its step time less the gradient reduction
// (which, in a synchronous job, is where every worker waits for the slowest one, so that their
// whole step times are alike); compute and input wait when it reports no step time. NaN: no
// steps yet.
double recentOwnMs(const TaskData& task);
// The indices of the `count` greatest of `scores` (NaN never), greatest first; ties in index order.
std::vector<int> greatest(const std::vector<double>& scores, int count);

} // namespace strata::app
