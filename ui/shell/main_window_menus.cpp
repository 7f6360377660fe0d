// MainWindow's menus (File, Edit, View, Run, Help) and the Run toolbar.
#include "ui/shell/main_window.h"
#include "ui/shell/main_window_parts.h"

#include "app/experiment/recent_files.h"
#include "app/session/documentation.h"
#include "ui/shell/message_banner.h"
#include "ui/shell/shortcuts_dialog.h"
#include "ui/shell/theme.h"

#include <QActionGroup>
#include <QApplication>
#include <QDesktopServices>
#include <QListWidget>
#include <QMenuBar>
#include <QToolBar>
#include <QUrl>

namespace strata::ui {

using namespace main_window_parts;

void MainWindow::createMenus()
{
    app::ExperimentDocument& document = m_session.document();
    createFileMenu();
    QMenu* edit = menuBar()->addMenu(tr("&Edit"));
    m_undo = edit->addAction(tr("&Undo"), QKeySequence::Undo, &document, &app::ExperimentDocument::undo);
    m_redo = edit->addAction(tr("&Redo"), QKeySequence::Redo, &document, &app::ExperimentDocument::redo);

    createViewMenu();
    createRunMenu();
    createHelpMenu();
}

void MainWindow::createFileMenu()
{
    QMenu* file = menuBar()->addMenu(tr("&File"));
    file->addAction(tr("&New"), QKeySequence::New, this, [this] {
        if (maybeSave())
            m_session.document().newDocument();
    });
    QMenu* examples = file->addMenu(tr("New from e&xample"));
    examples->setObjectName("examplesMenu");
    for (const auto& [name, path] : app::ExperimentDocument::examples())
        examples->addAction(name, this, [this, p = path] { newFromExample(p); });
    file->addAction(tr("&Open..."), QKeySequence::Open, this, [this] {
        if (!maybeSave())
            return;
        const QString path = m_dialogs->openFile(this, tr("Open experiment"), kFileFilter);
        if (!path.isEmpty())
            openFile(path);
    });
    m_recentMenu = file->addMenu(tr("Open &recent"));
    m_recentMenu->setObjectName("recentMenu");
    connect(m_recentMenu, &QMenu::aboutToShow, this, &MainWindow::updateRecentMenu);
    updateRecentMenu();
    file->addSeparator();
    file->addAction(tr("&Save"), QKeySequence::Save, this, &MainWindow::save);
    file->addAction(tr("Save &As..."), QKeySequence::SaveAs, this, &MainWindow::saveAs);
    file->addSeparator();
    file->addAction(tr("&Quit"), QKeySequence::Quit, this, &QWidget::close);
}

void MainWindow::createViewMenu()
{
    // Ctrl+1 to Ctrl+9: the pages in the list's order.
    QMenu* view = menuBar()->addMenu(tr("&View"));
    view->setObjectName("viewMenu");
    for (int page = 0; page < PageCount; ++page) {
        QAction* go = view->addAction(m_pageItems[page]->text(), QKeySequence(Qt::CTRL | Qt::Key(Qt::Key_1 + page)), this,
                                      [this, page] { showPage(Page(page)); });
        go->setObjectName(QStringLiteral("showPage%1").arg(page + 1));
        m_iconActions.append({go, kPageIcons[page]});
        m_pageItems[page]->setToolTip(go->shortcut().toString(QKeySequence::NativeText));
    }
    view->addSeparator();
    QMenu* themes = view->addMenu(tr("&Theme"));
    themes->setObjectName("themeMenu");
    auto* schemes = new QActionGroup(themes);
    for (const auto& [scheme, title] : {std::pair{theme::Scheme::Desktop, tr("As the &desktop")},
                                        std::pair{theme::Scheme::Light, tr("&Light")},
                                        std::pair{theme::Scheme::Dark, tr("D&ark")}}) {
        QAction* choose = themes->addAction(title, this, [s = scheme] { theme::setScheme(s); });
        choose->setCheckable(true);
        choose->setChecked(scheme == theme::savedScheme());
        schemes->addAction(choose);
    }
}

// The Run menu and its toolbar.
void MainWindow::createRunMenu()
{
    QMenu* run = menuBar()->addMenu(tr("&Run"));
    m_launch = run->addAction(tr("&Launch"), QKeySequence(Qt::CTRL | Qt::Key_R), this, &MainWindow::launch);
    m_stop = run->addAction(tr("&Stop"), QKeySequence(Qt::CTRL | Qt::Key_Period), this, &MainWindow::stop);
    m_launch->setObjectName("launchAction");
    m_stop->setObjectName("stopAction");
    m_iconActions.append({m_launch, "launch"});
    m_iconActions.append({m_stop, "stop"});
    for (QAction* action : {m_launch, m_stop})
        action->setToolTip(QStringLiteral("%1 (%2)").arg(action->text().remove('&'),
                                                          action->shortcut().toString(QKeySequence::NativeText)));

    // Labelled buttons: what they do reads without hovering.
    QToolBar* toolbar = addToolBar(tr("Run"));
    toolbar->setObjectName("runToolbar");
    toolbar->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
    toolbar->setIconSize(QSize(18, 18));
    toolbar->addAction(m_launch);
    toolbar->addAction(m_stop);
}

void MainWindow::createHelpMenu()
{
    QMenu* help = menuBar()->addMenu(tr("&Help"));
    help->setObjectName("helpMenu");
    QAction* shortcuts = help->addAction(tr("&Keyboard shortcuts"), this, [this] {
        auto* dialog = new ShortcutsDialog(this);
        dialog->setAttribute(Qt::WA_DeleteOnClose);
        dialog->open();
    });
    shortcuts->setObjectName("shortcutsAction");
    QAction* docs = help->addAction(tr("&Documentation"), this, &MainWindow::openDocumentation);
    docs->setObjectName("documentationAction");
    m_iconActions.append({shortcuts, "keyboard"});
    m_iconActions.append({docs, "documentation"});
    help->addSeparator();
    help->addAction(tr("&About Strata"), this, [this] {
        const app::EngineInfo& engine = m_session.engine();
        m_banner->showInfo(tr("Strata %1: configure, launch and watch distributed training runs. Engine: %2 (%3). "
                              "GPL-3.0-or-later.")
                               .arg(QApplication::applicationVersion(), engine.path,
                                    engine.version.isEmpty() ? tr("not usable") : engine.version));
    });
}

void MainWindow::openDocumentation()
{
    QStringList looked;
    const QString path = app::documentationPath(&looked);
    if (path.isEmpty())
        m_banner->showError(tr("No documentation found; looked for:\n%1").arg(looked.join('\n')));
    else if (!QDesktopServices::openUrl(QUrl::fromLocalFile(path)))
        m_banner->showError(tr("Cannot open %1: no application opens it here.").arg(path));
}

void MainWindow::updateRecentMenu()
{
    m_recentMenu->clear();
    for (const auto& path : app::RecentFiles::list())
        m_recentMenu->addAction(path, this, [this, path] {
            if (maybeSave())
                openFile(path);
        });
    m_recentMenu->setEnabled(!m_recentMenu->isEmpty());
}

} // namespace strata::ui
