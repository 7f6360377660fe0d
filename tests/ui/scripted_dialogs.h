#pragma once
// Answers the window's questions from a script (the window never opens a dialog otherwise).

#include "ui/shell/dialogs.h"

#include <QStringList>

#include <deque>

namespace uitest {

class ScriptedDialogs : public strata::ui::Dialogs {
public:
    std::deque<SaveChoice> saveAnswers;
    std::deque<QString> files;
    std::deque<QString> texts; // a null QString: cancelled
    std::deque<DeleteChoice> deleteAnswers;
    std::deque<bool> hostKeyAnswers;
    std::deque<QString> secrets; // a null QString: cancelled
    // Closing with a run in progress: stop it unless told otherwise.
    std::deque<RunningChoice> runningAnswers;
    int saveQuestions = 0;
    int deleteQuestions = 0;
    int hostKeyQuestions = 0;
    QStringList hostKeysAsked; // "host keyType fingerprint", one per question
    int secretQuestions = 0;
    int runningQuestions = 0;
    // A resume refused: what to do instead (cancel unless told otherwise), and what was shown.
    std::deque<ResumeAnswer> resumeAnswers;
    int resumeQuestions = 0;
    QStringList resumeDifferences;
    bool weightsOnlyOffered = false;

    SaveChoice askToSave(QWidget*, const QString&) override
    {
        ++saveQuestions;
        return take(saveAnswers, SaveChoice::Cancel);
    }
    QString openFile(QWidget*, const QString&, const QString&) override { return take(files, {}); }
    QString saveFile(QWidget*, const QString&, const QString&, const QString&) override { return take(files, {}); }
    QString directory(QWidget*, const QString&, const QString&) override { return take(files, {}); }
    std::optional<QString> askText(QWidget*, const QString&, const QString&, const QString&) override
    {
        const QString answer = take(texts, QString());
        if (answer.isNull())
            return std::nullopt;
        return answer;
    }
    DeleteChoice askToDelete(QWidget*, const QString&) override
    {
        ++deleteQuestions;
        return take(deleteAnswers, DeleteChoice::Cancel);
    }

    bool askTrustHostKey(QWidget*, const QString& host, const QString& keyType, const QString& fingerprint) override
    {
        ++hostKeyQuestions;
        hostKeysAsked << host + ' ' + keyType + ' ' + fingerprint;
        return take(hostKeyAnswers, false);
    }
    std::optional<QString> askSecret(QWidget*, const QString&, bool*) override
    {
        ++secretQuestions;
        const QString answer = take(secrets, QString());
        if (answer.isNull())
            return std::nullopt;
        return answer;
    }
    RunningChoice askAboutRunningRun(QWidget*, const QString&) override
    {
        ++runningQuestions;
        return take(runningAnswers, RunningChoice::Stop);
    }

    ResumeAnswer askResumeChoice(QWidget*, const QString&, const QStringList& differences, bool weightsOnly) override
    {
        ++resumeQuestions;
        resumeDifferences = differences;
        weightsOnlyOffered = weightsOnly;
        return take(resumeAnswers, ResumeAnswer::Cancel);
    }

private:
    template<typename T>
    static T take(std::deque<T>& queue, T fallback)
    {
        if (queue.empty())
            return fallback;
        T value = queue.front();
        queue.pop_front();
        return value;
    }
};

} // namespace uitest
