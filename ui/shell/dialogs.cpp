#include "ui/shell/dialogs.h"

#include <QCheckBox>
#include <QDialog>
#include <QDialogButtonBox>
#include <QLabel>
#include <QLineEdit>
#include <QVBoxLayout>
#include <QFileDialog>
#include <QInputDialog>
#include <QMessageBox>
#include <QPushButton>

namespace strata::ui {

Dialogs::SaveChoice Dialogs::askToSave(QWidget* parent, const QString& documentName)
{
    const auto answer = QMessageBox::warning(
        parent, QObject::tr("Unsaved changes"),
        QObject::tr("%1 has unsaved changes. Save them?").arg(documentName),
        QMessageBox::Save | QMessageBox::Discard | QMessageBox::Cancel, QMessageBox::Save);
    return answer == QMessageBox::Save ? SaveChoice::Save
           : answer == QMessageBox::Discard ? SaveChoice::Discard
                                            : SaveChoice::Cancel;
}

QString Dialogs::openFile(QWidget* parent, const QString& title, const QString& filter)
{
    return QFileDialog::getOpenFileName(parent, title, {}, filter);
}

QString Dialogs::saveFile(QWidget* parent, const QString& title, const QString& suggested, const QString& filter)
{
    return QFileDialog::getSaveFileName(parent, title, suggested, filter);
}

QString Dialogs::directory(QWidget* parent, const QString& title, const QString& start)
{
    return QFileDialog::getExistingDirectory(parent, title, start);
}

std::optional<QString> Dialogs::askText(QWidget* parent, const QString& title, const QString& label,
                                        const QString& initial)
{
    bool ok = false;
    const QString text = QInputDialog::getText(parent, title, label, QLineEdit::Normal, initial, &ok);
    return ok ? std::optional<QString>(text) : std::nullopt;
}

Dialogs::DeleteChoice Dialogs::askToDelete(QWidget* parent, const QString& what)
{
    QMessageBox box(QMessageBox::Warning, QObject::tr("Delete runs"),
                    QObject::tr("Remove %1 from the run history?").arg(what), QMessageBox::Cancel, parent);
    QPushButton* remove = box.addButton(QObject::tr("Remove"), QMessageBox::DestructiveRole);
    auto* files = new QCheckBox(QObject::tr("Also delete their run directories (checkpoints, events, weights)"));
    box.setCheckBox(files);
    box.exec();
    if (box.clickedButton() != static_cast<QAbstractButton*>(remove))
        return DeleteChoice::Cancel;
    return files->isChecked() ? DeleteChoice::ForgetAndDeleteFiles : DeleteChoice::Forget;
}

bool Dialogs::askTrustHostKey(QWidget* parent, const QString& host, const QString& keyType, const QString& fingerprint)
{
    QMessageBox box(QMessageBox::Question, QObject::tr("Unknown host key"),
                    QObject::tr("The authenticity of %1 cannot be established: its key is not in your "
                                "known_hosts.\n\n%2 key fingerprint:\n%3\n\nTrust this key only if it is the "
                                "one the host's administrator gave you (ssh-keygen -lf on the host's key). "
                                "Trusting writes it to known_hosts.")
                        .arg(host, keyType, fingerprint),
                    QMessageBox::Cancel, parent);
    QPushButton* trust = box.addButton(QObject::tr("Trust and connect"), QMessageBox::AcceptRole);
    box.setDefaultButton(QMessageBox::Cancel);
    box.exec();
    return box.clickedButton() == static_cast<QAbstractButton*>(trust);
}

std::optional<QString> Dialogs::askSecret(QWidget* parent, const QString& prompt, bool* remember)
{
    QDialog dialog(parent);
    dialog.setWindowTitle(QObject::tr("SSH login"));
    auto* layout = new QVBoxLayout(&dialog);
    layout->addWidget(new QLabel(prompt, &dialog));
    auto* secret = new QLineEdit(&dialog);
    secret->setEchoMode(QLineEdit::Password);
    layout->addWidget(secret);
    QCheckBox* keep = nullptr;
    if (remember) {
        keep = new QCheckBox(QObject::tr("Remember it in the system keyring"), &dialog);
        layout->addWidget(keep);
    } else {
        layout->addWidget(new QLabel(QObject::tr("(No system keyring is available: it will not be remembered.)"),
                                     &dialog));
    }
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, &dialog);
    QObject::connect(buttons, &QDialogButtonBox::accepted, &dialog, &QDialog::accept);
    QObject::connect(buttons, &QDialogButtonBox::rejected, &dialog, &QDialog::reject);
    layout->addWidget(buttons);
    if (dialog.exec() != QDialog::Accepted)
        return std::nullopt;
    if (remember && keep)
        *remember = keep->isChecked();
    return secret->text();
}

Dialogs::RunningChoice Dialogs::askAboutRunningRun(QWidget* parent, const QString& run)
{
    QMessageBox box(QMessageBox::Question, QObject::tr("A run is in progress"),
                    QObject::tr("%1 is still running. It can go on without the window: open Strata again to "
                                "follow it (History > Reattach, or strata attach). Or stop it first (a checkpoint "
                                "is saved).")
                        .arg(run),
                    QMessageBox::Cancel, parent);
    QPushButton* leave = box.addButton(QObject::tr("Leave it running"), QMessageBox::AcceptRole);
    QPushButton* stop = box.addButton(QObject::tr("Stop it"), QMessageBox::DestructiveRole);
    box.setDefaultButton(leave);
    box.exec();
    if (box.clickedButton() == static_cast<QAbstractButton*>(leave))
        return RunningChoice::LeaveRunning;
    if (box.clickedButton() == static_cast<QAbstractButton*>(stop))
        return RunningChoice::Stop;
    return RunningChoice::Cancel;
}

Dialogs::ResumeAnswer Dialogs::askResumeChoice(QWidget* parent, const QString& runDir, const QStringList& differences,
                                               bool weightsOnly)
{
    QMessageBox box(QMessageBox::Question, QObject::tr("A different experiment"),
                    QObject::tr("The checkpoints in %1 were written by an experiment that differs from this one, so "
                                "it cannot resume from them. Start fresh (the checkpoints are moved into a "
                                "set-aside folder of the run directory, not deleted), or start from their weights "
                                "with a fresh optimizer and position?")
                        .arg(runDir),
                    QMessageBox::Cancel, parent);
    box.setDetailedText(differences.join('\n'));
    QPushButton* fresh = box.addButton(QObject::tr("Start fresh"), QMessageBox::AcceptRole);
    QPushButton* weights = box.addButton(QObject::tr("Load weights only"), QMessageBox::AcceptRole);
    weights->setEnabled(weightsOnly);
    if (!weightsOnly)
        weights->setToolTip(QObject::tr("The checkpoint's weights do not fit this model"));
    box.setDefaultButton(QMessageBox::Cancel);
    box.exec();
    if (box.clickedButton() == static_cast<QAbstractButton*>(fresh))
        return ResumeAnswer::Fresh;
    if (box.clickedButton() == static_cast<QAbstractButton*>(weights))
        return ResumeAnswer::WeightsOnly;
    return ResumeAnswer::Cancel;
}

} // namespace strata::ui
