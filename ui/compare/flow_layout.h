#pragma once
// A layout that places its widgets left to right and wraps them onto new rows when the width
// runs out (Qt's Flow Layout example, reduced): the Compare page's run chips, as many rows as
// the runs need at any window width.

#include <QLayout>

#include <vector>

namespace strata::ui {

class FlowLayout : public QLayout {
public:
    explicit FlowLayout(QWidget* parent = nullptr, int spacing = 6);
    ~FlowLayout() override;

    void addItem(QLayoutItem* item) override;
    int count() const override;
    QLayoutItem* itemAt(int index) const override;
    QLayoutItem* takeAt(int index) override;
    Qt::Orientations expandingDirections() const override { return {}; }
    bool hasHeightForWidth() const override { return true; }
    int heightForWidth(int width) const override;
    QSize sizeHint() const override { return minimumSize(); }
    QSize minimumSize() const override;
    void setGeometry(const QRect& rect) override;

private:
    // Lays the items out in `rect` (moving them only when `apply`); the height used.
    int arrange(const QRect& rect, bool apply) const;

    std::vector<QLayoutItem*> m_items;
    int m_spacing;
};

} // namespace strata::ui
