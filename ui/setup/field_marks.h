#pragma once
// Marks an editor whose field has problems: outlined in the error colour, with the problems
// as its tooltip, above its own help (restored when the problems go). Two sources: the
// document's validation (the problems at the field's path, followed by markProblems) and the
// editor's own text when it cannot be a value ("28, x" in a shape).

#include "app/experiment/experiment_document.h"

#include <QString>
#include <QStringList>

class QWidget;

namespace strata::ui {

// Follows the validation of `document`: marks `editor` with the problems at `path`
// ("model.layers[1].units"), now and after every change.
void markProblems(QWidget* editor, app::ExperimentDocument* document, const QString& path);
// The same for the problems at `path` and within it (a list's elements: "cluster.slurm.
// extra_sbatch[1]"; an object's fields), for an editor of a whole list.
void markProblemsWithin(QWidget* editor, app::ExperimentDocument* document, const QString& path);
// The editor's own reason (empty: none), besides the validation's.
void setTextProblem(QWidget* editor, const QString& reason);
// Whether `editor` is marked now, and why (the problems, one a line).
bool isMarked(const QWidget* editor);
QString markReason(const QWidget* editor);

} // namespace strata::ui
