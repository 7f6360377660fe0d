#include "ui/dashboard/headline_view.h"

#include "app/metrics/display_text.h"

#include <QFrame>
#include <QHBoxLayout>
#include <QLabel>
#include <QLocale>
#include <QVBoxLayout>

#include <cmath>

namespace strata::ui {

namespace {
QString figure(double value, int decimals = 4)
{
    return std::isfinite(value) ? QString::number(value, 'f', decimals) : QStringLiteral("\u2014");
}

// A metric's name as a caption: "sparse_categorical_accuracy" -> "Sparse categorical accuracy".
QString sentence(QString name)
{
    name.replace('_', ' ');
    if (!name.isEmpty())
        name[0] = name[0].toUpper();
    return name;
}

QString rate(double value)
{
    if (!std::isfinite(value))
        return QStringLiteral("\u2014");
    return value >= 1e4 ? QStringLiteral("%1k").arg(value / 1e3, 0, 'f', value >= 1e5 ? 0 : 1)
                        : QLocale().toString(value, 'f', 0);
}
} // namespace

HeadlineView::HeadlineView(QWidget* parent) : QWidget(parent)
{
    setObjectName("headline");
    auto* layout = new QHBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(6);
    m_loss = addTile("loss", tr("Loss"));
    m_accuracy = addTile("accuracy", tr("Accuracy"));
    m_throughput = addTile("throughput", tr("Samples/s"));
    m_epoch = addTile("epoch", tr("Epoch"));
    m_time = addTile("time", tr("Elapsed"));
    m_test = addTile("test", tr("Test"));
    refresh({}, {});
}

HeadlineView::Tile HeadlineView::addTile(const QString& name, const QString& caption)
{
    auto* frame = new QFrame(this);
    frame->setObjectName(name + "Tile");
    frame->setFrameShape(QFrame::StyledPanel);
    auto* column = new QVBoxLayout(frame);
    column->setContentsMargins(10, 4, 10, 4);
    column->setSpacing(0);
    Tile tile{new QLabel(caption, frame), new QLabel(frame), new QLabel(frame)};
    tile.value->setObjectName(name + "Value");
    tile.detail->setObjectName(name + "Detail");
    QFont large = font();
    large.setPointSizeF(font().pointSizeF() * 1.9);
    large.setBold(true);
    tile.value->setFont(large);
    QPalette muted = palette();
    muted.setColor(QPalette::WindowText, palette().color(QPalette::Disabled, QPalette::WindowText));
    tile.caption->setPalette(muted);
    tile.detail->setPalette(muted);
    for (QLabel* label : {tile.caption, tile.value, tile.detail})
        column->addWidget(label);
    static_cast<QHBoxLayout*>(layout())->addWidget(frame, 1);
    return tile;
}

void HeadlineView::refresh(const app::Headline& h, const app::Progress& p)
{
    m_loss.value->setText(figure(h.loss));
    m_loss.detail->setText(tr("validation %1").arg(figure(h.validationLoss)));
    m_accuracy.caption->setText(h.accuracyName.isEmpty() ? tr("Accuracy") : sentence(h.accuracyName));
    m_accuracy.value->setText(figure(h.accuracy));
    m_accuracy.detail->setText(tr("validation %1").arg(figure(h.validationAccuracy)));
    m_throughput.value->setText(rate(h.samplesPerSec));
    m_throughput.detail->setText(tr("the job's, latest"));
    m_epoch.value->setText(h.epochs > 0 ? tr("%1 / %2").arg(h.epoch).arg(h.epochs) : figure(NAN));
    m_epoch.detail->setText(p.totalSteps > 0 ? tr("step %1 / %2").arg(p.step).arg(p.totalSteps) : QString());
    m_time.value->setText(p.elapsedSeconds > 0 ? app::clockText(p.elapsedSeconds) : figure(NAN));
    m_time.detail->setText(p.etaSeconds >= 0 ? tr("ETA %1").arg(app::clockText(p.etaSeconds)) : tr("ETA \u2014"));
    const bool tested = std::isfinite(h.testLoss) || std::isfinite(h.testAccuracy);
    m_test.value->setText(std::isfinite(h.testAccuracy) ? figure(h.testAccuracy) : figure(h.testLoss));
    m_test.caption->setText(std::isfinite(h.testAccuracy) ? tr("Test %1").arg(QString(h.accuracyName).replace('_', ' ')) : tr("Test loss"));
    m_test.detail->setText(tested && std::isfinite(h.testAccuracy) ? tr("loss %1").arg(figure(h.testLoss))
                                                                  : tested ? QString() : tr("after training"));
}

QString HeadlineView::value(const QString& name) const
{
    const auto* label = findChild<QLabel*>(name + "Value");
    return label ? label->text() : QString();
}

} // namespace strata::ui
