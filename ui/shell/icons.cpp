#include "ui/shell/icons.h"

#include <QFile>
#include <QPainter>
#include <QPixmap>
#include <QSvgRenderer>

namespace strata::ui::icons {

namespace {
// The sizes the window shows icons at (page list, toolbar, menus), and their high-DPI doubles.
constexpr int kSizes[] = {16, 20, 24, 32, 40, 48};

QIcon render(const QByteArray& svg)
{
    QSvgRenderer renderer(svg);
    if (!renderer.isValid())
        return {};
    QIcon icon;
    for (const int size : kSizes) {
        QPixmap pixmap(size, size);
        pixmap.fill(Qt::transparent);
        QPainter painter(&pixmap);
        renderer.render(&painter);
        painter.end();
        icon.addPixmap(pixmap);
    }
    return icon;
}
} // namespace

QIcon icon(const QString& name, const QPalette& palette)
{
    QFile file(QStringLiteral(":/icons/ui/%1.svg").arg(name));
    if (!file.open(QIODevice::ReadOnly))
        return {};
    QByteArray svg = file.readAll();
    svg.replace("currentColor", palette.color(QPalette::WindowText).name().toLatin1());
    return render(svg);
}

QIcon appIcon()
{
    QFile file(QStringLiteral(":/icons/strata.svg"));
    return file.open(QIODevice::ReadOnly) ? render(file.readAll()) : QIcon();
}

} // namespace strata::ui::icons
