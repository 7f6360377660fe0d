#include "app/ssh/endpoint.h"

#include <QDir>

#include <pwd.h>
#include <unistd.h>

namespace strata::app::ssh {

std::optional<AuthMethod> authMethodFromString(const QString& text)
{
    if (text == QLatin1String("agent"))
        return AuthMethod::Agent;
    if (text == QLatin1String("key"))
        return AuthMethod::Key;
    if (text == QLatin1String("password"))
        return AuthMethod::Password;
    return std::nullopt;
}

QString toString(AuthMethod method)
{
    switch (method) {
    case AuthMethod::Agent: return QStringLiteral("agent");
    case AuthMethod::Key: return QStringLiteral("key");
    case AuthMethod::Password: return QStringLiteral("password");
    }
    return {};
}

QString Endpoint::effectiveUser() const
{
    if (!user.isEmpty())
        return user;
    // The account, not $USER: that is who libssh would log in as.
    if (const passwd* pw = ::getpwuid(::geteuid()))
        return QString::fromLocal8Bit(pw->pw_name);
    return qEnvironmentVariable("USER");
}

QString Endpoint::hostPort() const
{
    const QString h = host.contains(':') ? '[' + host + ']' : host;
    return QStringLiteral("%1:%2").arg(h).arg(port);
}

QString Endpoint::label() const
{
    const QString where = effectiveUser() + '@' + hostPort();
    return node.isEmpty() ? where : QStringLiteral("node \"%1\" (%2)").arg(node, where);
}

QString Endpoint::knownHostsName() const
{
    return port == 22 ? host : QStringLiteral("[%1]:%2").arg(host).arg(port);
}

QString Endpoint::keyPath() const
{
    if (keyFile.startsWith(QLatin1String("~/")))
        return QDir::homePath() + keyFile.mid(1);
    return keyFile;
}

} // namespace strata::app::ssh
