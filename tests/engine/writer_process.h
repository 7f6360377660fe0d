#pragma once
// The crash-consistency tests' writer processes (checkpoint_writer, record_writer): run one to
// its end, or to its death by a signal the test sends or the fault library raises.

#include <QProcess>
#include <QString>
#include <QStringList>

struct WriterResult {
    int exitCode = -1;
    bool killed = false;
    QString out;
};

inline WriterResult runWriter(const QString& program, const QStringList& args,
                              const QProcessEnvironment& env = QProcessEnvironment::systemEnvironment())
{
    QProcess p;
    p.setProcessEnvironment(env);
    p.start(program, args);
    p.waitForFinished(60000);
    return {p.exitCode(), p.exitStatus() == QProcess::CrashExit, QString::fromUtf8(p.readAllStandardOutput())};
}
