#include "app/metrics/json_file.h"

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

} // namespace strata::app
