#include "ui/shell/shortcuts_dialog.h"

#include <QAction>
#include <QDialogButtonBox>
#include <QHeaderView>
#include <QMenu>
#include <QRegularExpression>
#include <QTableWidget>
#include <QVBoxLayout>

namespace strata::ui {

namespace {
QString plain(QString text) { return text.remove(QRegularExpression("&(?!&)")); }

// The menu path of `action` ("File > Open recent"), or "Window" for one in no menu.
QString whereIs(const QAction* action)
{
    for (QObject* object : action->associatedObjects()) {
        auto* menu = qobject_cast<QMenu*>(object);
        if (!menu)
            continue;
        QStringList path{plain(menu->title())};
        for (QAction* up = menu->menuAction(); up;) {
            const QMenu* parent = nullptr;
            for (QObject* o : up->associatedObjects())
                if ((parent = qobject_cast<QMenu*>(o)))
                    break;
            if (!parent)
                break;
            path.prepend(plain(parent->title()));
            up = parent->menuAction();
        }
        return path.join(QStringLiteral(" > "));
    }
    return QObject::tr("Window");
}
} // namespace

QList<Shortcut> shortcutsOf(const QWidget* window)
{
    QList<Shortcut> out;
    for (const QAction* action : window->findChildren<QAction*>()) {
        if (action->shortcuts().isEmpty())
            continue;
        QStringList keys;
        for (const QKeySequence& key : action->shortcuts())
            keys << key.toString(QKeySequence::NativeText);
        out.append({whereIs(action), plain(action->text()), keys.join(QStringLiteral(", "))});
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
