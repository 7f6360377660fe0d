#include "app/metrics/lifecycle_text.h"

#include "app/metrics/metrics_store_parts.h"

#include <QStringList>

namespace strata::app {

using namespace store_parts;

namespace {

// "loss 0.3420, accuracy 0.8759" from {"loss": ..., "accuracy": ...}; `prefix` before each name.
QString metricsText(const schema::MetricValues& metrics, const QString& prefix = {})
{
    QStringList parts;
    for (const auto& [name, value] : metrics)
        parts << QStringLiteral("%1%2 %3").arg(prefix, QString::fromStdString(name)).arg(value, 0, 'f', 4);
    return parts.join(QStringLiteral(", "));
}

// A `start` event's line.
QString startText(const Json& e)
{
    schema::StartEvent shown; // what the line says of a field the event lacks (an older engine's)
    shown.experiment = shown.strategy = "?";
    shown.replicas = 1;
    const schema::StartEvent s = schema::readStartEvent(e, shown);
    QString line = QStringLiteral("training %1 under %2: %3 replica(s), %4 epoch(s) of %5 steps, global batch %6")
                       .arg(QString::fromStdString(s.experiment), QString::fromStdString(s.strategy))
                       .arg(s.replicas)
                       .arg(s.epochs)
                       .arg(s.stepsPerEpoch)
                       .arg(s.batchSize);
    if (s.resumedFromStep)
        line += QStringLiteral(", resumed from the checkpoint at step %1").arg(*s.resumedFromStep);
    return line;
}

// An `epoch` event's line.
QString epochText(const Json& e)
{
    const schema::EpochEvent epoch = schema::readEpochEvent(e);
    QString line =
        QStringLiteral("epoch %1/%2: %3").arg(epoch.epoch + 1).arg(epoch.epochs).arg(metricsText(epoch.train));
    const QString validation = epoch.validation ? metricsText(*epoch.validation, QStringLiteral("val_")) : QString();
    if (!validation.isEmpty())
        line += QStringLiteral(", ") + validation;
    return line + QStringLiteral(" (%1 s)").arg(epoch.seconds, 0, 'f', 1);
}

} // namespace

QString lifecycleText(std::string_view type, const Json& e)
{
    namespace ev = schema::event;
    if (type == ev::kHello) {
        QStringList devices;
        for (const Json& d : member(e, "devices"))
            if (d.is_object())
                devices << text(d, "name");
        QString line = QStringLiteral("engine %1 on %2 (pid %3), devices: %4")
                           .arg(text(e, "version", "?"), text(e, "host", "?"))
                           .arg(integer(e, "pid", 0))
                           .arg(devices.isEmpty() ? QStringLiteral("none reported") : devices.join(", "));
        // The node's GPUs this task may use (CUDA_VISIBLE_DEVICES), when restricted.
        const QString gpus = text(e, "cuda_visible_devices");
        if (!gpus.isEmpty())
            line += QStringLiteral(", CUDA_VISIBLE_DEVICES=%1").arg(gpus);
        return line;
    }
    if (type == ev::kStart)
        return startText(e);
    if (type == ev::kEpoch)
        return epochText(e);
    if (type == ev::kCheckpoint)
        return QStringLiteral("checkpoint at step %1: %2").arg(integer(e, "step", 0)).arg(text(e, "path"));
    if (type == kEvaluation)
        return QStringLiteral("evaluated the checkpoint of step %1 (epoch %2): %3 (%4 examples, %5 ms)")
            .arg(integer(e, "step", 0))
            .arg(integer(e, "epoch", 0) + 1)
            .arg(metricsText(schema::readMetricValues(member(e, "metrics"))))
            .arg(integer(e, "examples", 0))
            .arg(number(e, "ms", 0), 0, 'f', 0);
    if (type == ev::kDone && member(e, "evaluations").is_number()) {
        // An evaluator's end: it trained nothing, and wrote no checkpoint.
        const int64_t n = integer(e, "evaluations", 0);
        return text(e, "status") == QLatin1String("stopped")
                   ? QStringLiteral("stopped after %1 evaluation(s)").arg(n)
                   : QStringLiteral("completed %1 evaluation(s)").arg(n);
    }
    if (type == ev::kDone) {
        const bool stopped = text(e, "status") == QLatin1String("stopped");
        QString line = stopped ? QStringLiteral("stopped at step %1 (a checkpoint was written: run again to resume)")
                                     .arg(integer(e, "steps", 0))
                               : QStringLiteral("completed %1 steps in %2 s")
                                     .arg(integer(e, "steps", 0))
                                     .arg(number(e, "wall_seconds", 0), 0, 'f', 1);
        const QString test = metricsText(schema::readMetricValues(member(e, "test")));
        if (!test.isEmpty())
            line += QStringLiteral("; test %1").arg(test);
        return line;
    }
    return {};
}

} // namespace strata::app
