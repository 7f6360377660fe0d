#include "app/session/documentation.h"

#include <QCoreApplication>
#include <QFileInfo>

namespace strata::app {

QString documentationPath(QStringList* looked)
{
    const QStringList places{QCoreApplication::applicationDirPath() + "/../share/doc/strata-engine",
                             QStringLiteral(STRATA_SOURCE_DIR "/README.md"),
                             QStringLiteral("/usr/share/doc/strata-engine")};
    if (looked)
        *looked = places;
    for (const QString& place : places)
        if (QFileInfo::exists(place))
            return QFileInfo(place).canonicalFilePath();
    return {};
}

} // namespace strata::app
