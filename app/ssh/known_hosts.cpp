#include "app/ssh/known_hosts.h"

#include "app/ssh/handles.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QObject>
#include <QStringList>

namespace strata::app::ssh {

namespace {

// The key's type and SHA256 fingerprint, as `ssh-keygen -l` prints it.
bool describeKey(ssh_key key, HostKey* out)
{
    unsigned char* hash = nullptr;
    size_t length = 0;
    if (ssh_get_publickey_hash(key, SSH_PUBLICKEY_HASH_SHA256, &hash, &length) != SSH_OK)
        return false;
    const SshString fingerprint(ssh_get_fingerprint_hash(SSH_PUBLICKEY_HASH_SHA256, hash, length));
    ssh_clean_pubkey_hash(&hash);
    if (!fingerprint)
        return false;
    out->type = QString::fromLatin1(ssh_key_type_to_char(ssh_key_type(key)));
    out->fingerprint = QString::fromLatin1(fingerprint.get());
    return true;
}

// The keys the file holds for the host (hashed names and patterns matched as libssh does).
QList<HostKey> keysFiledFor(const QString& knownHostsFile, const Endpoint& endpoint)
{
    QList<HostKey> keys;
    QFile file(knownHostsFile);
    if (!file.open(QIODevice::ReadOnly))
        return keys;
    const QByteArray name = endpoint.knownHostsName().toUtf8();
    for (const QByteArray& raw : file.readAll().split('\n')) {
        const QByteArray line = raw.trimmed();
        if (line.isEmpty() || line.startsWith('#') || line.startsWith('@'))
            continue;
        ssh_knownhosts_entry* entry = nullptr;
        if (ssh_known_hosts_parse_line(name.constData(), line.constData(), &entry) != SSH_OK)
            continue;
        const KnownHostsEntryHandle owned(entry);
        HostKey key;
        if (owned->publickey && describeKey(owned->publickey, &key))
            keys << key;
    }
    return keys;
}

QString hostsTrustCommand(const Endpoint& endpoint)
{
    QString command = QStringLiteral("strata hosts trust ") + endpoint.hostPort();
    if (!endpoint.user.isEmpty())
        command += QStringLiteral(" --user ") + endpoint.user;
    return command;
}

} // namespace

QString defaultKnownHostsFile()
{
    return QDir::homePath() + QStringLiteral("/.ssh/known_hosts");
}

HostKeyCheck checkHostKey(ssh_session session, const QString& knownHostsFile, const Endpoint& endpoint)
{
    HostKeyCheck check;
    ssh_key raw = nullptr;
    if (ssh_get_server_publickey(session, &raw) != SSH_OK) {
        check.error = QString::fromUtf8(ssh_get_error(session));
        return check;
    }
    const KeyHandle key(raw);
    if (!describeKey(key.get(), &check.offered)) {
        check.error = QObject::tr("the host's key could not be read");
        return check;
    }
    switch (ssh_session_is_known_server(session)) {
    case SSH_KNOWN_HOSTS_OK:
        check.state = HostKeyCheck::Known;
        break;
    case SSH_KNOWN_HOSTS_CHANGED:
    case SSH_KNOWN_HOSTS_OTHER:
        check.state = HostKeyCheck::Changed;
        check.known = keysFiledFor(knownHostsFile, endpoint);
        break;
    case SSH_KNOWN_HOSTS_UNKNOWN:
    case SSH_KNOWN_HOSTS_NOT_FOUND:
        check.state = HostKeyCheck::Unknown;
        break;
    case SSH_KNOWN_HOSTS_ERROR:
        check.error = QObject::tr("%1 could not be read: %2").arg(knownHostsFile, QString::fromUtf8(ssh_get_error(session)));
        break;
    }
    return check;
}

bool trustHostKey(ssh_session session, const QString& knownHostsFile, QString* error)
{
    char* raw = nullptr;
    if (ssh_session_export_known_hosts_entry(session, &raw) != SSH_OK) {
        *error = QString::fromUtf8(ssh_get_error(session));
        return false;
    }
    const SshString line(raw);
    const QFileInfo info(knownHostsFile);
    const QString dir = info.absolutePath();
    if (!QFileInfo::exists(dir)) {
        // As ssh does: ~/.ssh is the user's alone.
        if (!QDir().mkpath(dir)
            || !QFile::setPermissions(dir, QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner)) {
            *error = QObject::tr("cannot create the directory %1").arg(dir);
            return false;
        }
    }
    QFile file(knownHostsFile);
    if (!file.open(QIODevice::ReadWrite)) {
        *error = QObject::tr("cannot write %1: %2").arg(knownHostsFile, file.errorString());
        return false;
    }
    // A last line without its newline must not swallow ours.
    QByteArray text;
    if (file.size() > 0 && file.seek(file.size() - 1) && file.read(1) != "\n")
        text += '\n';
    text += line.get(); // ends with its newline
    file.seek(file.size());
    if (file.write(text) != text.size() || !file.flush()) {
        *error = QObject::tr("cannot write %1: %2").arg(knownHostsFile, file.errorString());
        return false;
    }
    return true;
}

QString unknownKeyMessage(const Endpoint& endpoint, const HostKey& offered, bool asked)
{
    return QObject::tr("%1: the host key is not known (%2) and %3, so Strata did not connect. If that is the "
                       "host's key (compare with `ssh-keygen -lf /etc/ssh/ssh_host_*_key.pub` there), trust it "
                       "with `%4`.")
        .arg(endpoint.label(), offered.text(),
             asked ? QObject::tr("was not trusted") : QObject::tr("there was no one to ask whether to trust it"),
             hostsTrustCommand(endpoint));
}

QString changedKeyMessage(const Endpoint& endpoint, const HostKeyCheck& check, const QString& knownHostsFile)
{
    QStringList known;
    for (const HostKey& k : check.known)
        known << k.text();
    return QObject::tr("%1: the host key has CHANGED: %2 holds %3 for %4, the host now offers %5. Someone may be "
                       "intercepting the connection, or the host was reinstalled. Strata refused to connect and "
                       "left %2 unchanged. If the change is expected, remove the old entry with "
                       "`ssh-keygen -R '%4' -f %2`, then trust the new key with `%6`.")
        .arg(endpoint.label(), knownHostsFile,
             known.isEmpty() ? QObject::tr("another key") : known.join(QStringLiteral(", ")),
             endpoint.knownHostsName(), check.offered.text(), hostsTrustCommand(endpoint));
}

} // namespace strata::app::ssh
