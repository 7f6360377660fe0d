#include "app/ssh/connection.h"

#include <QPointer>

namespace strata::app::ssh {

Connection::Connection(const Endpoint& endpoint, const SessionOptions& options, Prompter* prompter, QObject* parent)
    : QObject(parent), m_endpoint(endpoint)
{
    // The loop's thread hands each batch over to this object's thread. The thread is joined
    // in the destructor before `this` goes, and batches still queued then go with it.
    auto sink = [this](std::vector<SessionLoop::Report> reports) {
        QMetaObject::invokeMethod(this, [this, reports = std::move(reports)] { deliver(reports); }, Qt::QueuedConnection);
    };
    m_loop = std::make_shared<SessionLoop>(endpoint, options, prompter, std::move(sink));
}

Connection::~Connection()
{
    m_loop->stop();
    if (m_thread)
        m_thread->wait();
}

void Connection::open()
{
    if (m_state != State::Idle)
        return;
    m_state = State::Connecting;
    m_thread.reset(QThread::create([loop = m_loop] { loop->run(); }));
    m_thread->setObjectName(QStringLiteral("strata-ssh ") + m_endpoint.host);
    m_thread->start();
}

void Connection::post(SessionLoop::Command command)
{
    m_loop->post(std::move(command));
}

int Connection::exec(const QByteArray& command, const QByteArray& stdinData)
{
    const int id = ++m_lastId;
    post({SessionLoop::Command::Exec, id, command, stdinData});
    return id;
}

void Connection::write(int id, const QByteArray& data)
{
    post({SessionLoop::Command::Write, id, data});
}

void Connection::closeStdin(int id)
{
    post({SessionLoop::Command::CloseStdin, id});
}

void Connection::closeChannel(int id)
{
    post({SessionLoop::Command::Close, id});
}

void Connection::sendSignal(int id, const QByteArray& name)
{
    post({SessionLoop::Command::Signal, id, name});
}

void Connection::drop()
{
    m_loop->stop();
    // Never opened: the loop still runs, to fail at once and close the channels asked for.
    if (m_state == State::Idle)
        open();
}

void Connection::deliver(const std::vector<SessionLoop::Report>& reports)
{
    // A slot may delete this connection: stop at once then.
    const QPointer<Connection> self(this);
    for (const SessionLoop::Report& r : reports) {
        if (!self)
            return;
        switch (r.kind) {
        case SessionLoop::Report::Connected:
            m_state = State::Connected;
            Q_EMIT connected();
            break;
        case SessionLoop::Report::Failed:
            m_state = State::Ended;
            Q_EMIT failed(r.text, r.failure);
            break;
        case SessionLoop::Report::Warning: Q_EMIT warning(r.text); break;
        case SessionLoop::Report::Stdout: Q_EMIT channelStdout(r.id, r.data); break;
        case SessionLoop::Report::Stderr: Q_EMIT channelStderr(r.id, r.data); break;
        case SessionLoop::Report::ChannelFailed: Q_EMIT channelFailed(r.id, r.text); break;
        case SessionLoop::Report::ChannelClosed: Q_EMIT channelClosed(r.id, r.exitStatus, r.text); break;
        case SessionLoop::Report::Lost:
            m_state = State::Ended;
            Q_EMIT lost(r.text);
            break;
        }
    }
}

} // namespace strata::app::ssh
