#include "app/experiment/ints_text.h"

#include <QRegularExpression>
#include <QStringList>
#include <QVariantList>

namespace strata::app {

namespace {
void appendText(const QVariant& v, QStringList& parts)
{
    if (v.typeId() == QMetaType::QVariantList) {
        for (const auto& item : v.toList())
            appendText(item, parts);
    } else {
        parts << (v.isValid() && !v.isNull() ? v.toString() : QStringLiteral("None"));
    }
}

bool isNullWord(const QString& word)
{
    return word.compare("None", Qt::CaseInsensitive) == 0 || word.compare("null", Qt::CaseInsensitive) == 0;
}
} // namespace

QString intsText(const QVariant& value)
{
    if (!value.isValid())
        return {};
    QStringList parts;
    appendText(value, parts);
    return parts.join(", ");
}

std::optional<QVariant> parseInts(const QString& text, IntsForm form)
{
    QString plain = text;
    plain.remove(QRegularExpression(QStringLiteral("[\\[\\]()]")));
    if (plain.trimmed().isEmpty())
        return QVariant();
    QVariantList values;
    // Empty parts are skipped: "28," while typing is [28].
    for (const auto& part : plain.split(',', Qt::SkipEmptyParts)) {
        const QString word = part.trimmed();
        if (word.isEmpty())
            continue;
        if (form == IntsForm::DimList && isNullWord(word)) {
            values << QVariant::fromValue(nullptr);
            continue;
        }
        bool ok = false;
        const qlonglong v = word.toLongLong(&ok);
        if (!ok)
            return std::nullopt;
        values << v;
    }
    if (values.isEmpty())
        return QVariant();
    switch (form) {
    case IntsForm::List:
    case IntsForm::DimList: return QVariant(values);
    case IntsForm::IntOrPair:
        if (values.size() > 2)
            return std::nullopt;
        return values.size() == 1 ? values.front() : QVariant(values);
    case IntsForm::Padding2D:
        if (values.size() == 1)
            return values.front();
        if (values.size() == 2)
            return QVariant(values);
        if (values.size() == 4)
            return QVariant(QVariantList{QVariantList{values[0], values[1]}, QVariantList{values[2], values[3]}});
        return std::nullopt;
    }
    return std::nullopt;
}

} // namespace strata::app
