// Session against real OpenSSH servers (ssh_fixture.h): key, agent and password logins, an
// encrypted key's passphrase asked through a Prompter, the host key rules (an unknown key
// trusted writes exactly one line, refused or unasked writes nothing, a changed key is
// refused naming both fingerprints, the file byte for byte unchanged), every way a connect
// fails with a message naming the node and the cause within its timeout (nothing listening,
// a listener that never speaks SSH, a host whose link is cut), runCommand, the keyring
// without a Secret Service, and `strata hosts trust`.
//
// The process runs with a temporary HOME (so ~/.ssh/known_hosts is the test's), no
// SSH_AUTH_SOCK, and a D-Bus session address that leads nowhere (no Secret Service).

#include "netns_fixture.h"
#include "ssh_fixture.h"

#include "app/ssh/hosts_command.h"
#include "app/ssh/keyring.h"
#include "app/ssh/run_command.h"
#include "app/ssh/session.h"
#include "app/ssh/terminal_prompter.h"

#include <QDirIterator>
#include <QElapsedTimer>
#include <QtTest>

#include <pty.h>
#include <sys/stat.h>
#include <thread>

using namespace strata::app::ssh;
using namespace sshtest;

namespace {

// Every file under `dir`, for checking that nothing was written there.
QStringList filesUnder(const QString& dir)
{
    QStringList files;
    for (QDirIterator it(dir, QDir::Files | QDir::Hidden | QDir::System, QDirIterator::Subdirectories); it.hasNext();)
        files << it.next();
    return files;
}

// What `run` printed on a stream (a temporary file).
QString printed(std::FILE* f)
{
    std::fflush(f);
    std::rewind(f);
    QByteArray text;
    char buffer[4096];
    while (const size_t n = std::fread(buffer, 1, sizeof buffer, f))
        text.append(buffer, qsizetype(n));
    return QString::fromLocal8Bit(text);
}

// A person at a terminal: reads the pseudo-terminal's output and, after each expected
// prompt, types the answer. `transcript` is everything the terminal showed meanwhile.
class Typist {
public:
    Typist(int master, QList<QPair<QByteArray, QByteArray>> script)
        : m_thread([this, master, script] {
              qsizetype from = 0;
              for (const auto& [prompt, answer] : script) {
                  while (m_transcript.indexOf(prompt, from) < 0) {
                      char buffer[256];
                      const ssize_t n = ::read(master, buffer, sizeof buffer);
                      if (n <= 0)
                          return;
                      m_transcript.append(buffer, n);
                  }
                  from = m_transcript.indexOf(prompt, from) + prompt.size();
                  [[maybe_unused]] const ssize_t w = ::write(master, answer.constData(), size_t(answer.size()));
              }
          })
    {
    }
    // What the terminal showed, up to now.
    QByteArray transcript(int master)
    {
        m_thread.join();
        ::fcntl(master, F_SETFL, ::fcntl(master, F_GETFL) | O_NONBLOCK);
        char buffer[4096];
        for (ssize_t n; (n = ::read(master, buffer, sizeof buffer)) > 0;)
            m_transcript.append(buffer, n);
        ::fcntl(master, F_SETFL, ::fcntl(master, F_GETFL) & ~O_NONBLOCK);
        return m_transcript;
    }
    ~Typist()
    {
        if (m_thread.joinable())
            m_thread.join();
    }

private:
    QByteArray m_transcript;
    std::thread m_thread;
};

} // namespace

class TestSshSession : public QObject {
    Q_OBJECT

    QTemporaryDir m_home;
    std::unique_ptr<SshServer> m_server; // key logins as root
    int m_files = 0;

    // A known_hosts file of its own for each test.
    QString newKnownHosts() { return m_home.filePath(QStringLiteral("kh-%1/known_hosts").arg(++m_files)); }

    SessionOptions optionsFor(const QString& knownHosts, int timeoutMs = 10000)
    {
        SessionOptions o;
        o.knownHostsFile = knownHosts;
        o.timeoutMs = timeoutMs;
        return o;
    }

