#pragma once
// A strip at the top of the window for errors and notices: visible until dismissed or
// replaced, never a modal box that blocks the live dashboard behind it. Its colours follow the
// application's palette (light or dark).

#include <QFrame>

class QLabel;

namespace strata::ui {

class MessageBanner : public QFrame {
    Q_OBJECT

public:
    enum class Kind { Info, Error };

    explicit MessageBanner(QWidget* parent = nullptr);
    void show(Kind kind, const QString& text);
    void showError(const QString& text) { show(Kind::Error, text); }
    void showInfo(const QString& text) { show(Kind::Info, text); }
    QString text() const;
    Kind kind() const { return m_kind; }

    // Its colour now (light or dark, as the palette is).
    QColor background() const;

protected:
    void paintEvent(QPaintEvent* event) override;

private:
    QLabel* m_label;
    Kind m_kind = Kind::Info;
};

} // namespace strata::ui
