// The window's identity, driven with the mouse and keys (offscreen): the page list grouped
// Setup / Run / Analyse with icons, its group headers never selected; labelled toolbar
// buttons; Help's keyboard shortcuts (read from the window's actions) and documentation;
// View > Theme's dark and light palettes followed by the stylesheet and the icons; a run
// window closed with Ctrl+W; everything in reach at 1280x720.

#include "app/metrics/metrics_store.h"
#include "ui/dashboard/run_window.h"
#include "ui/history/history_page.h"
#include "ui/shell/main_window.h"
#include "ui/shell/shortcuts_dialog.h"
#include "ui/shell/theme.h"

#include "../app/ps_job_events.h"
#include "scripted_dialogs.h"

#include <QApplication>
#include <QDesktopServices>
#include <QFile>
#include <QFileInfo>
#include <QListWidget>
#include <QMenu>
#include <QMenuBar>
#include <QPointer>
#include <QScrollArea>
#include <QSettings>
#include <QStackedWidget>
#include <QStandardPaths>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QToolBar>
#include <QToolButton>

using namespace strata;

namespace {

using uitest::ScriptedDialogs;

template<typename T>
T* find(QObject* root, const QString& name)
{
    T* child = root->findChild<T*>(name);
    if (!child)
        qFatal("no %s named %s", T::staticMetaObject.className(), qPrintable(name));
    return child;
}

// A left click at `pos` of `widget`, sent to the widget the window has there (so nothing may
// cover it).
void clickAt(QWidget* widget, QPoint pos)
{
    QWidget* window = widget->window();
    QWidget* under = window->childAt(widget->mapTo(window, pos));
    QCOMPARE(under, widget);
    QTest::mouseClick(under, Qt::LeftButton, {}, pos);
}

// Opens menu after menu (from the menu bar) with clicks and clicks the last action: each
// step the action of that text ('&' left out) in the menu opened before.
void clickMenus(QMainWindow& window, const QStringList& path)
{
    QWidget* menu = window.menuBar();
    for (const QString& step : path) {
        QAction* action = nullptr;
        for (QAction* a : menu->actions())
            if (a->text().remove('&') == step)
                action = a;
        QVERIFY2(action, qPrintable(step));
        const QRect where = qobject_cast<QMenuBar*>(menu) ? window.menuBar()->actionGeometry(action)
                                                          : qobject_cast<QMenu*>(menu)->actionGeometry(action);
        QTest::mouseMove(menu, where.center());
        QTest::mouseClick(menu, Qt::LeftButton, {}, where.center());
        if (action->menu()) {
            QTRY_VERIFY(action->menu()->isVisible());
            menu = action->menu();
        }
    }
}

int rowOf(QListWidget* list, const QString& text)
{
    for (int row = 0; row < list->count(); ++row)
        if (list->item(row)->text() == text)
            return row;
    return -1;
}

// The lightest pixel of `icon` drawn at 20 px.
int lightestOf(const QIcon& icon)
{
    const QImage image = icon.pixmap(20, 20).toImage();
    int lightest = 0;
    for (int y = 0; y < image.height(); ++y)
        for (int x = 0; x < image.width(); ++x)
            if (image.pixelColor(x, y).alpha() > 200)
                lightest = std::max(lightest, image.pixelColor(x, y).lightness());
    return lightest;
}

// Stands in for the desktop's opening of a file.
class UrlCatcher : public QObject {
    Q_OBJECT

public:
    QList<QUrl> opened;

public Q_SLOTS:
    void open(const QUrl& url) { opened << url; }
};

} // namespace

class TestWindowIdentity : public QObject {
    Q_OBJECT

