#pragma once
// Where the tests find Debian's published datasets: as the engine looks for them,
// $STRATA_DATASETS_DIR (scripts/gpu-check.sh points it at a carried copy) or /usr/share/datasets.

#include <QFile>
#include <QString>

namespace testing {

inline QString fashionMnistDir()
{
    const QString root = qEnvironmentVariable("STRATA_DATASETS_DIR", "/usr/share/datasets");
    return (root.isEmpty() ? QStringLiteral("/usr/share/datasets") : root) + "/fashion-mnist";
}

inline bool haveFashionMnist() { return QFile::exists(fashionMnistDir() + "/train-images-idx3-ubyte.gz"); }

} // namespace testing
