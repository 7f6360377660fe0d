#pragma once
// A plot's controls, made once and offered twice: as its right-click menu and as a small
// toolbar shown while the mouse is over the plot (TensorBoard's and W&B's habit). The same
// QActions back both, so a control reads and behaves alike wherever the user finds it.
// Fit, log y and maximise are offered as asked (PlotControls::Options); export image and
// export data always. The owner connects the actions' triggered/toggled.

#include <QObject>

#include <functional>

class QAction;
class QMenu;
class QWidget;

namespace strata::ui {

class PlotControls : public QObject {
    Q_OBJECT

public:
    struct Options {
        bool logY = true;
        bool maximise = false;
        bool csv = true;
    };
    // `plot`: the widget the toolbar floats over (its parent); hidden until shown.
    PlotControls(QWidget* plot, const Options& options);

    QAction* fit() const { return m_fit; }
    QAction* logY() const { return m_logY; }         // checkable
    QAction* maximise() const { return m_maximise; } // checkable
    QAction* exportImage() const { return m_exportImage; }
    QAction* exportCsv() const { return m_exportCsv; }

    void setOptions(const Options& options);
    // The menu, with `extend`'s items after the common ones; the caller owns it.
    QMenu* buildMenu(QWidget* parent, const std::function<void(QMenu&)>& extend) const;
    QWidget* toolbar() const { return m_toolbar; }
    // Puts the toolbar in the top right corner of its plot (call on resize).
    void placeToolbar();
    // The icons follow the plot's palette.
    void updateIcons();

private:
    QWidget* m_plot;
    QWidget* m_toolbar;
    QAction* m_fit;
    QAction* m_logY;
    QAction* m_maximise;
    QAction* m_exportImage;
    QAction* m_exportCsv;
};

} // namespace strata::ui
