#include "ui/setup/field_binding.h"

#include "app/experiment/catalogs.h"
#include "app/experiment/field_labels.h"
#include "ui/setup/field_marks.h"
#include "ui/setup/field_spin_box.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleValidator>
#include <QLineEdit>
#include <QLocale>
#include <QSignalBlocker>

#include <functional>

namespace strata::ui {

namespace {
// Shows the document's value now and after every document change, and marks the editor while
// its field has problems; the editor's own signal, connected by the caller, writes back.
void follow(QWidget* editor, app::ExperimentDocument* document, const QString& pointer,
            const std::function<void(const QVariant&)>& show)
{
    auto refresh = [editor, document, pointer, show] {
        const QSignalBlocker blocker(editor);
        show(document->get(pointer));
    };
    refresh();
    QObject::connect(document, &app::ExperimentDocument::changed, editor, refresh);
    markProblems(editor, document, app::fieldPath(pointer));
}

void showNumber(FieldSpinBox* editor, int value)
{
    if (editor->value() != value)
        editor->setValue(value);
}

// The engine's default for the field; a field the table lacks is a mistake in the page, said.
QVariant engineDefault(const QString& pointer)
{
    const QVariant value = app::fieldDefault(pointer);
    if (!value.isValid())
        qWarning("%s has no default in the engine's table (strata/schema/defaults.h)", qPrintable(pointer));
    return value;
}
} // namespace

void bindSpinBox(FieldSpinBox* editor, app::ExperimentDocument* document, const QString& pointer, int absent)
{
    follow(editor, document, pointer,
           [editor, absent](const QVariant& v) { showNumber(editor, v.isValid() ? v.toInt() : absent); });
    QObject::connect(editor, &QSpinBox::valueChanged, document,
                     [document, pointer](int value) { document->setValue(pointer, value); });
}

void bindOptionalSpinBox(FieldSpinBox* editor, app::ExperimentDocument* document, const QString& pointer)
{
    follow(editor, document, pointer,
           [editor](const QVariant& v) { showNumber(editor, v.isValid() ? v.toInt() : editor->allowedMinimum()); });
    QObject::connect(editor, &QSpinBox::valueChanged, document, [editor, document, pointer](int value) {
        document->setValue(pointer, value == editor->allowedMinimum() ? QVariant() : QVariant(value));
    });
}

void bindScaledSpinBox(FieldSpinBox* editor, app::ExperimentDocument* document, const QString& pointer,
                       qint64 absent, qint64 unit, const QString& word)
{
    follow(editor, document, pointer, [editor, absent, unit, word](const QVariant& v) {
        if (!word.isEmpty() && v.typeId() == QMetaType::QString && v.toString() == word) {
            showNumber(editor, editor->allowedMinimum());
            setTextProblem(editor, {});
            return;
        }
        const qint64 value = v.isValid() ? v.toLongLong() : absent;
        showNumber(editor, int(value / unit));
        setTextProblem(editor, value % unit == 0 ? QString()
                                                 : QObject::tr("%1 bytes in the file, not a whole number of "
                                                               "%2-byte units: shown rounded down")
                                                       .arg(value)
                                                       .arg(unit));
    });
    QObject::connect(editor, &QSpinBox::valueChanged, document, [editor, document, pointer, unit, word](int value) {
        document->setValue(pointer, !word.isEmpty() && value == editor->allowedMinimum() ? QVariant(word)
                                                                                          : QVariant(qint64(value) * unit));
    });
}

void bindComboBox(QComboBox* editor, app::ExperimentDocument* document, const QString& pointer,
                  const QString& absent)
{
    follow(editor, document, pointer, [editor, absent](const QVariant& v) {
        const QString value = v.isValid() ? v.toString() : absent;
        int index = editor->findData(value);
        if (index < 0)
            index = editor->findText(value);
        if (index < 0) { // a value the list does not offer (a hand-edited file): shown, flagged by validation
            editor->addItem(value, value);
            index = editor->count() - 1;
        }
        editor->setCurrentIndex(index);
    });
    QObject::connect(editor, &QComboBox::activated, document, [editor, document, pointer](int index) {
        const QVariant data = editor->itemData(index);
        const QString value = data.isValid() ? data.toString() : editor->itemText(index);
        document->setValue(pointer, value.isEmpty() ? QVariant() : QVariant(value));
    });
}

void bindCheckBox(QCheckBox* editor, app::ExperimentDocument* document, const QString& pointer, bool absent)
{
    follow(editor, document, pointer,
           [editor, absent](const QVariant& v) { editor->setChecked(v.isValid() ? v.toBool() : absent); });
    QObject::connect(editor, &QCheckBox::toggled, document,
                     [document, pointer](bool checked) { document->setValue(pointer, checked); });
}

void bindLineEdit(QLineEdit* editor, app::ExperimentDocument* document, const QString& pointer)
{
    follow(editor, document, pointer, [editor](const QVariant& v) {
        if (editor->text() != v.toString())
            editor->setText(v.toString());
    });
    QObject::connect(editor, &QLineEdit::textEdited, document, [document, pointer](const QString& text) {
        document->setValue(pointer, text.isEmpty() ? QVariant() : QVariant(text));
    });
}

void bindNumberEdit(QLineEdit* editor, app::ExperimentDocument* document, const QString& pointer)
{
    auto* validator = new QDoubleValidator(editor);
    validator->setLocale(QLocale::c());
    validator->setNotation(QDoubleValidator::ScientificNotation);
    editor->setValidator(validator);
    follow(editor, document, pointer, [editor](const QVariant& v) {
        const QString text = v.isValid() ? QString::number(v.toDouble(), 'g', 10) : QString();
        if (editor->text().toDouble() != v.toDouble() || editor->text().isEmpty() != text.isEmpty())
            editor->setText(text);
        setTextProblem(editor, {});
    });
    QObject::connect(editor, &QLineEdit::textEdited, document, [editor, document, pointer](const QString& text) {
        bool ok = false;
        const double value = QLocale::c().toDouble(text, &ok);
        setTextProblem(editor, ok || text.isEmpty() ? QString() : QObject::tr("not a number"));
        if (text.isEmpty())
            document->setValue(pointer, QVariant());
        else if (ok)
            document->setValue(pointer, value);
    });
}

void bindIntsEdit(QLineEdit* editor, app::ExperimentDocument* document, const QString& pointer, IntsForm form)
{
    follow(editor, document, pointer, [editor, form](const QVariant& v) {
        const QString text = app::intsText(v);
        // Text that reads as the value stays as typed ("28,28" or a padding's "1" kept).
        const auto typed = app::parseInts(editor->text(), form);
        if (!typed || app::intsText(*typed) != text)
            editor->setText(text);
        setTextProblem(editor, {});
    });
    QObject::connect(editor, &QLineEdit::textEdited, document, [editor, document, pointer, form](const QString& text) {
        const auto value = app::parseInts(text, form);
        setTextProblem(editor, value ? QString() : QObject::tr("not integers in the form shown (e.g. 28, 28)"));
        if (value)
            document->setValue(pointer, *value);
    });
}

void bindSpinBox(FieldSpinBox* editor, app::ExperimentDocument* document, const QString& pointer)
{
    bindSpinBox(editor, document, pointer, engineDefault(pointer).toInt());
}

void bindComboBox(QComboBox* editor, app::ExperimentDocument* document, const QString& pointer)
{
    bindComboBox(editor, document, pointer, engineDefault(pointer).toString());
}

void bindCheckBox(QCheckBox* editor, app::ExperimentDocument* document, const QString& pointer)
{
    bindCheckBox(editor, document, pointer, engineDefault(pointer).toBool());
}

} // namespace strata::ui
