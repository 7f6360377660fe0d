#pragma once
// Where the user's documentation is, for the window's Help > Documentation: the README of a
// source tree (beside the docs/ it links to), or the docs a package installed (Debian keeps
// them compressed in share/doc/strata-engine, so the folder is what opens).

#include <QString>
#include <QStringList>

namespace strata::app {

// The README or the installed docs folder, the first found of: <program>/../share/doc/
// strata-engine, the source tree's README.md, /usr/share/doc/strata-engine. Empty when none
// is; `looked` (may be null) gets the places looked at, in that order.
QString documentationPath(QStringList* looked = nullptr);

} // namespace strata::app
