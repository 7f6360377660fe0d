#pragma once
// What MainWindow's sources (main_window*.cpp) share. Internal to them.

#include <QObject>
#include <QString>

namespace strata::ui::main_window_parts {

inline const QString kFileFilter = QObject::tr("Strata experiments (*.strata.json);;JSON files (*.json);;All files (*)");
// The pages' icons (icons::icon), by MainWindow::Page.
inline const char* const kPageIcons[] = {"strategy", "cluster", "model", "data", "training", "dashboard", "history", "compare", "plan"};

} // namespace strata::ui::main_window_parts
