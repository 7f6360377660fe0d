#include "ui/setup/field_marks.h"

#include "ui/shell/theme.h"

#include <QEvent>
#include <QPainter>
#include <QWidget>

namespace strata::ui {

namespace {
// The outline, drawn over the editor by a child that lets the mouse through: a style sheet
// would restyle the editor (a spin box's arrows) and differ from one kind of editor to another.
class Outline final : public QWidget {
public:
    explicit Outline(QWidget* editor) : QWidget(editor)
    {
        setObjectName(QStringLiteral("fieldOutline"));
        setAttribute(Qt::WA_TransparentForMouseEvents);
        editor->installEventFilter(this);
        follow();
    }

    void follow()
    {
        setGeometry(parentWidget()->rect());
        raise();
    }

protected:
    bool eventFilter(QObject*, QEvent* event) override
    {
        if (event->type() == QEvent::Resize)
            follow();
        return false;
    }

    void paintEvent(QPaintEvent*) override
    {
        QPainter painter(this);
        painter.setRenderHint(QPainter::Antialiasing);
        painter.setPen(QPen(theme::error(palette()), 2));
        painter.drawRoundedRect(QRectF(rect()).adjusted(1, 1, -1, -1), 3, 3);
    }
};

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
    editor->setProperty(kMarked, marked);
    auto* outline = static_cast<Outline*>(
        editor->findChild<QWidget*>(QStringLiteral("fieldOutline"), Qt::FindDirectChildrenOnly));
    if (marked) {
        editor->setToolTip(why.join('\n') + (help.isEmpty() ? QString() : QStringLiteral("\n\n") + help));
        if (!outline)
            outline = new Outline(editor);
        outline->follow();
        outline->show();
    } else if (was) {
        editor->setToolTip(help);
        outline->hide();
    }
}
} // namespace

namespace {
template<typename Matches>
void follow(QWidget* editor, app::ExperimentDocument* document, Matches matches)
{
    auto refresh = [editor, document, matches] {
        QStringList problems;
        for (const app::Problem& p : document->validation().problems)
            if (matches(p.path))
                problems << p.message;
        if (problems != editor->property(kProblems).toStringList()) {
            editor->setProperty(kProblems, problems);
            update(editor);
        }
    };
    refresh();
    QObject::connect(document, &app::ExperimentDocument::validationChanged, editor, refresh);
}
} // namespace

void markProblems(QWidget* editor, app::ExperimentDocument* document, const QString& path)
{
    follow(editor, document, [path](const QString& at) { return at == path; });
}

void markProblemsWithin(QWidget* editor, app::ExperimentDocument* document, const QString& path)
{
    follow(editor, document, [path](const QString& at) {
        return at == path || (at.startsWith(path) && (at[path.size()] == '[' || at[path.size()] == '.'));
    });
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
