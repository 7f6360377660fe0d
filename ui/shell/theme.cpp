#include "ui/shell/theme.h"

#include <QApplication>
#include <QSettings>
#include <QStyle>

#include <algorithm>
#include <iterator>

namespace strata::ui::theme {

namespace {
const QColor kTableau[] = {QColor(0x1f, 0x77, 0xb4), QColor(0xff, 0x7f, 0x0e), QColor(0x2c, 0xa0, 0x2c),
                           QColor(0xd6, 0x27, 0x28), QColor(0x94, 0x67, 0xbd), QColor(0x8c, 0x56, 0x4b),
                           QColor(0xe3, 0x77, 0xc2), QColor(0x7f, 0x7f, 0x7f), QColor(0xbc, 0xbd, 0x22),
                           QColor(0x17, 0xbe, 0xcf)};

const QString kSchemeKey = QStringLiteral("appearance/theme");
const char* const kSchemeNames[] = {"desktop", "light", "dark"}; // by Scheme, as remembered
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

void applyScheme(Scheme scheme)
{
    switch (scheme) {
    // A palette that sets no role: the platform's, and the application follows its changes.
    case Scheme::Desktop: QApplication::setPalette(QPalette()); return;
    case Scheme::Light: QApplication::setPalette(QApplication::style()->standardPalette()); return;
    case Scheme::Dark: QApplication::setPalette(darkPalette()); return;
    }
}

void setScheme(Scheme scheme)
{
    applyScheme(scheme);
    QSettings().setValue(kSchemeKey, QString::fromLatin1(kSchemeNames[int(scheme)]));
}

Scheme savedScheme()
{
    const QString name = QSettings().value(kSchemeKey).toString();
    for (int s = 0; s < int(std::size(kSchemeNames)); ++s)
        if (name == QLatin1String(kSchemeNames[s]))
            return Scheme(s);
    return Scheme::Desktop;
}

QString styleSheet(const QPalette& palette)
{
    const bool dark = isDark(palette);
    const QColor window = palette.color(QPalette::Window);
    // The page list a shade off the pages, as a sidebar; hovered entries a shade further.
    const QColor sidebar = dark ? window.lighter(115) : window.darker(104);
    const QColor hover = dark ? sidebar.lighter(125) : sidebar.darker(108);
    const QColor dim = palette.color(QPalette::PlaceholderText);
    return QStringLiteral(
               "QListWidget#pageList { border: none; border-right: 1px solid %1; background: %2; padding: 4px; "
               "outline: 0; }\n"
               "QListWidget#pageList::item { padding: 5px 8px; margin: 1px 0px; border-radius: 4px; color: %3; }\n"
               "QListWidget#pageList::item:enabled:hover:!selected { background: %4; }\n"
               "QListWidget#pageList::item:selected { background: %5; color: %6; }\n"
               // The group headers (not enabled, so never selected).
               "QListWidget#pageList::item:disabled { color: %7; padding: 10px 8px 2px 8px; }\n"
               "QToolBar#runToolbar { spacing: 4px; padding: 2px 6px; border: none; }\n"
               "QToolBar#runToolbar QToolButton { padding: 3px 8px; border-radius: 4px; }\n"
               "QToolBar#runToolbar QToolButton:hover { background: %4; }\n"
               "QStatusBar { color: %7; }\n")
        .arg(palette.color(QPalette::Mid).name(), sidebar.name(), palette.color(QPalette::WindowText).name(),
             hover.name(), palette.color(QPalette::Highlight).name(),
             palette.color(QPalette::HighlightedText).name(), dim.name());
}

} // namespace strata::ui::theme