    QTemporaryDir m_dir;

private Q_SLOTS:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        QSettings::setPath(QSettings::NativeFormat, QSettings::UserScope, m_dir.filePath("settings"));
        qputenv("STRATA_HISTORY", QFile::encodeName(m_dir.filePath("history.sqlite")));
    }

    void pageListIsGroupedAndItsHeadersAreNotSelectable()
    {
        ui::MainWindow window(STRATA_ENGINE_PATH, std::make_unique<ScriptedDialogs>());
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        auto* list = find<QListWidget>(&window, "pageList");
        QStringList entries;
        for (int row = 0; row < list->count(); ++row)
            entries << list->item(row)->text();
        QCOMPARE(entries, (QStringList{"SETUP", "Strategy", "Cluster", "Model", "Data", "Training", "RUN", "Dashboard",
                                       "ANALYSE", "History", "Compare", "Plan"}));
        for (int row = 0; row < list->count(); ++row) {
            const bool header = entries[row] == entries[row].toUpper();
            QCOMPARE(bool(list->item(row)->flags() & Qt::ItemIsSelectable), !header);
            QCOMPARE(list->item(row)->icon().isNull(), header);
        }

        // A click on a header selects nothing and keeps the page.
        window.showPage(ui::MainWindow::ModelPageIndex);
        for (const char* header : {"SETUP", "RUN", "ANALYSE"}) {
            clickAt(list->viewport(), list->visualItemRect(list->item(rowOf(list, header))).center());
            QCOMPARE(window.currentPage(), ui::MainWindow::ModelPageIndex);
            QCOMPARE(list->selectedItems(), QList<QListWidgetItem*>{list->item(rowOf(list, "Model"))});
        }
        // A click on an entry's icon shows its page.
        auto* pages = find<QStackedWidget>(&window, "pages");
        const QRect history = list->visualItemRect(list->item(rowOf(list, "History")));
        clickAt(list->viewport(), QPoint(history.left() + 8 + list->iconSize().width() / 2, history.center().y()));
        QCOMPARE(window.currentPage(), ui::MainWindow::HistoryPageIndex);
        QCOMPARE(qobject_cast<QScrollArea*>(pages->currentWidget())->widget(), static_cast<QWidget*>(window.historyPage()));
        // The arrow keys pass over the headers.
        list->setFocus();
        QTest::keyClick(list, Qt::Key_Up);
        QCOMPARE(window.currentPage(), ui::MainWindow::DashboardPageIndex);
        QTest::keyClick(list, Qt::Key_Up);
        QCOMPARE(window.currentPage(), ui::MainWindow::TrainingPageIndex);
        QTest::keyClick(list, Qt::Key_Down);
        QCOMPARE(window.currentPage(), ui::MainWindow::DashboardPageIndex);
    }

    void toolbarButtonsAreLabelled()
    {
        ui::MainWindow window(STRATA_ENGINE_PATH, std::make_unique<ScriptedDialogs>());
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        auto* toolbar = find<QToolBar>(&window, "runToolbar");
        for (const auto& [name, label] : {std::pair{"launchAction", "Launch"}, std::pair{"stopAction", "Stop"}}) {
            auto* button = qobject_cast<QToolButton*>(toolbar->widgetForAction(find<QAction>(&window, name)));
            QVERIFY(button);
            QCOMPARE(button->toolButtonStyle(), Qt::ToolButtonTextBesideIcon);
            QCOMPARE(button->text(), QString(label));
            QVERIFY(!button->icon().isNull());
            // The text and the icon both fit.
            QVERIFY(button->width() >= button->fontMetrics().horizontalAdvance(label) + toolbar->iconSize().width());
        }
    }

    void shortcutsDialogListsTheWindowsActions()
    {
        ui::MainWindow window(STRATA_ENGINE_PATH, std::make_unique<ScriptedDialogs>());
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        clickMenus(window, {"Help", "Keyboard shortcuts"});
        QPointer<ui::ShortcutsDialog> dialog;
        QTRY_VERIFY((dialog = window.findChild<ui::ShortcutsDialog*>()) && dialog->isVisible());
        QTableWidget* table = dialog->table();
        QStringList rows;
        for (int row = 0; row < table->rowCount(); ++row)
            rows << QStringLiteral("%1 | %2 | %3")
                        .arg(table->item(row, 0)->text(), table->item(row, 1)->text(), table->item(row, 2)->text());
        QVERIFY2(rows.contains("Ctrl+R | Launch | Run"), qPrintable(rows.join('\n')));
        QVERIFY(rows.contains("Ctrl+. | Stop | Run"));
        QVERIFY(rows.contains("Ctrl+S | Save | File"));
        QVERIFY(rows.contains("Ctrl+8 | Compare | View"));
        QVERIFY(rows.contains("Ctrl+9 | Plan | View"));
        // Every action of the window that has keys, and nothing else.
        int withKeys = 0;
        for (const QAction* action : window.findChildren<QAction*>())
            withKeys += !action->shortcuts().isEmpty();
        QCOMPARE(table->rowCount(), withKeys);
        // New, open, save, undo, redo, 9 pages, launch, stop (and quit and save as where the
        // platform gives them keys).
        QVERIFY(withKeys >= 16);

        // A shortcut added later is listed the next time.
        auto* extra = new QAction("Extra", &window);
        extra->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_J));
        window.addAction(extra);
        QTest::keyClick(dialog, Qt::Key_Escape);
        QTRY_VERIFY(dialog.isNull());
        clickMenus(window, {"Help", "Keyboard shortcuts"});
        QTRY_VERIFY((dialog = window.findChild<ui::ShortcutsDialog*>()));
        QVERIFY(!dialog->table()->findItems("Ctrl+J", Qt::MatchExactly).isEmpty());
    }

    void documentationOpensTheReadme()
    {
        ui::MainWindow window(STRATA_ENGINE_PATH, std::make_unique<ScriptedDialogs>());
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        UrlCatcher catcher;
        QDesktopServices::setUrlHandler("file", &catcher, "open");
        clickMenus(window, {"Help", "Documentation"});
        QDesktopServices::unsetUrlHandler("file");
        QCOMPARE(catcher.opened.size(), 1);
        // A build tree's program finds the source tree's README (installed: the docs folder).
        QCOMPARE(catcher.opened[0].toLocalFile(), QFileInfo(STRATA_README).canonicalFilePath());
    }

    void themeMenuSwitchesPaletteStylesheetAndIcons()
    {
        ui::MainWindow window(STRATA_ENGINE_PATH, std::make_unique<ScriptedDialogs>());
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        auto* list = find<QListWidget>(&window, "pageList");
        clickMenus(window, {"View", "Theme", "Dark"});
        QTRY_VERIFY(ui::theme::isDark(window.palette()));
        QCOMPARE(QSettings().value("appearance/theme").toString(), QString("dark"));
        QCOMPARE(window.styleSheet(), ui::theme::styleSheet(window.palette()));
        QVERIFY(window.styleSheet().contains(ui::theme::darkPalette().color(QPalette::Highlight).name()));
        QVERIFY(lightestOf(list->item(rowOf(list, "Model"))->icon()) > 180); // light strokes on dark

        clickMenus(window, {"View", "Theme", "Light"});
        QTRY_VERIFY(!ui::theme::isDark(window.palette()));
        QCOMPARE(QSettings().value("appearance/theme").toString(), QString("light"));
        QCOMPARE(window.styleSheet(), ui::theme::styleSheet(window.palette()));
        QVERIFY(lightestOf(list->item(rowOf(list, "Model"))->icon()) < 80); // dark strokes on light
        ui::theme::setScheme(ui::theme::Scheme::Desktop);
    }

    void runWindowClosesWithCtrlW()
    {
        ui::MainWindow window(STRATA_ENGINE_PATH, std::make_unique<ScriptedDialogs>());
        window.show();
        const QString runDir = m_dir.filePath("ps-run");
        QVERIFY(QDir().mkpath(runDir));
        for (const auto& [task, lines] : apptest::parameterServerJob()) {
            QFile file(runDir + "/events-" + QString(task).replace(':', '-') + ".jsonl");
            QVERIFY(file.open(QIODevice::WriteOnly));
            file.write(lines);
        }
        ScriptedDialogs dialogs;
        QString error;
        QPointer<ui::RunWindow> run = ui::RunWindow::open(runDir, "ps", &dialogs, &error, &window);
        QVERIFY2(run, qPrintable(error));
        run->show();
        QApplication::setActiveWindow(run);
        QVERIFY(QTest::qWaitForWindowActive(run));
        QTest::keyClick(QApplication::focusWidget() ? QApplication::focusWidget() : run.data(), Qt::Key_W,
                        Qt::ControlModifier);
        QTRY_VERIFY(run.isNull()); // closed, and deleted on close
        QVERIFY(window.isVisible());
    }

    // 1280x720: the window fits, and the page list and the toolbar show their whole texts.
    void everythingFitsAt1280x720()
    {
        ui::MainWindow window(STRATA_ENGINE_PATH, std::make_unique<ScriptedDialogs>());
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        window.resize(1280, 720);
        for (int page = 0; page < ui::MainWindow::PageCount; ++page) {
            window.showPage(ui::MainWindow::Page(page));
            QTRY_COMPARE(window.size(), QSize(1280, 720));
            QVERIFY2(window.minimumSizeHint().width() <= 1280 && window.minimumSizeHint().height() <= 720,
                     qPrintable(QStringLiteral("page %1 needs %2x%3")
                                    .arg(page)
                                    .arg(window.minimumSizeHint().width())
                                    .arg(window.minimumSizeHint().height())));
        }
        auto* list = find<QListWidget>(&window, "pageList");
        for (int row = 0; row < list->count(); ++row) {
            const QListWidgetItem* item = list->item(row);
            const int needed = QFontMetrics(item->font()).horizontalAdvance(item->text()) +
                               (item->icon().isNull() ? 0 : list->iconSize().width());
            QVERIFY2(list->visualItemRect(item).width() >= needed, qPrintable(item->text()));
        }
    }
};

QTEST_MAIN(TestWindowIdentity)
#include "tst_window_identity.moc"
