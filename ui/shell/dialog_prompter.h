#pragma once
// DialogPrompter: what an SSH connection asks (an unknown host key, a password or
// passphrase), asked through the window's Dialogs. Connections ask on threads of their own;
// the question is put on the window's thread and the connection waits for the answer.

#include "app/ssh/prompter.h"

#include <QObject>

class QWidget;

namespace strata::ui {

class Dialogs;

class DialogPrompter final : public QObject, public app::ssh::Prompter {
    Q_OBJECT

public:
    DialogPrompter(Dialogs* dialogs, QWidget* window);

    app::ssh::HostKeyAnswer unknownHostKey(const app::ssh::Endpoint& endpoint, const QString& keyType,
                                           const QString& sha256Fingerprint) override;
    std::optional<QString> secret(const app::ssh::Endpoint& endpoint, const QString& prompt, bool* remember) override;

private:
    // Runs `ask` on the window's thread and waits for it.
    template<typename Ask>
    void onWindowThread(Ask ask);

    Dialogs* m_dialogs;
    QWidget* m_window;
};

} // namespace strata::ui
