#include "app/rundir/json_file.h"

#include <QFile>
#include <QFileInfo>
#include <QObject>
#include <QSaveFile>

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace strata::app {

bool writeJsonFile(const QString& path, const nlohmann::ordered_json& json, QString* error)
{
    const std::string text = json.dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace) + "\n";
    QSaveFile file(path);
    // Qt 6.4's QSaveFile commits even when flushing its buffer failed (a full disk), replacing
    // the file with an empty one, and does not look at its fdatasync's result: flushed and
    // synced here, and checked.
    if (!file.open(QIODevice::WriteOnly) || file.write(text.data(), qint64(text.size())) != qint64(text.size()) ||
        !file.flush()) {
        *error = QObject::tr("Cannot write %1: %2").arg(path, file.errorString());
        return false;
    }
    if (::fsync(file.handle()) != 0) {
        *error = QObject::tr("Cannot write %1: %2").arg(path, QString::fromLocal8Bit(std::strerror(errno)));
        return false;
    }
    if (!file.commit()) {
        *error = QObject::tr("Cannot write %1: %2").arg(path, file.errorString());
        return false;
    }
    // QSaveFile syncs the file, not the directory its new name is in: without this, a crash
    // of the machine could bring back the previous file.
    const QByteArray dir = QFile::encodeName(QFileInfo(path).absolutePath());
    const int fd = ::open(dir.constData(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    const int result = fd < 0 ? -1 : ::fsync(fd);
    const int cause = errno;
    if (fd >= 0)
        ::close(fd);
    if (result != 0) {
        *error = QObject::tr("Cannot sync the directory of %1: %2").arg(path, QString::fromLocal8Bit(std::strerror(cause)));
        return false;
    }
    return true;
}

bool readTaskList(const QString& path, const QString& what, nlohmann::ordered_json& tasks, QString* error)
{
    tasks = nlohmann::ordered_json::array();
    QFile file(path);
    if (!file.exists())
        return true;
    if (!file.open(QIODevice::ReadOnly)) {
        *error = QObject::tr("Cannot read %1: %2").arg(path, file.errorString());
        return false;
    }
    const auto doc = nlohmann::ordered_json::parse(file.readAll().toStdString(), nullptr, false);
    if (doc.is_discarded()) {
        *error = QObject::tr("%1 is not %2: not JSON").arg(path, what);
        return false;
    }
    if (!doc.is_object() || !doc.contains("tasks") || !doc["tasks"].is_array()) {
        *error = QObject::tr("%1 is not %2: no \"tasks\" list").arg(path, what);
        return false;
    }
    tasks = doc["tasks"];
    return true;
}

} // namespace strata::app
