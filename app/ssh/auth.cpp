#include "app/ssh/auth.h"

#include "app/ssh/handles.h"
#include "app/ssh/keyring.h"
#include "app/ssh/prompts.h"

#include <QFile>
#include <QFileInfo>
#include <QObject>

#include <algorithm>

namespace strata::app::ssh {

namespace {

// As ssh's NumberOfPasswordPrompts.
constexpr int kTries = 3;

// A secret as bytes for libssh, wiped when it goes.
class SecretBytes {
public:
    explicit SecretBytes(const QString& secret) : m_bytes(secret.toUtf8()) {}
    ~SecretBytes() { m_bytes.fill('\0'); }
    SecretBytes(const SecretBytes&) = delete;
    SecretBytes& operator=(const SecretBytes&) = delete;
    const char* get() const { return m_bytes.constData(); }

private:
    QByteArray m_bytes;
};

QString methodsText(int methods)
{
    QStringList names;
    if (methods & SSH_AUTH_METHOD_PUBLICKEY)
        names << QStringLiteral("publickey");
    if (methods & SSH_AUTH_METHOD_PASSWORD)
        names << QStringLiteral("password");
    if (methods & SSH_AUTH_METHOD_INTERACTIVE)
        names << QStringLiteral("keyboard-interactive");
    if (methods & SSH_AUTH_METHOD_GSSAPI_MIC)
        names << QStringLiteral("gssapi-with-mic");
    return names.isEmpty() ? QObject::tr("none") : names.join(QStringLiteral(", "));
}

class Login {
public:
    Login(const AuthContext& c, QString* cause, FailureKind* kind) : m_c(c), m_cause(cause), m_kind(kind) {}

    bool run()
    {
        switch (m_c.endpoint.auth) {
        case AuthMethod::Agent: return withAgent();
        case AuthMethod::Key: return withKey();
        case AuthMethod::Password: return withPassword();
        }
        return fail(FailureKind::Other, QObject::tr("unknown authentication method"));
    }

private:
    bool fail(FailureKind kind, const QString& cause)
    {
        *m_kind = kind;
        *m_cause = cause;
        return false;
    }

    // What a libssh call's result says when it is neither success nor denial.
    bool failCall(int rc, const QString& what)
    {
        if (rc == SSH_AUTH_AGAIN)
            return fail(FailureKind::TimedOut,
                        QObject::tr("no answer from the host within %1 s while %2").arg(m_c.timeoutMs / 1000.0).arg(what));
        return fail(FailureKind::AuthFailed,
                    QObject::tr("%1 failed: %2").arg(what, QString::fromUtf8(ssh_get_error(m_c.session))));
    }

    // Whether the host said it accepts `method`; true when it has not said what it accepts
    // (libssh learns the list only from a refusal of another method).
    bool hostAccepts(int method)
    {
        const int methods = ssh_userauth_list(m_c.session, nullptr);
        return methods == 0 || (methods & method);
    }

    // The secret the keyring keeps for `account`; *usable: whether the keyring can keep
    // one at all (the person is then offered to remember it; else the prompt says it cannot).
    std::optional<QString> remembered(const QString& account, bool* usable)
    {
        *usable = false;
        if (!m_c.keyring)
            return std::nullopt;
        QString error;
        std::optional<QString> kept = m_c.keyring->load(account, &error);
        *usable = error.isEmpty();
        return kept;
    }

    bool withAgent()
    {
        if (m_c.agentSocket.isEmpty() && qEnvironmentVariableIsEmpty("SSH_AUTH_SOCK"))
            return fail(FailureKind::AuthFailed,
                        QObject::tr("authentication by SSH agent: no agent (SSH_AUTH_SOCK is not set; start one with "
                                    "`eval $(ssh-agent)` and add your key with `ssh-add`)"));
        applyTimeout(m_c.session, *m_c.deadline);
        const int rc = ssh_userauth_agent(m_c.session, nullptr);
        if (rc == SSH_AUTH_SUCCESS)
            return true;
        if (rc == SSH_AUTH_DENIED)
            return fail(FailureKind::AuthFailed,
                        hostAccepts(SSH_AUTH_METHOD_PUBLICKEY)
                            ? QObject::tr("authentication by SSH agent: the agent holds no key this host accepts "
                                          "for user %1 (`ssh-add -l` lists the agent's keys)")
                                  .arg(m_c.endpoint.effectiveUser())
                            : QObject::tr("authentication by SSH agent: the host does not accept keys (it accepts: %1)")
                                  .arg(methodsText(ssh_userauth_list(m_c.session, nullptr))));
        return failCall(rc, QObject::tr("authentication by SSH agent"));
    }

