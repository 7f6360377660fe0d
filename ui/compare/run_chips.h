#pragma once
// RunChips: a toggle chip per run of a comparison, in the run's colour, wrapped onto as many
// rows as the width needs. Unticking a chip hides the run on every plot of the Compare page,
// ticking it shows the run again; the page listens to runShownChanged.

#include <QColor>
#include <QList>
#include <QStringList>
#include <QWidget>

class QToolButton;

namespace strata::ui {

class FlowLayout;

class RunChips : public QWidget {
    Q_OBJECT

public:
    explicit RunChips(QWidget* parent = nullptr);

    // One chip per run, every run shown.
    void setRuns(const QStringList& labels, const QList<QColor>& colours);
    // New colours for the same runs (a palette change); what is shown stays.
    void setColours(const QList<QColor>& colours);
    int count() const { return int(m_chips.size()); }
    bool isRunShown(int run) const;
    QToolButton* chip(int run) const { return m_chips.value(run); }

Q_SIGNALS:
    void runShownChanged(int run, bool shown);

private:
    void style(int run);

    FlowLayout* m_layout;
    QList<QToolButton*> m_chips;
    QList<QColor> m_colours;
};

} // namespace strata::ui
