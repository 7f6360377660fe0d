#include "ui/dialogs.h"

#include <QFileDialog>
#include <QMessageBox>

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

} // namespace strata::ui
