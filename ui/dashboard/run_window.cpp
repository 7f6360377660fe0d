#include "ui/dashboard/run_window.h"

#include "app/rundir/run_replay.h"
#include "ui/dashboard/dashboard_page.h"
#include "ui/shell/elided_text_tips.h"

#include <QAction>
#include <QScreen>
#include <QVBoxLayout>

namespace strata::ui {

RunWindow* RunWindow::open(const QString& runDir, const QString& title, Dialogs* dialogs, QString* error,
                           QWidget* parent)
{
    auto store = std::make_unique<app::MetricsStore>();
    if (!app::loadRun(runDir, *store, error))
        return nullptr;
    auto* window = new RunWindow(std::move(store), dialogs, parent);
    window->setWindowTitle(tr("%1 - Strata").arg(title));
    return window;
}

RunWindow::RunWindow(std::unique_ptr<app::MetricsStore> store, Dialogs* dialogs, QWidget* parent)
    : QWidget(parent, Qt::Window), m_store(std::move(store))
{
    setAttribute(Qt::WA_DeleteOnClose);
    setObjectName("runWindow");
    // Ctrl+W closes it, as a document window (several may be open beside the main window).
    auto* closeWindow = new QAction(tr("Close window"), this);
    closeWindow->setObjectName("closeRunWindow");
    closeWindow->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_W));
    connect(closeWindow, &QAction::triggered, this, &QWidget::close);
    addAction(closeWindow);
    m_dashboard = new DashboardPage(*m_store, nullptr, dialogs, this);
    showElidedTextAsTips(this);
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(m_dashboard);
    resize(QSize(1200, 800).boundedTo(screen()->availableSize()));
}

RunWindow::~RunWindow()
{
    // The page reads the store until it is gone.
    delete m_dashboard;
}

} // namespace strata::ui
