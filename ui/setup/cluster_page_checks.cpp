// ClusterPage's node checks: every node asked what a launch would need, a row a node.
#include "ui/setup/cluster_page.h"

#include "app/experiment/task_gpus_text.h"

#include "app/launch/node_check.h"
#include "app/metrics/display_text.h"
#include "app/ssh/connection.h"
#include "ui/setup/slurm_job_box.h"
#include "ui/shell/theme.h"

#include <QLabel>
#include <QPushButton>
#include <QTableWidget>

#include <algorithm>

namespace strata::ui {

void ClusterPage::setNodeAccess(const app::RemoteAccess& access, const QString& localEngine)
{
    m_access = access;
    m_localEngine = localEngine;
    m_slurm->setEngine(localEngine);
}

bool ClusterPage::isChecking() const { return m_checker && m_checker->isChecking(); }

void ClusterPage::checkNodes()
{
    if (isChecking())
        return;
    // The nodes and their tasks must make sense before anything can be asked of them.
    QStringList problems;
    for (const app::Problem& p : m_document->validation().problems)
        if (p.path.startsWith(QLatin1String("cluster")))
            problems << p.labelled();
    if (!problems.isEmpty()) {
        Q_EMIT message(tr("The nodes cannot be checked while the cluster has problems:\n%1").arg(problems.join('\n')),
                       true);
        return;
    }
    m_checker = std::make_unique<app::NodeChecker>(m_access);
    connect(m_checker.get(), &app::NodeChecker::nodeChecked, this, &ClusterPage::showReport);
    connect(m_checker.get(), &app::NodeChecker::finished, this, &ClusterPage::checkFinished);
    m_checks->setRowCount(0);
    m_checks->setVisible(true);
    m_check->setEnabled(false);
    m_checkState->setText(tr("Checking the nodes..."));
    m_checker->check(m_document->forLaunch(), m_localEngine);
}

void ClusterPage::showReport(const app::NodeReport& r)
{
    const int row = m_checks->rowCount();
    m_checks->insertRow(row);
    const QString ok = r.hostName.isEmpty() ? tr("OK") : tr("OK (the node calls itself %1)").arg(r.hostName);
    const QStringList cells{app::placeText(r.node, r.host), r.ok() ? ok : r.problems.join('\n'),
                            r.version.isEmpty() ? QString() : tr("strata-engine %1").arg(r.version),
                            r.devices.join(' '), tr("%1 s").arg(double(r.ms) / 1000.0, 0, 'f', 2)};
    for (int c = 0; c < CheckColumns; ++c) {
        auto* item = new QTableWidgetItem(cells[c]);
        item->setToolTip(c == CheckEngine ? r.engine : cells[c]);
        if (!r.ok())
            item->setForeground(theme::error(palette()));
        m_checks->setItem(row, c, item);
    }
    m_checks->resizeRowToContents(row);
    // Its GPUs, for each task's share in the task list (when its engine could say).
    if (!r.version.isEmpty()) {
        m_nodeGpus[r.node] = app::gpuCount(r.devices);
        refreshTaskList();
    }
}

void ClusterPage::checkFinished(const QList<app::NodeReport>& reports)
{
    // The connections a launch would keep are not needed here.
    for (auto& [node, connection] : m_checker->takeConnections())
        connection.release()->deleteLater();
    const qsizetype failed = std::count_if(reports.begin(), reports.end(), [](const auto& r) { return !r.ok(); });
    m_checkState->setText(failed == 0 ? tr("%n node(s) checked: ready", nullptr, int(reports.size()))
                                      : tr("%n node(s) checked: %1 with problems", nullptr, int(reports.size()))
                                            .arg(failed));
    m_check->setEnabled(true);
}

} // namespace strata::ui
