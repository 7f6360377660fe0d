#include "ui/setup/form_layout.h"

#include <QFormLayout>
#include <QStackedWidget>

namespace strata::ui {

QFormLayout* makeForm(QWidget* parent)
{
    auto* form = new QFormLayout(parent);
    // Only fields that ask to expand (text) grow, each up to its cap; spin boxes, choices and
    // check boxes keep their size hints.
    form->setFieldGrowthPolicy(QFormLayout::ExpandingFieldsGrow);
    form->setLabelAlignment(Qt::AlignRight | Qt::AlignVCenter);
    return form;
}

void fitWidth(QWidget* editor, FieldWidth width)
{
    const int characters = width == FieldWidth::Number ? 12 : width == FieldWidth::Short ? 20 : width == FieldWidth::Long ? 40 : 72;
    const int pixels = editor->fontMetrics().averageCharWidth() * characters + 16;
    editor->setMaximumWidth(pixels);
    editor->setMinimumWidth(width == FieldWidth::Path ? pixels / 2 : 0);
    editor->setSizePolicy(QSizePolicy::Expanding, editor->sizePolicy().verticalPolicy());
}

void fitToCurrentPage(QStackedWidget* stack)
{
    const auto fit = [stack] {
        for (int i = 0; i < stack->count(); ++i) {
            const auto policy = i == stack->currentIndex() ? QSizePolicy::Preferred : QSizePolicy::Ignored;
            stack->widget(i)->setSizePolicy(policy, policy);
        }
        stack->updateGeometry();
    };
    fit();
    if (!stack->property("strataFitted").toBool()) {
        stack->setProperty("strataFitted", true);
        QObject::connect(stack, &QStackedWidget::currentChanged, stack, fit);
    }
}

} // namespace strata::ui
