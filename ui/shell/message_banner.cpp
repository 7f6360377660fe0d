#include "ui/shell/message_banner.h"

#include "ui/shell/theme.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QPainter>
#include <QToolButton>

namespace strata::ui {

MessageBanner::MessageBanner(QWidget* parent) : QFrame(parent), m_label(new QLabel(this))
{
    setObjectName("messageBanner");
    m_label->setWordWrap(true);
    m_label->setTextInteractionFlags(Qt::TextSelectableByMouse);
    auto* close = new QToolButton(this);
    close->setText(QStringLiteral("✕"));
    close->setAutoRaise(true);
    close->setToolTip(tr("Dismiss"));
    connect(close, &QToolButton::clicked, this, &QWidget::hide);
    auto* layout = new QHBoxLayout(this);
    layout->setContentsMargins(8, 4, 4, 4);
    layout->addWidget(m_label, 1);
    layout->addWidget(close, 0, Qt::AlignTop);
    hide();
}

void MessageBanner::show(Kind kind, const QString& text)
{
    m_kind = kind;
    m_label->setText(text);
    update();
    QFrame::show();
}

QColor MessageBanner::background() const
{
    return m_kind == Kind::Error ? theme::errorBackground(palette()) : theme::infoBackground(palette());
}

void MessageBanner::paintEvent(QPaintEvent*)
{
    // Painted from the palette each time, so a change of the desktop's (light, dark) shows at once.
    QPainter p(this);
    p.fillRect(rect(), background());
    p.setPen(m_kind == Kind::Error ? theme::errorBorder(palette()) : theme::infoBorder(palette()));
    p.drawRect(rect().adjusted(0, 0, -1, -1));
}

QString MessageBanner::text() const { return m_label->text(); }

} // namespace strata::ui
