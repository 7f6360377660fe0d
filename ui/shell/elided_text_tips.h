#pragma once
// A cell whose text does not fit ("1 GEMM thre...") shows the whole text as its tooltip, unless
// the item has a tooltip of its own: the delegate of every item view of the window.

#include <QStyledItemDelegate>

namespace strata::ui {

class ElidedTextTips : public QStyledItemDelegate {
    Q_OBJECT

public:
    using QStyledItemDelegate::QStyledItemDelegate;

    bool helpEvent(QHelpEvent* event, QAbstractItemView* view, const QStyleOptionViewItem& option,
                   const QModelIndex& index) override;
};

// Gives every item view under `root` that has Qt's default delegate an ElidedTextTips.
void showElidedTextAsTips(QWidget* root);

} // namespace strata::ui
