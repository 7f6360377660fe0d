#include "app/metrics/json_file.h"

#include <QFile>
#include <QObject>
#include <QSaveFile>

namespace strata::app {

bool writeJsonFile(const QString& path, const nlohmann::ordered_json& json, QString* error)
{
    const std::string text = json.dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace) + "\n";
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly) || file.write(text.data(), qint64(text.size())) < 0 || !file.commit()) {
        *error = QObject::tr("Cannot write %1: %2").arg(path, file.errorString());
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
