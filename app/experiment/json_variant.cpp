#include "app/experiment/json_variant.h"

#include <QVariantList>
#include <QVariantMap>

namespace strata::app {

using Json = nlohmann::ordered_json;

QVariant toVariant(const Json& v)
{
    switch (v.type()) {
    case Json::value_t::boolean: return v.get<bool>();
    case Json::value_t::number_integer:
    case Json::value_t::number_unsigned: return QVariant::fromValue<qlonglong>(v.get<qlonglong>());
    case Json::value_t::number_float: return v.get<double>();
    case Json::value_t::string: return QString::fromStdString(v.get<std::string>());
    case Json::value_t::array: {
        QVariantList list;
        for (const auto& e : v)
            list << toVariant(e);
        return list;
    }
    case Json::value_t::object: {
        QVariantMap map;
        for (const auto& [k, e] : v.items())
            map.insert(QString::fromStdString(k), toVariant(e));
        return map;
    }
    default: return {};
    }
}

Json fromVariant(const QVariant& v)
{
    switch (v.typeId()) {
    case QMetaType::Bool: return v.toBool();
    case QMetaType::Int:
    case QMetaType::LongLong:
    case QMetaType::UInt:
    case QMetaType::ULongLong: return v.toLongLong();
    case QMetaType::Double:
    case QMetaType::Float: return v.toDouble();
    case QMetaType::QString: return v.toString().toStdString();
    case QMetaType::QStringList: {
        Json list = Json::array();
        for (const auto& s : v.toStringList())
            list.push_back(s.toStdString());
        return list;
    }
    case QMetaType::QVariantList: {
        Json list = Json::array();
        for (const auto& e : v.toList())
            list.push_back(fromVariant(e));
        return list;
    }
    case QMetaType::QVariantMap: {
        Json object = Json::object();
        const QVariantMap map = v.toMap();
        for (auto it = map.begin(); it != map.end(); ++it)
            object[it.key().toStdString()] = fromVariant(it.value());
        return object;
    }
    default: return nullptr;
    }
}

} // namespace strata::app
