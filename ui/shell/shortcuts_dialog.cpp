#include "ui/shell/shortcuts_dialog.h"

#include <QAction>
#include <QDialogButtonBox>
#include <QHeaderView>
#include <QHash>
#include <QMenu>
#include <QMenuBar>
#include <QRegularExpression>
#include <QTableWidget>
#include <QVBoxLayout>

namespace strata::ui {

namespace {
QString plain(QString text) { return text.remove(QRegularExpression("&(?!&)")); }

// Where each action of `menu` and its submenus is: "File", "File > Open recent".
void collectMenu(const QMenu* menu, const QString& path, QHash<const QAction*, QString>& where)
{
    for (const QAction* action : menu->actions()) {
        if (action->menu())
            collectMenu(action->menu(), path + QStringLiteral(" > ") + plain(action->text()), where);
        else
            where.insert(action, path);
    }
}
} // namespace

QList<Shortcut> shortcutsOf(const QWidget* window)
{
    QHash<const QAction*, QString> where;
    if (const auto* menuBar = window->findChild<QMenuBar*>(QString(), Qt::FindDirectChildrenOnly))
        for (const QAction* top : menuBar->actions())
            if (top->menu())
                collectMenu(top->menu(), plain(top->text()), where);
    QList<Shortcut> out;
    for (const QAction* action : window->findChildren<QAction*>()) {
        if (action->shortcuts().isEmpty())
            continue;
        QStringList keys;
        for (const QKeySequence& key : action->shortcuts())
            keys << key.toString(QKeySequence::NativeText);
        out.append({where.value(action, QObject::tr("Window")), plain(action->text()), keys.join(QStringLiteral(", "))});
    }
    return out;
}

ShortcutsDialog::ShortcutsDialog(QWidget* window) : QDialog(window), m_table(new QTableWidget(this))
{
    setObjectName("shortcutsDialog");
    setWindowTitle(tr("Keyboard shortcuts"));
    const QList<Shortcut> shortcuts = shortcutsOf(window);
    m_table->setObjectName("shortcutsTable");
    m_table->setColumnCount(3);
    m_table->setHorizontalHeaderLabels({tr("Keys"), tr("Command"), tr("Menu")});
    m_table->setRowCount(int(shortcuts.size()));
    for (int row = 0; row < shortcuts.size(); ++row) {
        const Shortcut& s = shortcuts[row];
        int column = 0;
        for (const QString& text : {s.keys, s.action, s.where}) {
            auto* item = new QTableWidgetItem(text);
            item->setFlags(Qt::ItemIsEnabled);
            m_table->setItem(row, column++, item);
        }
    }
    m_table->verticalHeader()->hide();
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->setSelectionMode(QAbstractItemView::NoSelection);
    m_table->setFocusPolicy(Qt::NoFocus); // a list to read: Close keeps the focus
    m_table->resizeColumnsToContents();
    m_table->horizontalHeader()->setStretchLastSection(true);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close, this);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(m_table);
    layout->addWidget(buttons);
    resize(520, 460);
}

} // namespace strata::ui
