#pragma once
// Keeps an editor and one field of the experiment in step: the user's edits go to the
// document (undoable), and document changes (undo, open, import) come back to the editor.
// An editor showing a field that is absent shows the field's default. Every editor shows the
// document's value as it is, a wrong one too, and is marked while validation finds a problem
// with its field (field_marks.h).

#include "app/experiment/experiment_document.h"
#include "app/experiment/ints_text.h"

#include <QString>
#include <QVariant>

class QCheckBox;
class QComboBox;
class QLineEdit;

namespace strata::ui {

class FieldSpinBox;

// `absent`: the value the engine uses when the field is not written; editing back to it
// still writes it (what the user chose stays visible in the file).
void bindSpinBox(FieldSpinBox* editor, app::ExperimentDocument* document, const QString& pointer, int absent);
// An optional field: the editor's allowed minimum (give it a special text, "no maximum") stands
// for the field being absent; choosing it removes the field.
void bindOptionalSpinBox(FieldSpinBox* editor, app::ExperimentDocument* document, const QString& pointer);
// The editor counts `unit`s of the field (KiB of a byte count): it shows the field divided
// by `unit` and writes its value times `unit`; a field that is no whole number of units is
// shown rounded down and marked so. With `word` ("auto"), the editor's allowed minimum (give
// it that special text) stands for the field being that word.
void bindScaledSpinBox(FieldSpinBox* editor, app::ExperimentDocument* document, const QString& pointer,
                       qint64 absent, qint64 unit, const QString& word = {});
// The combo's item data when set, else its text, is the field's value; an item whose
// data is an empty string stands for the field being absent.
void bindComboBox(QComboBox* editor, app::ExperimentDocument* document, const QString& pointer,
                  const QString& absent);
void bindCheckBox(QCheckBox* editor, app::ExperimentDocument* document, const QString& pointer, bool absent);
// The same, `absent` being the engine's default for the field (app::fieldDefault).
void bindSpinBox(FieldSpinBox* editor, app::ExperimentDocument* document, const QString& pointer);
void bindComboBox(QComboBox* editor, app::ExperimentDocument* document, const QString& pointer);
void bindCheckBox(QCheckBox* editor, app::ExperimentDocument* document, const QString& pointer);
// Free text; an empty editor removes the field.
void bindLineEdit(QLineEdit* editor, app::ExperimentDocument* document, const QString& pointer);
// A number written as text (learning rates such as 1e-4, a timeout of 2.5 s), shown exactly;
// invalid text is marked and not written; an empty editor removes the field.
void bindNumberEdit(QLineEdit* editor, app::ExperimentDocument* document, const QString& pointer);

// Integers written "28, 28", read and shown in one of app::IntsForm's forms (a list, an
// integer or pair, a list with None entries, a 2-D padding). Text the form cannot take is
// marked and not written; an empty editor removes the field.
using app::IntsForm;
void bindIntsEdit(QLineEdit* editor, app::ExperimentDocument* document, const QString& pointer, IntsForm form);

} // namespace strata::ui
