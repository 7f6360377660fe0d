#pragma once
// Logging in on a session whose host key was checked: by the endpoint's method (agent, key
// file, password), secrets from the keyring first when there is one, else from the
// Prompter (three tries, as ssh gives), remembered in the keyring when the person asks
// (a secret is stored only once it has worked). Secrets never reach a log, a message,
// a command line or a file.

#include "app/ssh/endpoint.h"
#include "app/ssh/failure.h"

#include <libssh/libssh.h>

#include <QDeadlineTimer>
#include <QStringList>

namespace strata::app::ssh {

class Keyring;
class Prompter;

struct AuthContext {
    ssh_session session = nullptr; // blocking; its timeout is set from `deadline` before each call
    Endpoint endpoint;
    QString agentSocket;           // empty: $SSH_AUTH_SOCK
    Prompter* prompter = nullptr;  // may be null: nothing can be asked
    Keyring* keyring = nullptr;    // may be null: nothing is remembered
    QDeadlineTimer* deadline = nullptr;
    int timeoutMs = 0;             // for the messages
    QStringList* warnings = nullptr; // what went wrong but did not stop the login
};

// True once logged in; else false with *cause (without the endpoint's label) and *kind.
bool authenticate(const AuthContext& context, QString* cause, FailureKind* kind);

// Sets libssh's timeout for blocking calls to what is left of `deadline` (at least 1 ms).
void applyTimeout(ssh_session session, const QDeadlineTimer& deadline);

} // namespace strata::app::ssh
