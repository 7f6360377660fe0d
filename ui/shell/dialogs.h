#pragma once
// The questions the window asks the user (which file, save changes?). Tests substitute
// their own answers; the window never opens a dialog any other way.

#include <QString>
#include <QStringList>

#include <optional>

class QWidget;

namespace strata::ui {

class Dialogs {
public:
    enum class SaveChoice { Save, Discard, Cancel };

    virtual ~Dialogs() = default;
    virtual SaveChoice askToSave(QWidget* parent, const QString& documentName);
    // Empty when cancelled.
    virtual QString openFile(QWidget* parent, const QString& title, const QString& filter);
    virtual QString saveFile(QWidget* parent, const QString& title, const QString& suggested, const QString& filter);
    virtual QString directory(QWidget* parent, const QString& title, const QString& start);
    // A line of text (a run's name, its tags); none when cancelled.
    virtual std::optional<QString> askText(QWidget* parent, const QString& title, const QString& label,
                                           const QString& initial);
    // Whether to forget `what` (runs) from the history, and whether their run directories go
    // too (a box the user ticks; unticked by default).
    enum class DeleteChoice { Cancel, Forget, ForgetAndDeleteFiles };
    virtual DeleteChoice askToDelete(QWidget* parent, const QString& what);
    // An SSH host whose key is not known yet (`host`: how the node is named and reached):
    // trust this key? True: yes.
    virtual bool askTrustHostKey(QWidget* parent, const QString& host, const QString& keyType,
                                 const QString& fingerprint);
    // A password or passphrase (`prompt` says which), never shown; none when cancelled.
    // `remember` (null: no keyring to remember it in) is set when the user ticks the box.
    virtual std::optional<QString> askSecret(QWidget* parent, const QString& prompt, bool* remember);
    // The window closes while a run goes on: it can go on without the window (Strata follows
    // it again later) or be stopped first.
    enum class RunningChoice { LeaveRunning, Stop, Cancel };
    virtual RunningChoice askAboutRunningRun(QWidget* parent, const QString& run);
    // The engine refused to resume `runDir`'s checkpoint: it was written by a different
    // experiment (`differences`, one field a line). Start fresh (the checkpoints set aside),
    // load its weights only (offered when `weightsOnly`), or leave the run directory as it is.
    enum class ResumeAnswer { Fresh, WeightsOnly, Cancel };
    virtual ResumeAnswer askResumeChoice(QWidget* parent, const QString& runDir, const QStringList& differences,
                                         bool weightsOnly);
};

} // namespace strata::ui