    // known_hosts that already trusts `server`.
    QString trusting(const SshServer& server)
    {
        const QString file = newKnownHosts();
        QDir().mkpath(QFileInfo(file).path());
        writeAll(file, server.knownHostsLine());
        return file;
    }

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_home.isValid());
        // Nothing of this machine's user: ~/.ssh, the agent, the keyring, XDG files.
        qputenv("HOME", QFile::encodeName(m_home.path()));
        qputenv("XDG_CONFIG_HOME", QFile::encodeName(m_home.filePath("config")));
        qputenv("XDG_DATA_HOME", QFile::encodeName(m_home.filePath("data")));
        qunsetenv("SSH_AUTH_SOCK");
        qputenv("DBUS_SESSION_BUS_ADDRESS", "unix:path=/nonexistent/strata-test-bus");
        if (const QString why = sshdSkipReason(); !why.isEmpty())
            QSKIP(qPrintable(why));
        m_server = std::make_unique<SshServer>();
        QVERIFY2(m_server->isRunning(), qPrintable(m_server->error()));
    }

    void endpointTexts()
    {
        Endpoint e;
        e.node = "gpu1";
        e.host = "10.0.0.5";
        e.user = "alice";
        QCOMPARE(e.label(), QStringLiteral("node \"gpu1\" (alice@10.0.0.5:22)"));
        QCOMPARE(e.knownHostsName(), QStringLiteral("10.0.0.5"));
        e.host = "fd00::5";
        e.port = 2222;
        e.node.clear();
        QCOMPARE(e.label(), QStringLiteral("alice@[fd00::5]:2222"));
        QCOMPARE(e.knownHostsName(), QStringLiteral("[fd00::5]:2222"));
        e.user.clear(); // the current user
        QVERIFY(e.label().startsWith(QString::fromLocal8Bit(::getpwuid(::geteuid())->pw_name) + "@"));
        for (AuthMethod m : {AuthMethod::Agent, AuthMethod::Key, AuthMethod::Password})
            QCOMPARE(authMethodFromString(toString(m)), std::optional<AuthMethod>(m));
        QCOMPARE(authMethodFromString("none"), std::nullopt); // this machine: no SSH at all
        e.keyFile = "~/.ssh/id_ed25519";
        QCOMPARE(e.keyPath(), m_home.path() + "/.ssh/id_ed25519");
    }

    void keyLoginAndRunCommand()
    {
        QString error;
        FailureKind kind = FailureKind::Other;
        auto session = Session::connect(m_server->endpoint(AuthMethod::Key), optionsFor(trusting(*m_server)), nullptr,
                                        &error, &kind);
        QVERIFY2(session, qPrintable(error + "\n" + m_server->log()));
        QCOMPARE(kind, FailureKind::Other); // untouched on success
        const RunResult r = runCommand(*session, "echo out; echo err >&2; exit 3", {}, 5000);
        QVERIFY2(r.ran(), qPrintable(r.error));
        QCOMPARE(r.out, QByteArray("out\n"));
        QCOMPARE(r.err, QByteArray("err\n"));
        QCOMPARE(r.exitStatus, 3);
        // stdin handed over whole, then EOF; the session serves a second command.
        const RunResult cat = runCommand(*session, "cat; whoami", "bytes for cat\n", 5000);
        QVERIFY2(cat.ran(), qPrintable(cat.error));
        QCOMPARE(cat.out, QByteArray("bytes for cat\nroot\n"));
        QCOMPARE(cat.exitStatus, 0);
    }

    void runCommandTimesOut()
    {
        QString error;
        auto session = Session::connect(m_server->endpoint(AuthMethod::Key), optionsFor(trusting(*m_server)), nullptr, &error);
        QVERIFY2(session, qPrintable(error));
        QElapsedTimer t;
        t.start();
        const RunResult r = runCommand(*session, "sleep 10", {}, 300);
        QVERIFY(t.elapsed() < 1500);
        QCOMPARE(r.kind, FailureKind::TimedOut);
        QVERIFY2(r.error.contains("did not finish within 0.3 s") && r.error.contains("node \"test\""), qPrintable(r.error));
        QCOMPARE(runCommand(*session, "echo still here", {}, 5000).out, QByteArray("still here\n"));
    }

    void agentLogin()
    {
        SshAgent agent(m_server->clientKey());
        QVERIFY2(agent.isRunning(), qPrintable(agent.error()));
        SessionOptions options = optionsFor(trusting(*m_server));
        options.agentSocket = agent.socket();
        QString error;
        auto session = Session::connect(m_server->endpoint(AuthMethod::Agent), options, nullptr, &error);
        QVERIFY2(session, qPrintable(error + "\n" + m_server->log()));
        QCOMPARE(runCommand(*session, "echo agent", {}, 5000).out, QByteArray("agent\n"));
    }

    void agentMissing()
    {
        QString error;
        FailureKind kind = FailureKind::None;
        QVERIFY(!Session::connect(m_server->endpoint(AuthMethod::Agent), optionsFor(trusting(*m_server)), nullptr,
                                  &error, &kind));
        QCOMPARE(kind, FailureKind::AuthFailed);
        QVERIFY2(error.startsWith("node \"test\"") && error.contains("SSH_AUTH_SOCK"), qPrintable(error));
    }

    void encryptedKeyAsksPassphrase()
    {
        Endpoint e = m_server->endpoint(AuthMethod::Key);
        e.keyFile = m_server->encryptedClientKey();
        ScriptedPrompter prompter;
        prompter.secrets = {"not it", SshServer::kPassphrase};
        QString error;
        auto session = Session::connect(e, optionsFor(trusting(*m_server)), &prompter, &error);
        QVERIFY2(session, qPrintable(error));
        const QStringList prompts = prompter.promptsShown();
        QCOMPARE(prompts.size(), 2);
        QVERIFY2(prompts[0].startsWith("Passphrase for key " + e.keyFile), qPrintable(prompts[0]));
        QVERIFY2(prompts[1].startsWith("Wrong passphrase"), qPrintable(prompts[1]));
        // No keyring: remembering is not offered.
        QCOMPARE(prompter.rememberOffered(), QList<bool>({false, false}));
        QCOMPARE(runCommand(*session, "echo unlocked", {}, 5000).out, QByteArray("unlocked\n"));
    }

    void encryptedKeyCancelled()
    {
        Endpoint e = m_server->endpoint(AuthMethod::Key);
        e.keyFile = m_server->encryptedClientKey();
        ScriptedPrompter prompter; // no answers: the person cancels
        QString error;
        FailureKind kind = FailureKind::None;
        QVERIFY(!Session::connect(e, optionsFor(trusting(*m_server)), &prompter, &error, &kind));
        QCOMPARE(kind, FailureKind::Cancelled);
        QVERIFY2(error.startsWith(e.label()) && error.contains(e.keyFile), qPrintable(error));
    }

    void keyFileMissing()
    {
        Endpoint e = m_server->endpoint(AuthMethod::Key);
        e.keyFile = m_home.filePath("no-such-key");
        QString error;
        FailureKind kind = FailureKind::None;
        QVERIFY(!Session::connect(e, optionsFor(trusting(*m_server)), nullptr, &error, &kind));
        QCOMPARE(kind, FailureKind::KeyFile);
        QVERIFY2(error.startsWith("node \"test\"") && error.contains(e.keyFile) && error.contains("does not exist"),
                 qPrintable(error));
    }

    void passwordLogin()
    {
        SshServer server({.passwordUser = true});
        QVERIFY2(server.isRunning(), qPrintable(server.error()));
        const Endpoint e = server.endpoint(AuthMethod::Password, "pw");
        ScriptedPrompter prompter;
        prompter.secrets = {SshServer::kTestPassword};
        QString error;
        auto session = Session::connect(e, optionsFor(trusting(server)), &prompter, &error);
        QVERIFY2(session, qPrintable(error + "\n" + server.log()));
        QCOMPARE(prompter.promptsShown(),
                 QStringList{QStringLiteral("Password for strata-test@127.0.0.1:%1").arg(server.port())});
        QCOMPARE(runCommand(*session, "id -un", {}, 5000).out, QByteArray("strata-test\n"));
        // The user exists only inside sshd's mount namespace.
        QVERIFY(!readAll("/etc/passwd").contains("strata-test"));

        // A wrong password, three times: refused, naming the node and the method.
        ScriptedPrompter wrong;
        wrong.secrets = {"a", "b", "c"};
        FailureKind kind = FailureKind::None;
        QVERIFY(!Session::connect(e, optionsFor(trusting(server)), &wrong, &error, &kind));
        QCOMPARE(kind, FailureKind::AuthFailed);
        QVERIFY2(error.startsWith("node \"pw\" (strata-test@127.0.0.1:") && error.contains("password rejected"),
                 qPrintable(error));
        QCOMPARE(wrong.promptsShown().size(), 3);
        QVERIFY(wrong.promptsShown()[1].startsWith("Password rejected."));
        // The password never appears in what is reported.
        QVERIFY(!error.contains("correct horse"));

        // A keyring given, but no Secret Service runs: the prompt is told the password cannot
        // be remembered (the dialog says so), it logs in all the same, and nothing is written.
        const QStringList before = filesUnder(m_home.path());
        Keyring keyring(3000);
        SessionOptions options = optionsFor(trusting(server));
        options.keyring = &keyring;
        ScriptedPrompter remembering;
        remembering.secrets = {SshServer::kTestPassword};
        remembering.remember = true;
        auto kept = Session::connect(e, options, &remembering, &error);
        QVERIFY2(kept, qPrintable(error));
        QCOMPARE(remembering.rememberOffered(), QList<bool>{false});
        QVERIFY(kept->warnings().isEmpty());
        QStringList after = filesUnder(m_home.path());
        after.removeOne(options.knownHostsFile); // written by trusting() above
        QCOMPARE(after, before);
    }

    void keyringWithoutSecretService()
    {
        const QStringList before = filesUnder(m_home.path());
        Keyring keyring(3000);
        QString error;
        QElapsedTimer t;
        t.start();
        QVERIFY(!keyring.store("alice@gpu1:22", "s3cret", &error));
        QVERIFY2(error.contains("Secret Service") || error.contains("built without QtKeychain"), qPrintable(error));
        QVERIFY(!error.contains("s3cret"));
        error.clear();
        QVERIFY(!keyring.load("alice@gpu1:22", &error));
        QVERIFY2(!error.isEmpty(), "a keyring that cannot be read says so");
        QVERIFY(t.elapsed() < 7000);
        QCOMPARE(filesUnder(m_home.path()), before);
    }

    void unknownHostKeyTrusted()
    {
        // No file and no directory yet: both are made, the directory private.
        const QString file = newKnownHosts();
        ScriptedPrompter prompter;
        prompter.hostKeyAnswer = HostKeyAnswer::Trust;
        QString error;
        auto session = Session::connect(m_server->endpoint(AuthMethod::Key), optionsFor(file), &prompter, &error);
        QVERIFY2(session, qPrintable(error));
        QCOMPARE(prompter.hostKeysAsked(), QStringList{"ssh-ed25519 " + m_server->hostFingerprint()});
        QCOMPARE(readAll(file), m_server->knownHostsLine());
        struct stat dir{};
        QCOMPARE(::stat(QFile::encodeName(QFileInfo(file).path()).constData(), &dir), 0);
        QCOMPARE(dir.st_mode & 0777, 0700u);
        // Known now: not asked again.
        QVERIFY(Session::connect(m_server->endpoint(AuthMethod::Key), optionsFor(file), &prompter, &error));
        QCOMPARE(prompter.hostKeysAsked().size(), 1);
    }

    void trustAppendsExactlyOneLine()
    {
        // A file with other hosts, its last line without a newline.
        const QString file = newKnownHosts();
        QDir().mkpath(QFileInfo(file).path());
        const QByteArray pub = readAll(m_server->clientKey() + ".pub").trimmed();
        const QByteArray before = "# mine\nother.example " + pub.left(pub.lastIndexOf(' '));
        writeAll(file, before);
        ScriptedPrompter prompter;
        prompter.hostKeyAnswer = HostKeyAnswer::Trust;
        QString error;
        QVERIFY2(Session::connect(m_server->endpoint(AuthMethod::Key), optionsFor(file), &prompter, &error), qPrintable(error));
        QCOMPARE(readAll(file), before + '\n' + m_server->knownHostsLine());
    }

    void unknownHostKeyRefused()
    {
        const QString file = newKnownHosts();
        QDir().mkpath(QFileInfo(file).path());
        const QByteArray before = "# nothing for this host\n";
        writeAll(file, before);
        ScriptedPrompter prompter; // refuses
        QString error;
        FailureKind kind = FailureKind::None;
        QVERIFY(!Session::connect(m_server->endpoint(AuthMethod::Key), optionsFor(file), &prompter, &error, &kind));
        QCOMPARE(kind, FailureKind::HostKeyUnknown);
        QCOMPARE(prompter.hostKeysAsked().size(), 1);
        QCOMPARE(readAll(file), before);
        QVERIFY2(error.startsWith("node \"test\"") && error.contains(m_server->hostFingerprint())
                     && error.contains(QStringLiteral("`strata hosts trust 127.0.0.1:%1`").arg(m_server->port())),
                 qPrintable(error));
    }

    void unknownHostKeyWithNoOneToAsk()
    {
        // No prompter, then a terminal prompter with no terminal: refused, nothing written,
        // and the message says how to trust the host.
        const QString file = newKnownHosts();
        TerminalPrompter noTerminal(m_home.filePath("no-tty"));
        for (Prompter* prompter : {static_cast<Prompter*>(nullptr), static_cast<Prompter*>(&noTerminal)}) {
            QString error;
            FailureKind kind = FailureKind::None;
            QVERIFY(!Session::connect(m_server->endpoint(AuthMethod::Key), optionsFor(file), prompter, &error, &kind));
            QCOMPARE(kind, FailureKind::HostKeyUnknown);
            QVERIFY2(error.contains("strata hosts trust 127.0.0.1:") && error.contains("SHA256:"), qPrintable(error));
            QVERIFY(!QFileInfo::exists(file));
        }
    }

    void terminalPrompterAsksOnTheTerminal()
    {
        int master = -1, slave = -1;
        char name[256] = {};
        QVERIFY(::openpty(&master, &slave, name, nullptr, nullptr) == 0);
        TerminalPrompter terminal(QString::fromLocal8Bit(name));
        const Endpoint e = m_server->endpoint(AuthMethod::Password, "gpu1");
        {
            Typist typist(master, {{"(yes/no): ", "maybe\n"}, {"'yes' or 'no': ", "yes\n"}});
            QCOMPARE(terminal.unknownHostKey(e, "ssh-ed25519", "SHA256:abc"), HostKeyAnswer::Trust);
            const QByteArray shown = typist.transcript(master);
            QVERIFY2(shown.contains("node \"gpu1\"") && shown.contains("ssh-ed25519 key fingerprint: SHA256:abc"),
                     shown.constData());
        }
        {
            Typist typist(master, {{"(yes/no): ", "no\n"}});
            QCOMPARE(terminal.unknownHostKey(e, "ssh-ed25519", "SHA256:abc"), HostKeyAnswer::Refuse);
        }
        {
            Typist typist(master, {{"Password for x: ", "hunter2\n"}, {"keyring? (yes/no): ", "yes\n"}});
            bool remember = false;
            QCOMPARE(terminal.secret(e, "Password for x", &remember), std::optional<QString>("hunter2"));
            QVERIFY(remember);
            // Echo was off while it was typed.
            QVERIFY(!typist.transcript(master).contains("hunter2"));
        }
        ::close(slave);
        ::close(master);
    }

    void changedHostKeyRefused()
    {
        SshServer server;
        QVERIFY2(server.isRunning(), qPrintable(server.error()));
        // The known_hosts of a home of its own, which `strata hosts trust` uses below.
        const QString home = m_home.filePath("changed-home");
        const QString file = home + "/.ssh/known_hosts";
        QDir().mkpath(home + "/.ssh");
        writeAll(file, server.knownHostsLine());
        const QByteArray before = readAll(file);
        const QString oldFingerprint = server.hostFingerprint();
        QVERIFY2(server.regenerateHostKey(), qPrintable(server.error()));
        const QString newFingerprint = server.hostFingerprint();
        QVERIFY(oldFingerprint != newFingerprint);

        ScriptedPrompter prompter;
        prompter.hostKeyAnswer = HostKeyAnswer::Trust; // never asked: a changed key is not a question
        QString error;
        FailureKind kind = FailureKind::None;
        QVERIFY(!Session::connect(server.endpoint(AuthMethod::Key), optionsFor(file), &prompter, &error, &kind));
        QCOMPARE(kind, FailureKind::HostKeyChanged);
        QVERIFY(prompter.hostKeysAsked().isEmpty());
        QVERIFY2(error.startsWith("node \"test\"") && error.contains("CHANGED") && error.contains(oldFingerprint)
                     && error.contains(newFingerprint) && error.contains("ssh-keygen -R '" + server.knownHostsName() + "'"),
                 qPrintable(error));
        QCOMPARE(readAll(file), before);

        // `strata hosts trust` refuses it the same way.
        std::FILE* out = std::tmpfile();
        std::FILE* err = std::tmpfile();
        qputenv("HOME", QFile::encodeName(home));
        const int status = hostsCommand({"trust", QStringLiteral("127.0.0.1:%1").arg(server.port()), "--yes"}, out, err);
        qputenv("HOME", QFile::encodeName(m_home.path()));
        const QString said = printed(err);
        std::fclose(out);
        std::fclose(err);
        QCOMPARE(status, 1);
        QVERIFY2(said.contains("CHANGED") && said.contains(oldFingerprint) && said.contains(newFingerprint), qPrintable(said));
        QCOMPARE(readAll(file), before);
    }

    void connectionRefused()
    {
        Endpoint e = m_server->endpoint(AuthMethod::Key, "gpu1");
        e.port = freePort(); // nothing listens there
        QString error;
        FailureKind kind = FailureKind::None;
        QElapsedTimer t;
        t.start();
        QVERIFY(!Session::connect(e, optionsFor(newKnownHosts()), nullptr, &error, &kind));
        QVERIFY(t.elapsed() < 1000);
        QCOMPARE(kind, FailureKind::ConnectionRefused);
        QVERIFY(isUnreachable(kind));
        QVERIFY2(error == QStringLiteral("node \"gpu1\" (root@127.0.0.1:%1): connection refused (nothing listens on port %1)")
                              .arg(e.port),
                 qPrintable(error));
    }

    void listenerThatNeverSpeaksSsh()
    {
        QTcpServer silent; // the kernel accepts; nothing ever answers
        QVERIFY(silent.listen(QHostAddress::LocalHost, 0));
        Endpoint e = m_server->endpoint(AuthMethod::Key, "mute");
        e.port = silent.serverPort();
        QString error;
        FailureKind kind = FailureKind::None;
        QElapsedTimer t;
        t.start();
        QVERIFY(!Session::connect(e, optionsFor(newKnownHosts(), 1500), nullptr, &error, &kind));
        QVERIFY2(t.elapsed() >= 1400 && t.elapsed() < 2500, qPrintable(QString::number(t.elapsed())));
        QCOMPARE(kind, FailureKind::TimedOut);
        QVERIFY2(error.startsWith("node \"mute\"") && error.contains("no SSH answer within 1.5 s"), qPrintable(error));
    }

    void hostThatDoesNotAnswer()
    {
        NetnsHosts hosts(1);
        if (!hosts.isReady())
            QSKIP(qPrintable(hosts.error()));
        QVERIFY(hosts.cut(0)); // packets for it vanish
        Endpoint e;
        e.node = "gone";
        e.host = hosts.address(0);
        e.auth = AuthMethod::Agent;
        QString error;
        FailureKind kind = FailureKind::None;
        QElapsedTimer t;
        t.start();
        QVERIFY(!Session::connect(e, optionsFor(newKnownHosts(), 3000), nullptr, &error, &kind));
        QVERIFY2(t.elapsed() >= 2900 && t.elapsed() < 4000, qPrintable(QString::number(t.elapsed())));
        QCOMPARE(kind, FailureKind::TimedOut);
        QVERIFY2(error.startsWith(QStringLiteral("node \"gone\" (root@%1:22): no answer within 3 s").arg(hosts.address(0))),
                 qPrintable(error));
    }

    void hostsTrustCommand()
    {
        const QString file = m_home.filePath(".ssh/known_hosts");
        QFile::remove(file);
        const QStringList args{"trust", QStringLiteral("127.0.0.1:%1").arg(m_server->port()), "--yes"};
        std::FILE* out = std::tmpfile();
        std::FILE* err = std::tmpfile();
        QCOMPARE(hostsCommand(args, out, err), 0);
        const QString first = printed(out);
        QVERIFY2(first.contains("ssh-ed25519 " + m_server->hostFingerprint()) && first.contains("--yes"), qPrintable(first));
        QCOMPARE(readAll(file), m_server->knownHostsLine());
        std::fclose(out);
        out = std::tmpfile();
        QCOMPARE(hostsCommand(args, out, err), 0);
        QVERIFY2(printed(out).contains("already trusted"), qPrintable(printed(out)));
        QCOMPARE(readAll(file), m_server->knownHostsLine());
        // Without --yes and without a terminal: not trusted, nothing written; bad arguments: 2.
        std::fclose(out);
        out = std::tmpfile();
        QFile::remove(file);
        if (const int tty = ::open("/dev/tty", O_RDWR | O_NOCTTY); tty >= 0) {
            ::close(tty); // someone could answer: not this test's case
        } else {
            QCOMPARE(hostsCommand({"trust", args[1]}, out, err), 1);
            QVERIFY(!QFileInfo::exists(file));
        }
        QCOMPARE(hostsCommand({"trust"}, out, err), 2);
        QCOMPARE(hostsCommand({"trust", "host:notaport"}, out, err), 2);
        std::fclose(out);
        std::fclose(err);
    }
};

QTEST_GUILESS_MAIN(TestSshSession)
#include "tst_ssh_session.moc"
