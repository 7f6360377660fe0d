#pragma once
// The setup pages' forms: every field as wide as its content (a spin box its range, a choice
// its longest item, a text field its kind's width), so that no field stretches across the page
// beside narrow ones; only text that can be long (paths) grows with the window, up to a width
// that stays readable.

class QFormLayout;
class QStackedWidget;
class QWidget;

namespace strata::ui {

// Characters of text: a number (1e-07), a short list (28, 28), a longer one, a path.
enum class FieldWidth { Number, Short, Long, Path };

// A form whose fields keep the widths above (QFormLayout::ExpandingFieldsGrow with each text
// field capped by fitWidth()).
QFormLayout* makeForm(QWidget* parent = nullptr);
// Caps `editor` at its kind's width; a Path field grows to it with the window.
void fitWidth(QWidget* editor, FieldWidth width);
// A stack of forms (one per type) as tall as the form shown, not as the tallest: no gap below
// a short form. Call again after adding pages.
void fitToCurrentPage(QStackedWidget* stack);

} // namespace strata::ui
