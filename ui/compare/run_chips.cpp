#include "ui/compare/run_chips.h"

#include "ui/compare/flow_layout.h"
#include "ui/compare/run_swatch.h"

#include <QToolButton>

namespace strata::ui {

namespace {
// A chip's label at most this wide: a long run name is elided in the middle, where runs of a
// sweep differ least ("#12 fashion-mnist-mlp-Mirrored x2" keeps its ends).
constexpr int kLabelWidth = 220;
} // namespace

RunChips::RunChips(QWidget* parent) : QWidget(parent), m_layout(new FlowLayout(this))
{
    setObjectName("runChips");
}

void RunChips::setRuns(const QStringList& labels, const QList<QColor>& colours)
{
    qDeleteAll(m_chips);
    m_chips.clear();
    m_colours = colours;
    for (int run = 0; run < labels.size(); ++run) {
        auto* chip = new QToolButton(this);
        chip->setObjectName("runChip");
        chip->setCheckable(true);
        chip->setChecked(true);
        chip->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
        chip->setText(fontMetrics().elidedText(labels[run], Qt::ElideMiddle, kLabelWidth));
        chip->setAccessibleName(labels[run]);
        chip->setProperty("runLabel", labels[run]);
        connect(chip, &QToolButton::toggled, this, [this, run](bool shown) {
            style(run);
            Q_EMIT runShownChanged(run, shown);
        });
        m_layout->addWidget(chip);
        m_chips << chip;
        style(run);
    }
    updateGeometry();
}

void RunChips::setColours(const QList<QColor>& colours)
{
    m_colours = colours;
    for (int run = 0; run < m_chips.size(); ++run)
        style(run);
}

bool RunChips::isRunShown(int run) const
{
    return m_chips.value(run) && m_chips[run]->isChecked();
}

void RunChips::style(int run)
{
    QToolButton* chip = m_chips[run];
    const QColor colour = m_colours.value(run, palette().color(QPalette::Text));
    const bool shown = chip->isChecked();
    chip->setIcon(runSwatch(colour, shown));
    const QString label = chip->property("runLabel").toString();
    chip->setToolTip(shown ? tr("%1: shown on the plots; click to hide it").arg(label)
                           : tr("%1: hidden from the plots; click to show it").arg(label));
    // A rounded outline in the run's colour, tinted while the run is shown; a hidden run's name greyed.
    QColor tint = colour;
    tint.setAlpha(40);
    chip->setStyleSheet(
        QStringLiteral("QToolButton { border: 1px solid %1; border-radius: 10px; padding: 2px 8px; background: %2; "
                       "color: %3; }")
            .arg(colour.name(), shown ? tint.name(QColor::HexArgb) : QStringLiteral("transparent"),
                 palette().color(shown ? QPalette::Active : QPalette::Disabled, QPalette::WindowText).name()));
}

} // namespace strata::ui
