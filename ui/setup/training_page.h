#pragma once
// Training page: epochs, the per-replica batch and the global batch it makes, loss and
// metrics, optimizer and learning rate with its scaling rule, checkpoints and seed.

#include "app/experiment/experiment_document.h"

#include <QWidget>

class QGroupBox;
class QLabel;
class QStackedWidget;

namespace strata::ui {

class TrainingPage : public QWidget {
    Q_OBJECT

public:
    explicit TrainingPage(app::ExperimentDocument* document, QWidget* parent = nullptr);

private:
    // The constructor's steps: the page's four boxes.
    QGroupBox* makeScheduleBox(app::ExperimentDocument* document);
    QGroupBox* makeLossBox(app::ExperimentDocument* document);
    QGroupBox* makeOptimizerBox(app::ExperimentDocument* document);
    QGroupBox* makeCheckpointBox(app::ExperimentDocument* document);
    QWidget* makeOptimizerForm(const QString& type);
    QWidget* makeTypeChoice(const QString& name, const QString& pointer, const QStringList& types,
                            const QStringList& keep);
    void refresh();

    app::ExperimentDocument* m_document;
    QLabel* m_globalBatch;
    QStackedWidget* m_optimizerForms;
};

} // namespace strata::ui
