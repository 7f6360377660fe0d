#include "ui/plot/plot_image.h"

#include <qcustomplot.h>

#include <QCoreApplication>
#include <QFileInfo>
#include <QImage>
#include <QPageSize>
#include <QPainter>
#include <QPdfWriter>
#include <QSvgGenerator>

namespace strata::ui {

namespace {
QString tr(const char* text) { return QCoreApplication::translate("strata::ui::SeriesPlot", text); }

enum class Format { Png, Svg, Pdf, Unknown };

Format formatOf(const QString& path)
{
    const QString suffix = QFileInfo(path).suffix().toLower();
    return suffix == "png" ? Format::Png : suffix == "svg" ? Format::Svg : suffix == "pdf" ? Format::Pdf : Format::Unknown;
}

bool unknownFormat(const QString& path, QString* error)
{
    if (error)
        *error = tr("Cannot export %1: the file name must end in .png, .svg or .pdf").arg(path);
    return false;
}

// The writers only say whether it worked: check the file is there.
bool written(bool ok, const QString& path, QString* error)
{
    if (!ok || !QFileInfo(path).isFile() || QFileInfo(path).size() == 0) {
        if (error)
            *error = tr("Cannot write %1: check that its folder exists and is writable").arg(path);
        return false;
    }
    return true;
}
} // namespace

bool savePlotImage(QCustomPlot* plot, const QString& path, const QString& title, QString* error)
{
    const int width = std::max(plot->width(), 800), height = std::max(plot->height(), 500);
    bool ok = false;
    switch (formatOf(path)) {
    case Format::Png:
        ok = plot->savePng(path, width, height);
        break;
    case Format::Pdf:
        ok = plot->savePdf(path, width, height, QCP::epAllowCosmetic, QStringLiteral("Strata"), title);
        break;
    case Format::Svg: {
        QSvgGenerator svg;
        svg.setFileName(path);
        svg.setSize(QSize(width, height));
        svg.setViewBox(QRect(0, 0, width, height));
        svg.setTitle(title);
        QCPPainter painter;
        ok = painter.begin(&svg);
        if (ok) {
            plot->toPainter(&painter, width, height);
            ok = painter.end();
        }
        break;
    }
    case Format::Unknown:
        return unknownFormat(path, error);
    }
    return written(ok, path, error);
}

bool savePaintedImage(const QString& path, const QSize& size, const QString& title,
                      const std::function<void(QPainter&)>& paint, QString* error)
{
    // A vector device reports a failed begin or end (file not writable, full disk).
    const auto paintOn = [&](QPaintDevice& device) {
        QPainter painter;
        if (!painter.begin(&device))
            return false;
        paint(painter);
        return painter.end();
    };
    bool ok = false;
    switch (formatOf(path)) {
    case Format::Png: {
        QImage image(size * 2, QImage::Format_ARGB32_Premultiplied);
        image.setDevicePixelRatio(2);
        image.fill(Qt::transparent);
        QPainter painter(&image);
        paint(painter);
        painter.end();
        ok = image.save(path, "PNG");
        break;
    }
    case Format::Svg: {
        QSvgGenerator svg;
        svg.setFileName(path);
        svg.setSize(size);
        svg.setViewBox(QRect(QPoint(0, 0), size));
        svg.setTitle(title);
        ok = paintOn(svg);
        break;
    }
    case Format::Pdf: {
        QPdfWriter pdf(path);
        pdf.setCreator(QStringLiteral("Strata"));
        pdf.setTitle(title);
        pdf.setResolution(72); // a logical pixel is a point
        pdf.setPageSize(QPageSize(QSizeF(size), QPageSize::Point));
        pdf.setPageMargins(QMarginsF(0, 0, 0, 0));
        ok = paintOn(pdf);
        break;
    }
    case Format::Unknown:
        return unknownFormat(path, error);
    }
    return written(ok, path, error);
}

} // namespace strata::ui
