#pragma once
// RunExport: one run directory written as TensorBoard event files under `outDir` (DIR/<run
// name>): a folder per TensorBoard run (train, validation, test, one per task: run_scalars.h),
// each holding one event file, events.out.tfevents.<start>.strata (event_file_writer.h).
//
// It reads the run's events-<task>.jsonl and steps-<task>.jsonl files from where it left them
// (whole lines only) each time poll() is called, so the same object exports a finished run in
// one poll (Snapshot) or follows a running one (Follow) until ended() says every task has.
//
// - Snapshot writes each file under a temporary name (without "tfevents", so a TensorBoard
//   watching DIR ignores it) and finish() puts it in place of what an earlier export of the
//   run wrote (files named *.strata; nothing else in DIR is touched).
// - Follow removes an earlier export's files first, then writes in place and flushes after
//   every poll: TensorBoard reads a growing file record by record.
//
// Lines that are not events (a torn last line of a killed engine, garbage) are skipped and
// reported in warnings(), naming the file and line. QtCore for files; one thread at a time.

#include "app/tensorboard/event_file_writer.h"
#include "app/tensorboard/run_scalars.h"

#include <QString>
#include <QStringList>

#include <map>
#include <memory>

namespace strata::app::tensorboard {

class RunExport final : private ScalarSink {
public:
    enum class Mode { Snapshot, Follow };

    RunExport(QString runDir, QString outDir, Mode mode);
    ~RunExport() override;

    // Checks that `runDir` is a run directory (its event files, or the experiment it runs,
    // which tells its tasks). False with the reason. Writes nothing: the first poll() creates
    // `outDir` (Follow: and removes an earlier export's files there).
    bool start(QString* error);
    // Reads what the run's files gained and writes it (Follow: flushed). False with the
    // reason when a file cannot be read or written.
    bool poll(QString* error);
    // Every task of the run has ended: its `done`, a fatal `error`, or its supervisor's
    // `exit` line (a task that never started: in tasks.json).
    bool ended() const;
    // Closes the files (Snapshot: moves them in place). False with the reason.
    bool finish(QString* error);

    // What it wrote: the TensorBoard runs (folders), tags and values.
    QStringList runs() const;
    int64_t tags() const;
    int64_t points() const;
    // The highest step of the training tasks' step records read (0: none).
    int64_t lastStep() const { return m_lastStep; }
    // Warnings since the last call.
    QStringList takeWarnings();

private:
    struct TaskFile;
    struct Task;
    struct Writer {
        std::unique_ptr<EventFileWriter> writer;
        QString finalPath; // Snapshot: where its temporary file goes
    };

    void scalar(const std::string& run, const std::string& tag, int64_t step, double wallTime, double value) override;
    bool readFile(TaskFile& file, bool records, Task& task, QString* error);
    void discoverFiles();
    Task& task(const QString& stem);
    // Removes the event files an earlier export wrote into the folders of m_outDir.
    void removeEarlierExport() const;

    QString m_runDir, m_outDir;
    Mode m_mode;
    QStringList m_expected; // the tasks the experiment runs, in file form ("worker-0")
    std::string m_primary;  // the task the job's figures come from
    std::unique_ptr<RunScalars> m_scalars;
    std::map<QString, Task> m_tasks;
    std::map<std::string, Writer> m_writers; // per TensorBoard run
    bool m_prepared = false; // outDir made (and emptied of an earlier export, Follow)
    QString m_writeError;
    QStringList m_warnings;
    int64_t m_lastStep = 0;
};

} // namespace strata::app::tensorboard
