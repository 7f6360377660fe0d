// SeriesPlot's controls (menu and hover toolbar): maximise and the exports.
#include "ui/plot/series_plot.h"
#include "ui/plot/series_plot_private.h"

#include "app/metrics/plot_csv.h"
#include "ui/plot/plot_image.h"
#include "ui/shell/dialogs.h"

#include <QMenu>

namespace strata::ui {

void SeriesPlot::setDialogs(Dialogs* dialogs)
{
    d->dialogs = dialogs;
    d->controls->exportImage()->setEnabled(dialogs);
    d->controls->exportCsv()->setEnabled(dialogs && d->source);
}

void SeriesPlot::setMenuExtension(std::function<void(QMenu&)> extend)
{
    d->extendMenu = std::move(extend);
}

void SeriesPlot::setMaximizable(bool maximizable)
{
    d->controls->setOptions({.logY = true, .maximise = maximizable, .csv = true});
}

bool SeriesPlot::isMaximized() const
{
    return d->maximized;
}

void SeriesPlot::setMaximized(bool maximized)
{
    if (maximized == d->maximized)
        return;
    d->maximized = maximized;
    const QSignalBlocker quiet(d->controls->maximise());
    d->controls->maximise()->setChecked(maximized);
    d->controls->maximise()->setText(maximized ? tr("Restore") : tr("Maximise"));
    Q_EMIT maximizeToggled(maximized);
}

QMenu* SeriesPlot::buildMenu()
{
    return d->controls->buildMenu(this, d->extendMenu);
}

QWidget* SeriesPlot::hoverToolbar() const
{
    return d->controls->toolbar();
}

void SeriesPlot::exportImageAsked()
{
    askAndExport(tr("Export %1").arg(title()), title() + ".png", tr("PNG (*.png);;SVG (*.svg);;PDF (*.pdf)"),
                 &SeriesPlot::exportImage);
}

void SeriesPlot::exportCsvAsked()
{
    askAndExport(tr("Export %1 data").arg(title()), title() + ".csv", tr("CSV (*.csv)"), &SeriesPlot::exportCsv);
}

void SeriesPlot::askAndExport(const QString& question, const QString& suggested, const QString& filter,
                              bool (SeriesPlot::*write)(const QString&, QString*) const)
{
    const QString path = d->dialogs ? d->dialogs->saveFile(this, question, suggested, filter) : QString();
    if (path.isEmpty())
        return; // cancelled
    QString error;
    if ((this->*write)(path, &error))
        Q_EMIT message(tr("Wrote %1").arg(path), false);
    else
        Q_EMIT message(error, true);
}

bool SeriesPlot::exportImage(const QString& path, QString* error) const
{
    const bool crosshair = d->crosshair->visible();
    d->crosshair->setVisible(false);
    const bool ok = savePlotImage(d->plot, path, d->title->text(), error);
    d->crosshair->setVisible(crosshair);
    return ok;
}

bool SeriesPlot::exportCsv(const QString& path, QString* error) const
{
    if (!d->source) {
        if (error)
            *error = tr("Nothing to export: the plot has no data");
        return false;
    }
    return app::writePlotCsv(*d->source, d->plot->xAxis->label(), path, error);
}

} // namespace strata::ui