    bool withKey()
    {
        const QString path = m_c.endpoint.keyPath();
        if (path.isEmpty())
            return fail(FailureKind::InvalidEndpoint, QObject::tr("authentication by key: no key file given"));
        const QFileInfo info(path);
        if (!info.exists())
            return fail(FailureKind::KeyFile, QObject::tr("key file %1 does not exist").arg(path));
        QFile probe(path);
        if (!info.isFile() || !probe.open(QIODevice::ReadOnly))
            return fail(FailureKind::KeyFile, QObject::tr("key file %1 cannot be read: %2").arg(path, probe.errorString()));
        probe.close();

        KeyHandle key;
        bool remember = false;
        QString passphrase;
        if (!loadKey(path, &key, &remember, &passphrase))
            return false;
        applyTimeout(m_c.session, *m_c.deadline);
        const int rc = ssh_userauth_publickey(m_c.session, nullptr, key.get());
        if (rc == SSH_AUTH_DENIED)
            return fail(FailureKind::AuthFailed,
                        hostAccepts(SSH_AUTH_METHOD_PUBLICKEY)
                            ? QObject::tr("key %1 rejected for user %2 (is its public key in the host's "
                                          "~/.ssh/authorized_keys?)").arg(path, m_c.endpoint.effectiveUser())
                            : QObject::tr("authentication by key: the host does not accept keys (it accepts: %1)")
                                  .arg(methodsText(ssh_userauth_list(m_c.session, nullptr))));
        if (rc != SSH_AUTH_SUCCESS)
            return failCall(rc, QObject::tr("authentication by key %1").arg(path));
        if (remember)
            keep(Keyring::passphraseAccount(path), passphrase, QObject::tr("the passphrase of %1").arg(path));
        return true;
    }

    // The private key, asking for its passphrase when it is encrypted.
    bool loadKey(const QString& path, KeyHandle* key, bool* remember, QString* passphrase)
    {
        const QByteArray file = QFile::encodeName(path);
        // First without a passphrase: the callback only notes that one is needed.
        bool encrypted = false;
        auto noteEncrypted = [](const char*, char*, size_t, int, int, void* userdata) -> int {
            *static_cast<bool*>(userdata) = true;
            return SSH_ERROR;
        };
        ssh_key raw = nullptr;
        if (ssh_pki_import_privkey_file(file.constData(), nullptr, noteEncrypted, &encrypted, &raw) == SSH_OK) {
            key->reset(raw);
            return true;
        }
        if (!encrypted)
            return fail(FailureKind::KeyFile,
                        QObject::tr("key file %1 is not a private key Strata can read").arg(path));

        const QString account = Keyring::passphraseAccount(path);
        bool canRemember = false;
        {
            if (const std::optional<QString> kept = remembered(account, &canRemember)) {
                const SecretBytes bytes(*kept);
                if (ssh_pki_import_privkey_file(file.constData(), bytes.get(), nullptr, nullptr, &raw) == SSH_OK) {
                    key->reset(raw);
                    return true;
                }
            }
        }
        if (!m_c.prompter)
            return fail(FailureKind::KeyFile,
                        QObject::tr("key file %1 is encrypted and there is no one to ask for its passphrase").arg(path));
        for (int attempt = 0; attempt < kTries; ++attempt) {
            const QString prompt = (attempt ? QObject::tr("Wrong passphrase. Passphrase for key %1")
                                            : QObject::tr("Passphrase for key %1")).arg(path);
            std::optional<QString> typed = askSecret(*m_c.prompter, m_c.endpoint, prompt,
                                                     canRemember ? remember : nullptr, m_c.deadline);
            if (!typed)
                return fail(FailureKind::Cancelled, QObject::tr("no passphrase given for key %1").arg(path));
            const SecretBytes bytes(*typed);
            if (ssh_pki_import_privkey_file(file.constData(), bytes.get(), nullptr, nullptr, &raw) == SSH_OK) {
                key->reset(raw);
                *passphrase = *typed;
                return true;
            }
        }
        return fail(FailureKind::KeyFile, QObject::tr("wrong passphrase for key %1 (%2 tries)").arg(path).arg(kTries));
    }

