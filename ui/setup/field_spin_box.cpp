#include "ui/setup/field_spin_box.h"

#include <QLineEdit>
#include <QStyle>
#include <QStyleOptionSpinBox>

#include <limits>

namespace strata::ui {

FieldSpinBox::FieldSpinBox(QWidget* parent) : QSpinBox(parent)
{
    // The spin box's own range holds any value; the allowed one is ours.
    QSpinBox::setRange(std::numeric_limits<int>::min(), std::numeric_limits<int>::max());
}

void FieldSpinBox::setAllowedRange(int minimum, int maximum)
{
    m_minimum = minimum;
    m_maximum = std::max(minimum, maximum);
    updateGeometry();
    lineEdit()->setText(textFromValue(value())); // the special text may now apply
}

void FieldSpinBox::setSpecialText(const QString& text)
{
    m_special = text;
    updateGeometry();
    lineEdit()->setText(textFromValue(value()));
}

void FieldSpinBox::setNumberPrefix(const QString& prefix)
{
    m_prefix = prefix;
    updateGeometry();
    lineEdit()->setText(textFromValue(value()));
}

void FieldSpinBox::setNumberSuffix(const QString& suffix)
{
    m_suffix = suffix;
    updateGeometry();
    lineEdit()->setText(textFromValue(value()));
}

std::optional<int> FieldSpinBox::number(const QString& text) const
{
    QString digits = text.trimmed();
    if (!m_prefix.isEmpty() && digits.startsWith(m_prefix.trimmed()))
        digits = digits.mid(m_prefix.trimmed().size());
    if (!m_suffix.isEmpty() && digits.endsWith(m_suffix.trimmed()))
        digits.chop(m_suffix.trimmed().size());
    digits = digits.trimmed().remove(locale().groupSeparator());
    bool ok = false;
    const int value = locale().toInt(digits, &ok);
    return ok ? std::optional<int>(value) : std::nullopt;
}

QValidator::State FieldSpinBox::validate(QString& text, int&) const
{
    if (!m_special.isEmpty() && text == m_special)
        return QValidator::Acceptable;
    if (number(text))
        return QValidator::Acceptable;
    const QString bare = text.trimmed();
    // On the way to a number or to the special text.
    if (bare.isEmpty() || bare == QLatin1String("-") || bare == QLatin1String("+") || m_prefix.startsWith(text) ||
        (!m_special.isEmpty() && m_special.startsWith(text)))
        return QValidator::Intermediate;
    return QValidator::Invalid;
}

int FieldSpinBox::valueFromText(const QString& text) const
{
    if (!m_special.isEmpty() && text == m_special)
        return m_minimum;
    return number(text).value_or(value());
}

QString FieldSpinBox::textFromValue(int value) const
{
    if (!m_special.isEmpty() && value == m_minimum)
        return m_special;
    return m_prefix + QSpinBox::textFromValue(value) + m_suffix;
}

void FieldSpinBox::stepBy(int steps)
{
    // From a value outside the range, the first step goes to its nearest end.
    const qint64 next = qint64(value()) + qint64(steps) * singleStep();
    setValue(int(std::clamp<qint64>(next, m_minimum, m_maximum)));
    selectAll();
}

QAbstractSpinBox::StepEnabled FieldSpinBox::stepEnabled() const
{
    if (isReadOnly())
        return StepNone;
    StepEnabled enabled = StepNone;
    if (value() < m_maximum)
        enabled |= StepUpEnabled;
    if (value() > m_minimum)
        enabled |= StepDownEnabled;
    return enabled;
}

QSize FieldSpinBox::sizeHint() const
{
    // As QAbstractSpinBox's, from the texts of the allowed range rather than of its own.
    ensurePolished();
    const QFontMetrics metrics(fontMetrics());
    int width = metrics.horizontalAdvance(m_special + u' ');
    for (const int value : {m_minimum, m_maximum})
        width = std::max(width, metrics.horizontalAdvance(textFromValue(value).left(18) + u' '));
    QStyleOptionSpinBox option;
    initStyleOption(&option);
    const QSize hint(width + 2, lineEdit()->sizeHint().height());
    return style()->sizeFromContents(QStyle::CT_SpinBox, &option, hint, this);
}

QSize FieldSpinBox::minimumSizeHint() const { return sizeHint(); }

} // namespace strata::ui
