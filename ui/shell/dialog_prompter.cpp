#include "ui/shell/dialog_prompter.h"

#include "ui/shell/dialogs.h"

#include <QThread>
#include <QWidget>

namespace strata::ui {

DialogPrompter::DialogPrompter(Dialogs* dialogs, QWidget* window)
    : QObject(window), m_dialogs(dialogs), m_window(window)
{
}

template<typename Ask>
void DialogPrompter::onWindowThread(Ask ask)
{
    if (QThread::currentThread() == thread())
        ask();
    else
        QMetaObject::invokeMethod(this, ask, Qt::BlockingQueuedConnection);
}

app::ssh::HostKeyAnswer DialogPrompter::unknownHostKey(const app::ssh::Endpoint& endpoint, const QString& keyType,
                                                       const QString& sha256Fingerprint)
{
    bool trust = false;
    onWindowThread([&] { trust = m_dialogs->askTrustHostKey(m_window, endpoint.label(), keyType, sha256Fingerprint); });
    return trust ? app::ssh::HostKeyAnswer::Trust : app::ssh::HostKeyAnswer::Refuse;
}

std::optional<QString> DialogPrompter::secret(const app::ssh::Endpoint&, const QString& prompt, bool* remember)
{
    std::optional<QString> answer;
    onWindowThread([&] { answer = m_dialogs->askSecret(m_window, prompt, remember); });
    return answer;
}

} // namespace strata::ui
