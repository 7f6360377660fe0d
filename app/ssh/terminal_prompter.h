#pragma once
// TerminalPrompter: asks on the controlling terminal (/dev/tty, so it works with stdin and
// stdout redirected): the host key's type and SHA256 fingerprint with a yes/no question,
// secrets with echo off. With no terminal it cannot ask: host keys are refused (the
// session's message then says how to trust the host: `strata hosts trust HOST[:PORT]`) and
// secrets come back as cancelled.

#include "app/ssh/prompter.h"

namespace strata::app::ssh {

class TerminalPrompter final : public Prompter {
public:
    // `terminal`: the device to ask on.
    explicit TerminalPrompter(QString terminal = QStringLiteral("/dev/tty"));

    HostKeyAnswer unknownHostKey(const Endpoint& endpoint, const QString& keyType,
                                 const QString& sha256Fingerprint) override;
    std::optional<QString> secret(const Endpoint& endpoint, const QString& prompt, bool* remember) override;

private:
    QString m_terminal;
};

} // namespace strata::app::ssh
