// ClusterPage's TF_CONFIG files: a cluster imported from one, a task's exported.
#include "ui/setup/cluster_page.h"

#include "ui/shell/dialogs.h"

#include <QListWidget>

namespace strata::ui {

void ClusterPage::importTfConfig()
{
    const QString path = m_dialogs->openFile(this, tr("Import TF_CONFIG"), tr("JSON files (*.json);;All files (*)"));
    if (path.isEmpty())
        return;
    QString error;
    if (m_cluster.importTfConfigFile(path, &error))
        Q_EMIT message(tr("Imported the cluster of %1 (Edit > Undo brings the previous one back).").arg(path), false);
    else
        Q_EMIT message(error, true);
}

void ClusterPage::exportTfConfig()
{
    const QString task = selectedTask();
    if (task.isEmpty())
        return;
    const QString suggested = QStringLiteral("tf_config-%1.json").arg(QString(task).replace(':', '-'));
    const QString path = m_dialogs->saveFile(this, tr("Export TF_CONFIG of %1").arg(task), suggested,
                                             tr("JSON files (*.json)"));
    if (path.isEmpty())
        return;
    QString error;
    if (m_cluster.exportTfConfig(path, task, &error))
        Q_EMIT message(tr("Wrote the TF_CONFIG of %1 to %2").arg(task, path), false);
    else
        Q_EMIT message(error, true);
}

} // namespace strata::ui
