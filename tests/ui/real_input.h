#pragma once
// Input as a user gives it: through the window system (the widget's top-level QWindow), so
// that Qt delivers it to the widget under the cursor with everything a real mouse brings:
// enter and leave events, and the context menu event of a right click. (QTest's QWidget
// overloads hand a QMouseEvent to the widget named, which a real mouse never does: a right
// click sent that way opens no context menu whatever the widget under the cursor does.)

#include "../event_deadline.h"

#include <QApplication>
#include <QMenu>
#include <QPointer>
#include <QTest>
#include <QTimer>
#include <QWheelEvent>
#include <QWidget>
#include <QWindow>

#include <functional>

namespace realinput {

inline QWindow* windowOf(QWidget* widget)
{
    return widget->window()->windowHandle();
}

inline QPoint inWindow(QWidget* widget, QPoint at)
{
    return widget->mapTo(widget->window(), at);
}

// The widget a click at `at` (in `widget`'s coordinates) reaches.
inline QWidget* under(QWidget* widget, QPoint at)
{
    return widget->window()->childAt(inWindow(widget, at));
}

// Qt drops a move to where the cursor already is (the last test may have left it there): a
// pixel beside first, as a hand arrives.
inline void move(QWidget* widget, QPoint at)
{
    QTest::mouseMove(windowOf(widget), inWindow(widget, at + QPoint(1, 1)));
    QTest::mouseMove(windowOf(widget), inWindow(widget, at));
}

inline void click(QWidget* widget, QPoint at, Qt::MouseButton button = Qt::LeftButton)
{
    QTest::mouseClick(windowOf(widget), button, {}, inWindow(widget, at));
}

inline void doubleClick(QWidget* widget, QPoint at)
{
    QTest::mouseDClick(windowOf(widget), Qt::LeftButton, {}, inWindow(widget, at));
}

// A left-button drag from `from` to `to`, in steps, as a hand moves.
inline void drag(QWidget* widget, QPoint from, QPoint to)
{
    QWindow* window = windowOf(widget);
    QTest::mousePress(window, Qt::LeftButton, {}, inWindow(widget, from));
    for (int i = 1; i <= 5; ++i)
        QTest::mouseMove(window, inWindow(widget, from + (to - from) * i / 5));
    QTest::mouseRelease(window, Qt::LeftButton, {}, inWindow(widget, to));
}

// A turn of the wheel at `at`: `notches` of 15 degrees, away from the user when positive (Qt 6.4's
// QTest has no wheel). Sent to the top-level QWindow, which hands it to the widget under the cursor.
inline void wheel(QWidget* widget, QPoint at, int notches)
{
    QWindow* window = windowOf(widget);
    const QPoint local = inWindow(widget, at);
    QWheelEvent event(local, window->mapToGlobal(local), QPoint(), QPoint(0, 120 * notches), Qt::NoButton, Qt::NoModifier,
                      Qt::NoScrollPhase, false);
    QCoreApplication::sendEvent(window, &event);
}

// Right-clicks `widget` at `at` and hands the context menu that opens to `use` (which may
// click one of its items; the menu is closed after). False when no menu opened.
inline bool withContextMenu(QWidget* widget, QPoint at, const std::function<void(QMenu*)>& use)
{
    bool opened = false;
    QTimer poll;
    poll.setInterval(10);
    QObject::connect(&poll, &QTimer::timeout, [&] {
        // Guarded: a menu that deletes itself on close (a line edit's) is gone once an item is clicked.
        QPointer<QMenu> menu = qobject_cast<QMenu*>(QApplication::activePopupWidget());
        if (!menu || !menu->isVisible())
            return;
        poll.stop();
        opened = true;
        use(menu);
        if (menu && menu->isVisible())
            menu->close();
    });
    poll.start();
    click(widget, at, Qt::RightButton);
    // A menu's exec() returns once it is closed; one shown without exec() is polled for here.
    (void)QTest::qWaitFor([&] { return opened; }, testing::kEventDeadlineMs);
    poll.stop();
    return opened;
}

// Clicks the item of `menu` whose text is `text` (a real click on the item's place).
inline bool clickMenuItem(QMenu* menu, const QString& text)
{
    for (QAction* action : menu->actions())
        if (action->text() == text && action->isVisible()) {
            QTest::mouseClick(menu->windowHandle(), Qt::LeftButton, {}, menu->actionGeometry(action).center());
            return true;
        }
    return false;
}

} // namespace realinput
