#pragma once
// Integer fields as the editors show them ("28, 28, 1") and back: input shapes, kernel sizes,
// Reshape's target shape, Dropout's noise shape, ZeroPadding2D's padding. Pure functions, so
// the widgets only move text and the forms are tested without them.

#include <QString>
#include <QVariant>

#include <optional>

namespace strata::app {

enum class IntsForm {
    List,      // always a list: "28, 28" -> [28, 28] (an input or target shape; -1 is an integer too)
    IntOrPair, // one integer, or [h, w] when two are given (a kernel size)
    DimList,   // a list whose entries may be None (null): "None, 1, 8" -> [null, 1, 8] (a noise shape)
    Padding2D, // "1" -> 1, "1, 2" -> [1, 2], "1, 2, 3, 4" (top, bottom, left, right) -> [[1, 2], [3, 4]]
};

// The text an editor shows for a field's value: integers joined by ", ", nested lists
// flattened, null entries "None"; empty for an absent field.
QString intsText(const QVariant& value);

// The field's value for `text`: an invalid QVariant for empty text (the field removed), nullopt
// when the text does not fit the form. Brackets and parentheses are ignored, so Python's
// "((1, 2), (3, 4))" reads as "1, 2, 3, 4".
std::optional<QVariant> parseInts(const QString& text, IntsForm form);

} // namespace strata::app
