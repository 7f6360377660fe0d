#pragma once
// Help > Keyboard shortcuts: every shortcut a window has, read from its actions (its menus,
// toolbars and pages), so that the list cannot drift from what the keys do.

#include <QDialog>
#include <QList>
#include <QString>

class QTableWidget;

namespace strata::ui {

struct Shortcut {
    QString where;  // the menu bar's path to it ("View", "File > Open recent"), or "Window" outside
    QString action; // its text, without the mnemonic's '&'
    QString keys;   // as the platform writes them ("Ctrl+R"); several joined by ", "
};

// The shortcuts of the actions under `window`, in the order they were made.
QList<Shortcut> shortcutsOf(const QWidget* window);

class ShortcutsDialog : public QDialog {
    Q_OBJECT

public:
    // Lists the shortcuts of `window` (its parent).
    explicit ShortcutsDialog(QWidget* window);

    QTableWidget* table() const { return m_table; }

private:
    QTableWidget* m_table;
};

} // namespace strata::ui
