#pragma once
// Host keys against the user's known_hosts file, strictly: a known key goes on, an unknown
// one is trusted only by an answer (a prompt, `strata hosts trust`), and a changed one is
// refused, naming both fingerprints. The file is only ever appended to, one line per
// trusted key; a refusal leaves it byte for byte as it was.
//
// These functions work on a connected libssh session whose SSH_OPTIONS_KNOWNHOSTS is the
// file (and SSH_OPTIONS_GLOBAL_KNOWNHOSTS a file that does not exist), before it
// authenticates. Call them on the session's thread.

#include "app/ssh/endpoint.h"

#include <libssh/libssh.h>

#include <QList>
#include <QString>

namespace strata::app::ssh {

struct HostKey {
    QString type;        // "ssh-ed25519"
    QString fingerprint; // "SHA256:..."
    QString text() const { return type + ' ' + fingerprint; }
};

struct HostKeyCheck {
    enum State {
        Known,   // the file holds this key for this host
        Unknown, // the file holds no key for this host (or there is no file)
        Changed, // the file holds another key for this host (of this type or another)
        Error,   // the key or the file could not be read (see error)
    };
    State state = Error;
    HostKey offered;        // the key the host offered
    QList<HostKey> known;   // the keys the file holds for this host (when Changed)
    QString error;
};

// The known_hosts file of SessionOptions when none is given: ~/.ssh/known_hosts.
QString defaultKnownHostsFile();

HostKeyCheck checkHostKey(ssh_session session, const QString& knownHostsFile, const Endpoint& endpoint);

// Appends one line for the host's key (`[host]:port type base64`, `host ...` on port 22),
// creating the file and its directory (mode 0700) when missing. False with the reason.
bool trustHostKey(ssh_session session, const QString& knownHostsFile, QString* error);

// The messages, each naming the endpoint: an unknown key not trusted (`asked`: a prompter
// refused it; else there was no one to ask), with how to trust it; a changed key, with both
// fingerprints, the file left alone, and how to fix it if the change is expected.
QString unknownKeyMessage(const Endpoint& endpoint, const HostKey& offered, bool asked);
QString changedKeyMessage(const Endpoint& endpoint, const HostKeyCheck& check, const QString& knownHostsFile);

} // namespace strata::app::ssh
