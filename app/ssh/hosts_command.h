#pragma once
// `strata hosts trust HOST[:PORT] [--user USER] [--yes]`: connects far enough to read the
// host's key (no login), shows its type and SHA256 fingerprint and asks on the terminal
// whether to trust it (--yes: trusts it without asking, printing the fingerprint); a
// trusted key becomes one line of ~/.ssh/known_hosts. A key already there is reported as
// such; a changed key is refused exactly as a connection refuses it (the file untouched).
// ui/main.cpp only hands over the arguments after `hosts`.

#include <QStringList>

#include <cstdio>

namespace strata::app::ssh {

// Exit status: 0 trusted (now or already), 1 not trusted or the host could not be reached
// (the reason on `err`), 2 bad arguments.
int hostsCommand(const QStringList& args, std::FILE* out = stdout, std::FILE* err = stderr);

} // namespace strata::app::ssh
