#include "ui/setup/field_marks.h"

#include "ui/shell/theme.h"

#include <QApplication>
#include <QWidget>

namespace strata::ui {

namespace {
// Dynamic properties on the editor: its help, the validation's problems, its own reason.
constexpr const char* kHelp = "strataFieldHelp";
constexpr const char* kProblems = "strataFieldProblems";
constexpr const char* kTextProblem = "strataTextProblem";
constexpr const char* kMarked = "strataFieldMarked";

QStringList reasons(const QWidget* editor)
{
    QStringList out;
    if (const QString text = editor->property(kTextProblem).toString(); !text.isEmpty())
        out << text;
    return out + editor->property(kProblems).toStringList();
}

void update(QWidget* editor)
{
    const QStringList why = reasons(editor);
    const bool marked = !why.isEmpty();
    const bool was = isMarked(editor);
    if (marked && !was)
        editor->setProperty(kHelp, editor->toolTip());
    const QString help = editor->property(kHelp).toString();
    editor->setProperty(kMarked, marked); // before the style sheet, which matches it
    if (marked) {
        editor->setToolTip(why.join('\n') + (help.isEmpty() ? QString() : QStringLiteral("\n\n") + help));
        // The selector keeps the outline on the editor (not its children: a spin box's line edit).
        const QPalette palette = QApplication::palette();
        editor->setStyleSheet(QStringLiteral("*[%1=\"true\"] { border: 2px solid %2; border-radius: 3px; "
                                             "background: %3; }")
                                  .arg(QLatin1String(kMarked), theme::error(palette).name(),
                                       theme::errorBackground(palette).name()));
    } else if (was) {
        editor->setToolTip(help);
        editor->setStyleSheet(QString());
    }
}
} // namespace

void markProblems(QWidget* editor, app::ExperimentDocument* document, const QString& path)
{
    auto refresh = [editor, document, path] {
        QStringList problems;
        for (const app::Problem& p : document->validation().problems)
            if (p.path == path)
                problems << p.message;
        if (problems != editor->property(kProblems).toStringList()) {
            editor->setProperty(kProblems, problems);
            update(editor);
        }
    };
    refresh();
    QObject::connect(document, &app::ExperimentDocument::validationChanged, editor, refresh);
}

void setTextProblem(QWidget* editor, const QString& reason)
{
    if (editor->property(kTextProblem).toString() == reason)
        return;
    editor->setProperty(kTextProblem, reason);
    update(editor);
}

bool isMarked(const QWidget* editor) { return editor->property(kMarked).toBool(); }

QString markReason(const QWidget* editor) { return reasons(editor).join('\n'); }

} // namespace strata::ui
