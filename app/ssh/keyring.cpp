#include "app/ssh/keyring.h"

#include <QFileInfo>
#include <QObject>

#ifdef STRATA_HAVE_KEYCHAIN
#include <QDBusConnection>
#include <QDBusConnectionInterface>
#include <QEventLoop>
#include <QTimer>
#include <qt6keychain/keychain.h>
#endif

namespace strata::app::ssh {

QString Keyring::passwordAccount(const Endpoint& endpoint)
{
    return endpoint.effectiveUser() + '@' + endpoint.hostPort();
}

QString Keyring::passphraseAccount(const QString& keyPath)
{
    return QStringLiteral("key:") + QFileInfo(keyPath).absoluteFilePath();
}

#ifdef STRATA_HAVE_KEYCHAIN

namespace {

enum class Outcome { Done, NotFound, Failed };

// Why no keyring can answer here, asked of D-Bus first (QtKeychain itself only says "Unknown
// error" then). Empty when a keyring service runs or can be started (D-Bus activation).
QString missingKeyring()
{
    const QDBusConnection bus = QDBusConnection::sessionBus();
    if (!bus.isConnected())
        return QObject::tr("there is no OS keyring here: no D-Bus session bus, so no Secret Service (GNOME Keyring, "
                           "KWallet) to keep it in; Strata keeps secrets nowhere else");
    const QStringList services = bus.interface()->registeredServiceNames().value()
                               + bus.interface()->activatableServiceNames().value();
    for (const QString& name : {QStringLiteral("org.freedesktop.secrets"), QStringLiteral("org.kde.kwalletd5"),
                                QStringLiteral("org.kde.kwalletd6"), QStringLiteral("org.kde.kwalletd")})
        if (services.contains(name))
            return {};
    return QObject::tr("there is no OS keyring here: no D-Bus Secret Service (GNOME Keyring, KWallet) runs on the "
                       "session bus; Strata keeps secrets nowhere else");
}

// Runs `job` to its end (or the timeout) in a local event loop; the job deletes itself.
Outcome run(QKeychain::Job* job, int timeoutMs, QString* error)
{
    if (const QString missing = missingKeyring(); !missing.isEmpty()) {
        delete job;
        *error = missing;
        return Outcome::Failed;
    }
    // Never the insecure fallback (QSettings in plain text), whatever QtKeychain's default.
    job->setInsecureFallback(false);
    job->setAutoDelete(true);
    QEventLoop loop;
    bool finished = false;
    QKeychain::Error code = QKeychain::NoError;
    QString text;
    QObject::connect(job, &QKeychain::Job::finished, &loop, [&](QKeychain::Job* j) {
        finished = true;
        code = j->error();
        text = j->errorString();
        loop.quit();
    });
    QTimer::singleShot(timeoutMs, &loop, &QEventLoop::quit);
    job->start();
    loop.exec();
    if (!finished) {
        job->disconnect(&loop);
        *error = QObject::tr("the OS keyring did not answer within %1 s").arg(timeoutMs / 1000);
        return Outcome::Failed;
    }
    switch (code) {
    case QKeychain::NoError: return Outcome::Done;
    case QKeychain::EntryNotFound: return Outcome::NotFound;
    case QKeychain::NoBackendAvailable:
    case QKeychain::NotImplemented:
        *error = QObject::tr("there is no OS keyring here: no D-Bus Secret Service (GNOME Keyring, KWallet) is "
                             "running (%1); Strata keeps secrets nowhere else")
                     .arg(text);
        return Outcome::Failed;
    case QKeychain::AccessDeniedByUser:
    case QKeychain::AccessDenied:
        *error = QObject::tr("the OS keyring denied access (%1)").arg(text);
        return Outcome::Failed;
    default:
        // QtKeychain reports a missing session bus or Secret Service as "other" errors too.
        *error = QObject::tr("the OS keyring could not be used, is a D-Bus Secret Service running? (%1); "
                             "Strata keeps secrets nowhere else")
                     .arg(text);
        return Outcome::Failed;
    }
}

} // namespace

bool Keyring::store(const QString& account, const QString& secret, QString* error)
{
    auto* job = new QKeychain::WritePasswordJob(QString::fromLatin1(kService));
    job->setKey(account);
    job->setTextData(secret);
    return run(job, m_timeoutMs, error) == Outcome::Done;
}

std::optional<QString> Keyring::load(const QString& account, QString* error)
{
    auto* job = new QKeychain::ReadPasswordJob(QString::fromLatin1(kService));
    job->setKey(account);
    std::optional<QString> secret;
    // Read before the job deletes itself (after `finished`, on the next event loop turn).
    QObject::connect(job, &QKeychain::Job::finished, job, [&secret](QKeychain::Job* j) {
        if (j->error() == QKeychain::NoError)
            secret = static_cast<QKeychain::ReadPasswordJob*>(j)->textData();
    });
    error->clear();
    if (run(job, m_timeoutMs, error) != Outcome::Done)
        return std::nullopt;
    return secret;
}

bool Keyring::remove(const QString& account, QString* error)
{
    auto* job = new QKeychain::DeletePasswordJob(QString::fromLatin1(kService));
    job->setKey(account);
    return run(job, m_timeoutMs, error) != Outcome::Failed;
}

#else

namespace {
QString notBuiltIn()
{
    return QObject::tr("this Strata was built without QtKeychain, so it cannot use the OS keyring; "
                       "it keeps secrets nowhere else");
}
} // namespace

bool Keyring::store(const QString&, const QString&, QString* error)
{
    *error = notBuiltIn();
    return false;
}

std::optional<QString> Keyring::load(const QString&, QString* error)
{
    *error = notBuiltIn();
    return std::nullopt;
}

bool Keyring::remove(const QString&, QString* error)
{
    *error = notBuiltIn();
    return false;
}

#endif

} // namespace strata::app::ssh
