#include "ui/shell/theme.h"

#include <algorithm>
#include <iterator>

namespace strata::ui::theme {

namespace {
const QColor kTableau[] = {QColor(0x1f, 0x77, 0xb4), QColor(0xff, 0x7f, 0x0e), QColor(0x2c, 0xa0, 0x2c),
                           QColor(0xd6, 0x27, 0x28), QColor(0x94, 0x67, 0xbd), QColor(0x8c, 0x56, 0x4b),
                           QColor(0xe3, 0x77, 0xc2), QColor(0x7f, 0x7f, 0x7f), QColor(0xbc, 0xbd, 0x22),
                           QColor(0x17, 0xbe, 0xcf)};
} // namespace

bool isDark(const QPalette& palette)
{
    return palette.color(QPalette::Window).lightness() < palette.color(QPalette::WindowText).lightness();
}

QColor series(int index, const QPalette& palette)
{
    const QColor c = kTableau[size_t(std::max(index, 0)) % std::size(kTableau)];
    // Tableau's blue and brown are too dim on a dark base.
    return isDark(palette) ? c.lighter(135) : c;
}

QPalette darkPalette()
{
    QPalette p;
    const QColor window(0x2d, 0x2f, 0x33), base(0x1f, 0x21, 0x24), text(0xe6, 0xe6, 0xe6);
    p.setColor(QPalette::Window, window);
    p.setColor(QPalette::WindowText, text);
    p.setColor(QPalette::Base, base);
    p.setColor(QPalette::AlternateBase, QColor(0x29, 0x2b, 0x2f));
    p.setColor(QPalette::ToolTipBase, window);
    p.setColor(QPalette::ToolTipText, text);
    p.setColor(QPalette::PlaceholderText, QColor(0x9a, 0x9a, 0x9a));
    p.setColor(QPalette::Text, text);
    p.setColor(QPalette::Button, QColor(0x3a, 0x3d, 0x42));
    p.setColor(QPalette::ButtonText, text);
    p.setColor(QPalette::BrightText, Qt::white);
    p.setColor(QPalette::Light, QColor(0x4a, 0x4d, 0x52));
    p.setColor(QPalette::Midlight, QColor(0x40, 0x43, 0x48));
    p.setColor(QPalette::Mid, QColor(0x5a, 0x5d, 0x62));
    p.setColor(QPalette::Dark, QColor(0x18, 0x19, 0x1b));
    p.setColor(QPalette::Shadow, Qt::black);
    p.setColor(QPalette::Highlight, QColor(0x3d, 0x8e, 0xd9));
    p.setColor(QPalette::HighlightedText, Qt::white);
    p.setColor(QPalette::Link, QColor(0x6c, 0xb4, 0xf5));
    for (const QPalette::ColorRole role : {QPalette::WindowText, QPalette::Text, QPalette::ButtonText})
        p.setColor(QPalette::Disabled, role, QColor(0x80, 0x80, 0x80));
    return p;
}

QColor error(const QPalette& palette) { return isDark(palette) ? QColor(0xf1, 0x94, 0x8a) : QColor(0xb0, 0x3a, 0x2e); }

QColor warning(const QPalette& palette) { return isDark(palette) ? QColor(0xf5, 0xc1, 0x6c) : QColor(0xb9, 0x77, 0x0e); }

QColor success(const QPalette& palette) { return isDark(palette) ? QColor(0x6f, 0xcf, 0x86) : QColor(0x2e, 0x8b, 0x4a); }

QColor errorBackground(const QPalette& palette) { return isDark(palette) ? QColor(0x5c, 0x24, 0x21) : QColor(0xfd, 0xe2, 0xe1); }

QColor infoBackground(const QPalette& palette) { return isDark(palette) ? QColor(0x1d, 0x3b, 0x57) : QColor(0xe3, 0xf0, 0xfb); }

QColor errorBorder(const QPalette&) { return QColor(0xd9, 0x53, 0x4f); }

QColor infoBorder(const QPalette&) { return QColor(0x5b, 0x9b, 0xd5); }

} // namespace strata::ui::theme
