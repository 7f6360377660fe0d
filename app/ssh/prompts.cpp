#include "app/ssh/prompts.h"

#include <QElapsedTimer>

#include <mutex>

namespace strata::app::ssh {

namespace {

std::mutex g_promptMutex;

template<typename Ask>
auto serialized(QDeadlineTimer* deadline, Ask ask)
{
    QElapsedTimer waited;
    waited.start();
    std::lock_guard lock(g_promptMutex);
    auto answer = ask();
    if (deadline && !deadline->isForever())
        *deadline += waited.elapsed();
    return answer;
}

} // namespace

HostKeyAnswer askHostKey(Prompter& prompter, const Endpoint& endpoint, const QString& keyType,
                         const QString& fingerprint, QDeadlineTimer* deadline)
{
    return serialized(deadline, [&] { return prompter.unknownHostKey(endpoint, keyType, fingerprint); });
}

std::optional<QString> askSecret(Prompter& prompter, const Endpoint& endpoint, const QString& prompt,
                                 bool* remember, QDeadlineTimer* deadline)
{
    return serialized(deadline, [&] { return prompter.secret(endpoint, prompt, remember); });
}

} // namespace strata::app::ssh
