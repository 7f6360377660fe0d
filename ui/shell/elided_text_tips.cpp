#include "ui/shell/elided_text_tips.h"

#include <QAbstractItemView>
#include <QHelpEvent>
#include <QToolTip>

namespace strata::ui {

bool ElidedTextTips::helpEvent(QHelpEvent* event, QAbstractItemView* view, const QStyleOptionViewItem& option,
                               const QModelIndex& index)
{
    if (event->type() == QEvent::ToolTip && index.isValid() && !index.data(Qt::ToolTipRole).isValid()) {
        QStyleOptionViewItem item = option;
        initStyleOption(&item, index);
        // What the cell would need (text, icon, margins; wrapped lines, where the view wraps)
        // against what it has.
        const QSize needed = sizeHint(option, index);
        if (!item.text.isEmpty() && (needed.width() > option.rect.width() || needed.height() > option.rect.height())) {
            QToolTip::showText(event->globalPos(), item.text, view, option.rect);
            return true;
        }
    }
    return QStyledItemDelegate::helpEvent(event, view, option, index);
}

void showElidedTextAsTips(QWidget* root)
{
    for (QAbstractItemView* view : root->findChildren<QAbstractItemView*>()) {
        const QAbstractItemDelegate* current = view->itemDelegate();
        if (!current || current->metaObject() == &QStyledItemDelegate::staticMetaObject)
            view->setItemDelegate(new ElidedTextTips(view));
    }
}

} // namespace strata::ui
