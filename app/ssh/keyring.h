#pragma once
// Keyring: passwords and key passphrases remembered in the OS keyring (a D-Bus Secret
// Service such as GNOME Keyring or KWallet) through QtKeychain, under the service "strata".
// There is no other place: without a Secret Service (a server, CI) or in a Strata built
// without QtKeychain, store() and load() fail and say why; nothing is ever written to a
// file in plain text.
//
// QtKeychain's jobs are asynchronous; each call here runs its job in a local event loop of
// the calling thread, bounded by the timeout, so the API is synchronous and may be used from
// any thread that Qt knows (a QThread, or the main thread), one call at a time per object.

#include "app/ssh/endpoint.h"

#include <QString>

#include <optional>

namespace strata::app::ssh {

class Keyring {
public:
    explicit Keyring(int timeoutMs = 10000) : m_timeoutMs(timeoutMs) {}

    // Keeps `secret` for `account`, replacing what was kept. False with the reason otherwise.
    bool store(const QString& account, const QString& secret, QString* error);
    // What is kept for `account`. nullopt with *error empty: nothing kept; with a reason: the
    // keyring could not be read.
    std::optional<QString> load(const QString& account, QString* error);
    // Forgets `account` (true also when nothing was kept).
    bool remove(const QString& account, QString* error);

    // A password's account: `user@host:port`.
    static QString passwordAccount(const Endpoint& endpoint);
    // A key passphrase's account: `key:` and the key file's absolute path (the passphrase
    // belongs to the file, whichever host it opens).
    static QString passphraseAccount(const QString& keyPath);

    static constexpr const char* kService = "strata";

private:
    int m_timeoutMs;
};

} // namespace strata::app::ssh
