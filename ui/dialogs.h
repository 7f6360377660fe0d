#pragma once
// The questions the window asks the user (which file, save changes?). Tests substitute
// their own answers; the window never opens a dialog any other way.

#include <QString>

class QWidget;

namespace strata::ui {

class Dialogs {
public:
    enum class SaveChoice { Save, Discard, Cancel };

    virtual ~Dialogs() = default;
    virtual SaveChoice askToSave(QWidget* parent, const QString& documentName);
    // Empty when cancelled.
    virtual QString openFile(QWidget* parent, const QString& title, const QString& filter);
    virtual QString saveFile(QWidget* parent, const QString& title, const QString& suggested, const QString& filter);
    virtual QString directory(QWidget* parent, const QString& title, const QString& start);
};

} // namespace strata::ui
