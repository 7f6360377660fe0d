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

// The environment that has tests/engine/fault_injection.cpp stop the writer at the nth `call`
// (write, fsync, rename...) on a path containing `match`: `action` fail (with errno `error`)
// or kill.
inline QProcessEnvironment faultEnvironment(const QString& library, const QString& call, const QString& match, int nth,
                                            const QString& action, int error)
{
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert("LD_PRELOAD", library);
    env.insert("ASAN_OPTIONS", "verify_asan_link_order=0");
    env.insert("STRATA_FAULT_CALL", call);
    env.insert("STRATA_FAULT_MATCH", match);
    env.insert("STRATA_FAULT_NTH", QString::number(nth));
    env.insert("STRATA_FAULT_ACTION", action);
    env.insert("STRATA_FAULT_ERRNO", QString::number(error));
    return env;
}