    bool withPassword()
    {
        const QString account = Keyring::passwordAccount(m_c.endpoint);
        bool keptRejected = false, canRemember = false;
        {
            if (const std::optional<QString> kept = remembered(account, &canRemember)) {
                const int rc = tryPassword(*kept);
                if (rc == SSH_AUTH_SUCCESS)
                    return true;
                if (rc != SSH_AUTH_DENIED)
                    return passwordFailure(rc);
                keptRejected = true;
            }
        }
        if (!m_c.prompter)
            return fail(FailureKind::AuthFailed,
                        keptRejected ? QObject::tr("the remembered password was rejected and there is no one to ask "
                                                   "for another")
                                     : QObject::tr("a password is needed and there is no one to ask for it"));
        const QString who = m_c.endpoint.effectiveUser() + '@' + m_c.endpoint.hostPort();
        for (int attempt = 0; attempt < kTries; ++attempt) {
            bool remember = false;
            const QString prompt = (attempt || keptRejected ? QObject::tr("Password rejected. Password for %1")
                                                            : QObject::tr("Password for %1")).arg(who);
            const std::optional<QString> typed = askSecret(*m_c.prompter, m_c.endpoint, prompt,
                                                           canRemember ? &remember : nullptr, m_c.deadline);
            if (!typed)
                return attempt || keptRejected
                           ? fail(FailureKind::AuthFailed,
                                  QObject::tr("password rejected for user %1, and no other was given")
                                      .arg(m_c.endpoint.effectiveUser()))
                           : fail(FailureKind::Cancelled, QObject::tr("no password given for %1").arg(who));
            const int rc = tryPassword(*typed);
            if (rc == SSH_AUTH_SUCCESS) {
                if (remember)
                    keep(account, *typed, QObject::tr("the password of %1").arg(who));
                return true;
            }
            if (rc != SSH_AUTH_DENIED)
                return passwordFailure(rc);
        }
        return fail(FailureKind::AuthFailed,
                    QObject::tr("password rejected for user %1 (%2 tries)").arg(m_c.endpoint.effectiveUser()).arg(kTries));
    }

    int tryPassword(const QString& password)
    {
        applyTimeout(m_c.session, *m_c.deadline);
        const SecretBytes bytes(password);
        return ssh_userauth_password(m_c.session, nullptr, bytes.get());
    }

    bool passwordFailure(int rc)
    {
        if (rc == SSH_AUTH_PARTIAL)
            return fail(FailureKind::AuthFailed,
                        QObject::tr("the password was accepted but the host asks for a further method (%1), "
                                    "which Strata does not offer").arg(methodsText(ssh_userauth_list(m_c.session, nullptr))));
        return failCall(rc, QObject::tr("authentication by password"));
    }

    // Stores a secret that worked; a keyring that cannot keep it is a warning, not a failure.
    void keep(const QString& account, const QString& secret, const QString& what)
    {
        QString error;
        if (!m_c.keyring->store(account, secret, &error) && m_c.warnings)
            *m_c.warnings << QObject::tr("%1: %2 was not remembered: %3").arg(m_c.endpoint.label(), what, error);
    }

    const AuthContext& m_c;
    QString* m_cause;
    FailureKind* m_kind;
};

} // namespace

void applyTimeout(ssh_session session, const QDeadlineTimer& deadline)
{
    const qint64 ms = std::max<qint64>(1, deadline.remainingTime());
    long seconds = long(ms / 1000);
    long usec = long(ms % 1000) * 1000;
    ssh_options_set(session, SSH_OPTIONS_TIMEOUT, &seconds);
    ssh_options_set(session, SSH_OPTIONS_TIMEOUT_USEC, &usec);
}

bool authenticate(const AuthContext& context, QString* cause, FailureKind* kind)
{
    return Login(context, cause, kind).run();
}

} // namespace strata::app::ssh
