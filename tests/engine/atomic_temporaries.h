#pragma once
// The temporaries an AtomicFile writer left in a directory (a killed one, or one that failed
// without removing them: a bug).

#include "strata/rundir/atomic_file.h"

#include <QDir>
#include <QStringList>

namespace testing {

inline QStringList atomicTemporaries(const QString& dir)
{
    QStringList out;
    for (const QString& name : QDir(dir).entryList(QDir::Files))
        if (strata::run::isAtomicFileTemporary(name.toStdString()))
            out << name;
    return out;
}

} // namespace testing
