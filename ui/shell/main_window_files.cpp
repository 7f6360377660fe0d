// MainWindow's file operations: new, open, save, asking to save unsaved changes first.
#include "ui/shell/main_window.h"
#include "ui/shell/main_window_parts.h"

#include "app/experiment/recent_files.h"
#include "ui/shell/message_banner.h"

#include <QFileInfo>
#include <QStatusBar>

namespace strata::ui {

using namespace main_window_parts;

void MainWindow::updateTitle()
{
    setWindowTitle(tr("%1[*] - Strata").arg(m_session.document().displayName()));
    setWindowModified(m_session.document().isDirty());
}

bool MainWindow::maybeSave()
{
    app::ExperimentDocument& document = m_session.document();
    if (!document.isDirty())
        return true;
    switch (m_dialogs->askToSave(this, document.displayName())) {
    case Dialogs::SaveChoice::Save: return save();
    case Dialogs::SaveChoice::Discard: return true;
    case Dialogs::SaveChoice::Cancel: return false;
    }
    return false;
}

bool MainWindow::openFile(const QString& path)
{
    QString error;
    if (!m_session.document().load(path, &error)) {
        m_banner->showError(error);
        return false;
    }
    app::RecentFiles::add(path);
    m_banner->hide();
    return true;
}

void MainWindow::newFromExample(const QString& path)
{
    if (!maybeSave())
        return;
    QString error;
    if (!m_session.document().newFromExample(path, &error))
        m_banner->showError(error);
}

bool MainWindow::save()
{
    app::ExperimentDocument& document = m_session.document();
    if (document.filePath().isEmpty())
        return saveAs();
    QString error;
    if (!document.save(&error)) {
        m_banner->showError(error);
        return false;
    }
    statusBar()->showMessage(tr("Saved %1").arg(document.filePath()), 4000);
    return true;
}

bool MainWindow::saveAs()
{
    app::ExperimentDocument& document = m_session.document();
    QString path = m_dialogs->saveFile(this, tr("Save experiment"), document.displayName() + ".strata.json", kFileFilter);
    if (path.isEmpty())
        return false;
    if (QFileInfo(path).suffix().isEmpty())
        path += ".strata.json";
    QString error;
    if (!document.saveAs(path, &error)) {
        m_banner->showError(error);
        return false;
    }
    app::RecentFiles::add(path);
    statusBar()->showMessage(tr("Saved %1").arg(path), 4000);
    return true;
}

} // namespace strata::ui
