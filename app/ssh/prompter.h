#pragma once
// Prompter: what a Session asks the person running Strata, supplied by the caller (the
// terminal's TerminalPrompter, a dialog in the window, a script in tests).
//
// Its functions may be called from any thread (a Connection's session runs on a thread of
// its own); Session serializes them, so one prompt at a time is shown across all sessions.
// A prompter never logs or keeps the secrets it returns.

#include "app/ssh/endpoint.h"

#include <QString>

#include <optional>

namespace strata::app::ssh {

enum class HostKeyAnswer {
    Trust,  // the fingerprint is the host's: remember the key in known_hosts and go on
    Refuse, // do not connect; known_hosts stays as it was
};

class Prompter {
public:
    virtual ~Prompter() = default;

    // The host's key is not in known_hosts: trust it? `keyType` is e.g. "ssh-ed25519",
    // `sha256Fingerprint` is "SHA256:..." as `ssh-keygen -l` prints it.
    virtual HostKeyAnswer unknownHostKey(const Endpoint& endpoint, const QString& keyType,
                                         const QString& sha256Fingerprint) = 0;

    // A password or a key's passphrase; `prompt` says which ("Password for alice@gpu1:22",
    // "Passphrase for key /home/alice/.ssh/id_ed25519"). `remember` is null when it cannot be
    // remembered (no keyring); else the prompter may set *remember = true to keep it in the
    // OS keyring. nullopt: the user cancelled.
    virtual std::optional<QString> secret(const Endpoint& endpoint, const QString& prompt, bool* remember) = 0;
};

} // namespace strata::app::ssh
