#include "ui/shell/message_banner.h"

#include <QHBoxLayout>
#include <QLabel>
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
    setStyleSheet(kind == Kind::Error ? "#messageBanner { background: #fde2e1; border: 1px solid #d9534f; }"
                                      : "#messageBanner { background: #e3f0fb; border: 1px solid #5b9bd5; }");
    QFrame::show();
}

QString MessageBanner::text() const { return m_label->text(); }

} // namespace strata::ui
