#include "app/ssh/hosts_command.h"

#include "app/ssh/known_hosts.h"
#include "app/ssh/prompts.h"
#include "app/ssh/session.h"
#include "app/ssh/terminal_prompter.h"

#include <QObject>

namespace strata::app::ssh {

namespace {

void print(std::FILE* to, const QString& text)
{
    std::fputs((text + '\n').toLocal8Bit().constData(), to);
    std::fflush(to);
}

// HOST, HOST:PORT, [V6] or [V6]:PORT, or a bare IPv6 address.
bool parseHostPort(const QString& text, Endpoint* endpoint)
{
    QString host = text, port;
    if (text.startsWith('[')) {
        const qsizetype close = text.indexOf(']');
        if (close < 0)
            return false;
        host = text.mid(1, close - 1);
        const QString rest = text.mid(close + 1);
        if (!rest.isEmpty() && !rest.startsWith(':'))
            return false;
        port = rest.mid(1);
    } else if (text.count(':') == 1) {
        host = text.section(':', 0, 0);
        port = text.section(':', 1);
    }
    if (host.isEmpty())
        return false;
    endpoint->host = host;
    if (!port.isEmpty()) {
        bool ok = false;
        endpoint->port = port.toInt(&ok);
        if (!ok || endpoint->port <= 0 || endpoint->port > 65535)
            return false;
    }
    return true;
}

int usage(std::FILE* err, const QString& problem)
{
    print(err, QStringLiteral("strata: %1\nusage: strata hosts trust HOST[:PORT] [--user USER] [--yes]").arg(problem));
    return 2;
}

} // namespace

int hostsCommand(const QStringList& args, std::FILE* out, std::FILE* err)
{
    if (args.value(0) != QLatin1String("trust"))
        return usage(err, QObject::tr("unknown hosts command \"%1\"").arg(args.value(0)));
    Endpoint endpoint;
    bool yes = false, haveHost = false;
    for (qsizetype i = 1; i < args.size(); ++i) {
        const QString& a = args[i];
        if (a == QLatin1String("--yes")) {
            yes = true;
        } else if (a == QLatin1String("--user") && i + 1 < args.size()) {
            endpoint.user = args[++i];
        } else if (!a.startsWith('-') && !haveHost) {
            if (!parseHostPort(a, &endpoint))
                return usage(err, QObject::tr("\"%1\" is not HOST or HOST:PORT").arg(a));
            haveHost = true;
        } else {
            return usage(err, QObject::tr("unexpected argument \"%1\"").arg(a));
        }
    }
    if (!haveHost)
        return usage(err, QObject::tr("which host?"));

    QString error;
    const std::unique_ptr<Session> session = Session::handshake(endpoint, SessionOptions{}, &error);
    if (!session) {
        print(err, QStringLiteral("strata: ") + error);
        return 1;
    }
    const QString file = session->knownHostsFile();
    const HostKeyCheck check = checkHostKey(session->handle(), file, endpoint);
    switch (check.state) {
    case HostKeyCheck::Known:
        print(out, QObject::tr("%1 is already trusted: its key %2 is in %3.").arg(endpoint.label(), check.offered.text(), file));
        return 0;
    case HostKeyCheck::Changed:
        print(err, QStringLiteral("strata: ") + changedKeyMessage(endpoint, check, file));
        return 1;
    case HostKeyCheck::Error:
        print(err, QObject::tr("strata: %1: the host key could not be checked: %2").arg(endpoint.label(), check.error));
        return 1;
    case HostKeyCheck::Unknown:
        break;
    }
    if (yes) {
        print(out, QObject::tr("%1 offers the key %2; trusting it (--yes).").arg(endpoint.label(), check.offered.text()));
    } else {
        TerminalPrompter terminal;
        if (askHostKey(terminal, endpoint, check.offered.type, check.offered.fingerprint, nullptr) != HostKeyAnswer::Trust) {
            print(err, QObject::tr("strata: %1: the key %2 was not trusted (the answer was no, or there is no terminal "
                                   "to ask on: compare the fingerprint with the host's and run again with --yes); "
                                   "%3 is unchanged.").arg(endpoint.label(), check.offered.text(), file));
            return 1;
        }
    }
    if (!trustHostKey(session->handle(), file, &error)) {
        print(err, QObject::tr("strata: %1: %2").arg(endpoint.label(), error));
        return 1;
    }
    print(out, QObject::tr("Added the key of %1 to %2.").arg(endpoint.knownHostsName(), file));
    return 0;
}

} // namespace strata::app::ssh
