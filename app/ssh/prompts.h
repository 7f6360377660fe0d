#pragma once
// The Session's way of asking its Prompter: one prompt at a time across every session of the
// process (connections run on threads of their own and must not ask over each other), and
// the time the person takes to answer is added to the connect's deadline, which bounds
// waiting for hosts, not for people.

#include "app/ssh/prompter.h"

#include <QDeadlineTimer>

namespace strata::app::ssh {

HostKeyAnswer askHostKey(Prompter& prompter, const Endpoint& endpoint, const QString& keyType,
                         const QString& fingerprint, QDeadlineTimer* deadline);
std::optional<QString> askSecret(Prompter& prompter, const Endpoint& endpoint, const QString& prompt,
                                 bool* remember, QDeadlineTimer* deadline);

} // namespace strata::app::ssh
