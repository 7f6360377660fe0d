#pragma once
// Strategy page: every tf.distribute strategy of the seeds with what it does and when to
// use it; the chosen one's options (MultiWorkerMirrored: each worker's devices, the gradient
// bucket size, the collective timeout; ParameterServer: the partitioner and its fields, the
// staleness bound, the timeout; their tasks are the Cluster page's). Strategies that
// cannot run here stay listed and say why.

#include "app/experiment/catalogs.h"
#include "app/experiment/experiment_document.h"

#include <QWidget>

class QFormLayout;
class QLabel;
class QListWidget;
class QStackedWidget;

namespace strata::ui {

class FieldSpinBox;

class StrategyPage : public QWidget {
    Q_OBJECT

public:
    StrategyPage(app::ExperimentDocument* document, QWidget* parent = nullptr);
    // The devices the engine reports on this machine (the device lists offer them).
    void setHostDevices(int logicalCpus, int gpus);

private:
    QWidget* makeOptions(const QString& type);
    // `whenNone`: what the engine takes when nothing is ticked.
    QWidget* makeDeviceChecklist(const QString& pointer, const QString& whenNone);
    QWidget* makeDeviceChoice(const QString& pointer);
    // strategy.timeout_seconds (`absent`: the engine's default for the strategy).
    QWidget* makeTimeout(const QString& toolTip, double absent);
    static QString timeoutLabel();
    void addParameterServerOptions(QFormLayout* form);
    void addPartitionerOptions(QFormLayout* form);
    void addStalenessOptions(QFormLayout* form);
    void refresh();
    void updateLogicalGpus();
    void rebuildOptions();
    QStringList deviceNames() const;

    app::ExperimentDocument* m_document;
    QList<app::StrategyInfo> m_strategies;
    QListWidget* m_list;
    QLabel* m_title;
    QLabel* m_description;
    QLabel* m_bestUse;
    QLabel* m_whyNot;
    QStackedWidget* m_options;
    FieldSpinBox* m_logicalGpus;
    int m_cpus = 1, m_gpus = 0;
    QStringList m_shownDevices; // what the device editors list
};

} // namespace strata::ui
