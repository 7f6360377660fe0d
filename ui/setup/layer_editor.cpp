#include "ui/setup/layer_editor.h"

#include "ui/setup/field_binding.h"
#include "ui/setup/field_spin_box.h"
#include "ui/setup/form_layout.h"

#include <QCheckBox>
#include <QComboBox>
#include <QFormLayout>
#include <QLabel>
#include <QLineEdit>
#include <QVBoxLayout>

#include <limits>

namespace strata::ui {

LayerEditor::LayerEditor(app::ExperimentDocument* document, QWidget* parent)
    : QWidget(parent), m_document(document), m_types(app::layerTypes()), m_heading(new QLabel(this)),
      m_description(new QLabel(this))
{
    QFont bold = m_heading->font();
    bold.setBold(true);
    m_heading->setFont(bold);
    m_description->setWordWrap(true);
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(m_heading);
    layout->addWidget(m_description);
    layout->addStretch(1);
    connect(document, &app::ExperimentDocument::changed, this, [this] {
        if (m_index >= 0 && m_document->layer(m_index).value("type").toString() != m_type)
            rebuild();
    });
    rebuild();
}

void LayerEditor::setLayer(int index)
{
    if (index == m_index && (index < 0 || m_document->layer(index).value("type").toString() == m_type))
        return;
    m_index = index;
    rebuild();
}

void LayerEditor::rebuild()
{
    delete m_fields;
    m_fields = nullptr;
    m_type = m_index >= 0 ? m_document->layer(m_index).value("type").toString() : QString();
    const app::LayerTypeInfo* info = app::findLayerType(m_types, m_type);
    if (m_index < 0 || !info) {
        m_heading->setText(m_index < 0 ? tr("No layer selected") : tr("Unknown layer type \"%1\"").arg(m_type));
        m_description->clear();
        return;
    }
    m_heading->setText(tr("Layer %1: %2").arg(m_index + 1).arg(m_type));
    m_description->setText(info->description);
    m_fields = new QWidget(this);
    m_fields->setObjectName("layerFields");
    auto* form = makeForm(m_fields);
    const QString base = QStringLiteral("/model/layers/%1/").arg(m_index);
    for (const auto& field : info->fields)
        form->addRow(field.name + (field.required ? QStringLiteral(" *") : QString()) + ':',
                     makeEditor(field, base + field.name));
    static_cast<QVBoxLayout*>(layout())->insertWidget(2, m_fields);
}

QWidget* LayerEditor::makeEditor(const app::FieldInfo& field, const QString& pointer)
{
    // Named and explained before binding: a field marked at once keeps its help below the problem.
    const auto named = [&field](auto* editor) {
        editor->setObjectName(field.name);
        editor->setToolTip(field.help);
        return editor;
    };
    const auto textEdit = [&](const QString& placeholder, FieldWidth width) {
        auto* edit = named(new QLineEdit);
        edit->setPlaceholderText(placeholder);
        fitWidth(edit, width);
        return edit;
    };
    using Kind = app::FieldInfo::Kind;
    switch (field.kind) {
    case Kind::Integer: {
        auto* spin = named(new FieldSpinBox);
        const int low = static_cast<int>(field.min) + (field.exclusiveMin ? 1 : 0);
        const int high = field.max > field.min ? static_cast<int>(field.max) - (field.exclusiveMax ? 1 : 0)
                                               : std::numeric_limits<int>::max();
        spin->setAllowedRange(low, high);
        spin->setGroupSeparatorShown(true);
        bindSpinBox(spin, m_document, pointer, field.defaultValue.isValid() ? field.defaultValue.toInt() : low);
        return spin;
    }
    case Kind::Number: {
        auto* edit = textEdit(field.defaultValue.isValid() ? field.defaultValue.toString() : tr("required"), FieldWidth::Number);
        bindNumberEdit(edit, m_document, pointer);
        return edit;
    }
    case Kind::Boolean: {
        auto* check = named(new QCheckBox);
        bindCheckBox(check, m_document, pointer, field.defaultValue.toBool());
        return check;
    }
    case Kind::Choice: {
        auto* combo = named(new QComboBox);
        combo->addItems(field.choices);
        bindComboBox(combo, m_document, pointer, field.defaultValue.toString());
        return combo;
    }
    case Kind::IntPair:
    case Kind::OptionalIntPair:
    case Kind::OptionalInteger: {
        auto* edit = textEdit(field.kind == Kind::IntPair ? tr("n or h, w") : tr("default"), FieldWidth::Number);
        bindIntsEdit(edit, m_document, pointer, IntsForm::IntOrPair);
        return edit;
    }
    case Kind::IntList: {
        auto* edit = textEdit(tr("e.g. 7, 4 (-1: inferred)"), FieldWidth::Short);
        bindIntsEdit(edit, m_document, pointer, IntsForm::List);
        return edit;
    }
    case Kind::OptionalDimList: {
        auto* edit = textEdit(tr("none (e.g. None, 1, 64: shared along axis 1)"), FieldWidth::Long);
        bindIntsEdit(edit, m_document, pointer, IntsForm::DimList);
        return edit;
    }
    case Kind::Padding2D: {
        auto* edit = textEdit(tr("n, or h, w, or top, bottom, left, right"), FieldWidth::Long);
        bindIntsEdit(edit, m_document, pointer, IntsForm::Padding2D);
        return edit;
    }
    case Kind::Regularizer: {
        // {"l2": factor}; empty: no regularizer.
        auto* edit = textEdit(tr("none (L2 factor, e.g. 0.01)"), FieldWidth::Short);
        bindNumberEdit(edit, m_document, pointer + "/l2");
        connect(edit, &QLineEdit::textEdited, this, [this, pointer](const QString& text) {
            if (text.isEmpty())
                m_document->remove(pointer);
        });
        return edit;
    }
    }
    return new QWidget;
}

} // namespace strata::ui
