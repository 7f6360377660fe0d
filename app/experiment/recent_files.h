#pragma once
// The experiment files opened most recently (QSettings), newest first.

#include <QStringList>

namespace strata::app {

class RecentFiles {
public:
    static constexpr int kMaximum = 8;
    static QStringList list();
    static void add(const QString& path);
    static void remove(const QString& path);
};

} // namespace strata::app
