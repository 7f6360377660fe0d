#include "app/experiment/recent_files.h"

#include <QFileInfo>
#include <QSettings>

namespace strata::app {

namespace {
const char* kKey = "recentFiles";
}

QStringList RecentFiles::list() { return QSettings().value(kKey).toStringList(); }

void RecentFiles::add(const QString& path)
{
    const QString absolute = QFileInfo(path).absoluteFilePath();
    QStringList files = list();
    files.removeAll(absolute);
    files.prepend(absolute);
    while (files.size() > kMaximum)
        files.removeLast();
    QSettings().setValue(kKey, files);
}

void RecentFiles::remove(const QString& path)
{
    QStringList files = list();
    files.removeAll(path);
    QSettings().setValue(kKey, files);
}

} // namespace strata::app
