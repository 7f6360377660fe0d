#pragma once
// A spin box for an integer field of the document that never shows a value other than the
// document's: any integer is taken, shown and written, also outside the field's allowed
// range (validation names the problem and the field is marked, field_marks.h); nothing is
// clamped or reverted. The allowed range bounds the arrows and the keys that step, and sizes
// the box; the special text ("never", "all") is shown for the allowed minimum, without the
// number's prefix and suffix.

#include <QSpinBox>

namespace strata::ui {

class FieldSpinBox : public QSpinBox {
    Q_OBJECT

public:
    explicit FieldSpinBox(QWidget* parent = nullptr);

    void setAllowedRange(int minimum, int maximum);
    int allowedMinimum() const { return m_minimum; }
    int allowedMaximum() const { return m_maximum; }
    // Shown for the allowed minimum, and typed for it.
    void setSpecialText(const QString& text);
    // Around the number ("k = 2", "30 s"); not around the special text.
    void setNumberPrefix(const QString& prefix);
    void setNumberSuffix(const QString& suffix);

    QSize sizeHint() const override;
    QSize minimumSizeHint() const override;

protected:
    QValidator::State validate(QString& text, int& pos) const override;
    int valueFromText(const QString& text) const override;
    QString textFromValue(int value) const override;
    void stepBy(int steps) override;
    StepEnabled stepEnabled() const override;

private:
    // The number in `text` (prefix, suffix and group separators allowed), if it is one.
    std::optional<int> number(const QString& text) const;

    int m_minimum = 0, m_maximum = 99;
    QString m_special, m_prefix, m_suffix;
};

} // namespace strata::ui
