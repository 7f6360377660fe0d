// Exporting a finished run to Keras from the app (app/launch/keras_export.h): the real engine
// on a real run directory, and the messages the history page shows when it cannot.

#include "app_test_util.h"

#include "app/launch/keras_export.h"

#include <QSignalSpy>
#include <QtTest>

#include <fstream>

using namespace strata::app;
using apptest::Json;

class TestKerasExport : public QObject {
    Q_OBJECT

    QTemporaryDir m_dir;

    KerasExportResult exportRun(const QString& engine, const QString& runDir, const QString& out)
    {
        KerasExport exporter;
        KerasExportResult result;
        int signals_ = 0;
        connect(&exporter, &KerasExport::finished, this, [&](const KerasExportResult& r) {
            result = r;
            ++signals_;
        });
        if (!exporter.start(engine, runDir, out))
            qFatal("an export was already running");
        exporter.waitForFinished(60000);
        if (signals_ != 1)
            qFatal("finished() was emitted %d times", signals_);
        return result;
    }

private slots:
    void exportsAFinishedRun()
    {
        const QString runDir = m_dir.filePath("run");
        const QString experiment = m_dir.filePath("tiny.strata.json");
        std::ofstream(experiment.toStdString()) << apptest::tinyExperiment(1).dump(2);
        QProcess train;
        train.start(STRATA_ENGINE_PATH, {"train", experiment, "--run-dir", runDir, "--events", "none", "--quiet"});
        QVERIFY(train.waitForFinished(120000));
        QCOMPARE(train.exitCode(), 0);
        QCOMPARE(kerasExportProblem(runDir), QString());

        const QString out = m_dir.filePath("keras");
        const KerasExportResult r = exportRun(STRATA_ENGINE_PATH, runDir, out);
        QVERIFY2(r.ok, qPrintable(r.message));
        QCOMPARE(r.outDir, out);
        QVERIFY2(r.message.contains("config.json") && r.message.contains("Keras 3.12"), qPrintable(r.message));
        for (const char* f : {"config.json", "model.weights.h5", "metadata.json"})
            QVERIFY2(QFile::exists(out + "/" + f), f);
        QFile config(out + "/config.json");
        QVERIFY(config.open(QIODevice::ReadOnly));
        QCOMPARE(Json::parse(config.readAll().toStdString())["class_name"].get<std::string>(), std::string("Sequential"));
    }

    void saysWhyItCannot()
    {
        // A run that did not finish: no final weights.
        const QString unfinished = m_dir.filePath("unfinished");
        QDir().mkpath(unfinished);
        QVERIFY(kerasExportProblem(unfinished).contains("no final weights"));
        QVERIFY(kerasExportProblem(m_dir.filePath("gone")).contains("does not exist"));
        // The engine's own message comes through.
        const KerasExportResult r = exportRun(STRATA_ENGINE_PATH, unfinished, m_dir.filePath("out"));
        QVERIFY(!r.ok);
        QVERIFY2(r.message.contains("has no model.weights"), qPrintable(r.message));
        // No engine.
        const KerasExportResult missing = exportRun(m_dir.filePath("no-engine"), unfinished, m_dir.filePath("out"));
        QVERIFY(!missing.ok);
        QVERIFY2(missing.message.contains("not found"), qPrintable(missing.message));
    }
};

QTEST_GUILESS_MAIN(TestKerasExport)
#include "tst_keras_export.moc"
