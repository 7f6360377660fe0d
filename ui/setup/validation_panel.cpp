#include "ui/setup/validation_panel.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QListWidget>
#include <QPushButton>
#include <QStyle>
#include <QVBoxLayout>

namespace strata::ui {

ValidationPanel::ValidationPanel(app::ExperimentDocument* document, QWidget* parent)
    : QWidget(parent), m_document(document), m_summary(new QLabel(this)), m_problems(new QListWidget(this)),
      m_launch(new QPushButton(tr("Launch"), this))
{
    m_summary->setObjectName("runSummary");
    m_summary->setWordWrap(true);
    m_problems->setObjectName("problemList");
    m_problems->setMaximumHeight(110);
    m_launch->setObjectName("launchButton");
    m_launch->setIcon(style()->standardIcon(QStyle::SP_MediaPlay));
    m_launch->setDefault(true);
    connect(m_launch, &QPushButton::clicked, this, &ValidationPanel::launchRequested);
    connect(m_problems, &QListWidget::itemActivated, this, [this](QListWidgetItem* item) {
        Q_EMIT problemActivated(item->data(Qt::UserRole).toString());
    });
    connect(m_problems, &QListWidget::itemClicked, this, [this](QListWidgetItem* item) {
        Q_EMIT problemActivated(item->data(Qt::UserRole).toString());
    });
    auto* top = new QHBoxLayout;
    top->addWidget(m_summary, 1);
    top->addWidget(m_launch);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addLayout(top);
    layout->addWidget(m_problems);
    connect(document, &app::ExperimentDocument::validationChanged, this, &ValidationPanel::refresh);
    refresh();
}

void ValidationPanel::setLaunchBlocker(const QString& reason)
{
    m_blocker = reason;
    refresh();
}

bool ValidationPanel::launchEnabled() const { return m_launch->isEnabled(); }

void ValidationPanel::refresh()
{
    const app::Validation& v = m_document->validation();
    m_problems->clear();
    for (const auto& p : v.problems) {
        auto* item = new QListWidgetItem(style()->standardIcon(QStyle::SP_MessageBoxCritical), p.labelled(), m_problems);
        item->setData(Qt::UserRole, p.path);
    }
    for (const auto& n : v.notes) {
        auto* item = new QListWidgetItem(style()->standardIcon(QStyle::SP_MessageBoxInformation), n.labelled(), m_problems);
        item->setData(Qt::UserRole, n.path);
    }
    m_problems->setVisible(m_problems->count() > 0);
    QString summary;
    if (v.ok() && v.workers > 1)
        summary = tr("Ready: %1, %2 workers, %n replica(s) in all, global batch %3.", nullptr, v.replicas)
                      .arg(v.strategy)
                      .arg(v.workers)
                      .arg(v.globalBatch);
    else if (v.ok())
        summary = tr("Ready: %1, %n replica(s), global batch %2.", nullptr, v.replicas).arg(v.strategy).arg(v.globalBatch);
    else
        summary = tr("%n problem(s) to fix before launching.", nullptr, static_cast<int>(v.problems.size()));
    if (!m_blocker.isEmpty())
        summary += ' ' + m_blocker;
    m_summary->setText(summary);
    m_launch->setEnabled(v.ok() && m_blocker.isEmpty());
    m_launch->setToolTip(v.ok() ? m_blocker : tr("Fix the problems listed first"));
}

} // namespace strata::ui
