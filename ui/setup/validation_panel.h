#pragma once
// Under the setup pages: every problem of the experiment with the field it concerns (a
// click opens the page holding it), notes, what the run will look like, and Launch,
// enabled only when there is no problem and nothing else blocks a launch.

#include "app/experiment/experiment_document.h"

#include <QWidget>

class QLabel;
class QListWidget;
class QPushButton;

namespace strata::ui {

class ValidationPanel : public QWidget {
    Q_OBJECT

public:
    explicit ValidationPanel(app::ExperimentDocument* document, QWidget* parent = nullptr);
    // Why a launch is impossible besides the experiment (no engine, a run in progress);
    // empty: nothing.
    void setLaunchBlocker(const QString& reason);
    bool launchEnabled() const;
    QPushButton* launchButton() const { return m_launch; }

Q_SIGNALS:
    void launchRequested();
    // A problem was activated: the document field path it concerns.
    void problemActivated(const QString& path);

private:
    void refresh();

    app::ExperimentDocument* m_document;
    QLabel* m_summary;
    QListWidget* m_problems;
    QPushButton* m_launch;
    QString m_blocker;
};

} // namespace strata::ui
