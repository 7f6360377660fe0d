// The app's record writers for the crash-consistency tests, which kill them, run two at once
// or make their calls fail (tests/engine/fault_injection.cpp):
//   record_writer history FILE [COUNT]  records runs in the run history, each started
//                                       (`running`) then finished (`completed`), COUNT of
//                                       them or until killed; prints "finished ID" after each
//   record_writer tasks FILE [VERSION]  writes a tasks.json (writeJsonFile) whose "version"
//                                       counts up from the file's (or writes VERSION once);
//                                       prints "wrote N" after each
//   record_writer document FILE NAME    opens an experiment document, renames it NAME and
//                                       saves it; prints "wrote 1"
// A failure prints "error: MESSAGE" and exits 1.

#include "app/experiment/experiment_document.h"
#include "app/history/run_history.h"
#include "app/rundir/json_file.h"

#include <QCoreApplication>
#include <QFile>

#include <cstdio>

namespace {

using Json = nlohmann::ordered_json;

int fail(const QString& message)
{
    std::printf("error: %s\n", qPrintable(message));
    return 1;
}

int recordRuns(const QString& file, qint64 count)
{
    strata::app::RunHistory history;
    QString error;
    if (!history.open(file, &error))
        return fail(error);
    for (qint64 i = 0; count == 0 || i < count; ++i) {
        strata::app::RunRecord run;
        run.name = "crash";
        run.experiment = R"({"name": "crash"})";
        run.strategy = "OneDevice";
        run.replicas = 1;
        run.source = "test";
        run.startedAt = QDateTime::currentSecsSinceEpoch();
        run.runDir = "/nowhere";
        run.tags = {"a", "b"};
        if (!history.insertRun(run, &error))
            return fail(error);
        strata::app::RunEnd end;
        end.metrics = R"({"test": {"accuracy": 0.5}})";
        end.steps = 10;
        if (!history.finishRun(run.id, end, &error))
            return fail(error);
        std::printf("finished %lld\n", static_cast<long long>(run.id));
        std::fflush(stdout);
    }
    return 0;
}

// tasks.json with `version` and that many tasks (so it grows, and a torn write would show).
int writeTasks(const QString& file, qint64 only)
{
    qint64 version = only;
    if (version == 0) {
        QFile existing(file);
        if (existing.open(QIODevice::ReadOnly))
            version = Json::parse(existing.readAll().toStdString(), nullptr, false).value("version", qint64{0});
    }
    for (;;) {
        version += only ? 0 : 1;
        Json tasks = Json::array();
        for (qint64 i = 0; i < version % 200 + 1; ++i)
            tasks.push_back({{"task", "worker:" + std::to_string(i)}, {"exit_code", 0}, {"version", version}});
        QString error;
        if (!strata::app::writeJsonFile(file, Json{{"version", version}, {"tasks", tasks}}, &error))
            return fail(error);
        std::printf("wrote %lld\n", static_cast<long long>(version));
        std::fflush(stdout);
        if (only)
            return 0;
    }
}

int saveDocument(const QString& file, const QString& name)
{
    strata::app::ExperimentDocument document;
    QString error;
    if (!document.load(file, &error))
        return fail(error);
    document.setValue("/name", name);
    if (!document.save(&error))
        return fail(error);
    std::printf("wrote 1\n");
    return 0;
}

} // namespace

int main(int argc, char** argv)
{
    QCoreApplication app(argc, argv);
    const QStringList args = app.arguments().mid(1);
    if (args.size() >= 2 && args[0] == "history")
        return recordRuns(args[1], args.value(2).toLongLong());
    if (args.size() >= 2 && args[0] == "tasks")
        return writeTasks(args[1], args.value(2).toLongLong());
    if (args.size() == 3 && args[0] == "document")
        return saveDocument(args[1], args[2]);
    std::fprintf(stderr, "usage: record_writer history FILE [COUNT] | tasks FILE [VERSION] | document FILE NAME\n");
    return 2;
}
