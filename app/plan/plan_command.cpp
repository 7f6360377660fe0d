#include "app/plan/plan_command.h"

#include "app/history/run_history.h"
#include "app/plan/plan_calibration.h"
#include "app/plan/plan_history.h"
#include "app/plan/probe_result.h"
#include "app/plan/probe_runner.h"
#include "app/plan/scaling_model.h"

#include <QFile>
#include <QFileInfo>

#include <cstdio>
#include <stdexcept>

namespace strata::app::plan {

namespace {

const char* const kUsage =
    "usage: strata plan EXPERIMENT.strata.json [--workers N,N,...] [--scale-out] [--json] [--quick] [--no-ps] "
    "[--engine PATH]\n"
    "  Probes this machine for the experiment (the model's step, an all-reduce sweep between 2 processes, a\n"
    "  second of the experiment as a 2-worker MultiWorkerMirrored job, a ParameterServer round trip: about\n"
    "  20 seconds), then predicts step time, throughput and scaling efficiency for each strategy and worker\n"
    "  count, with the model's terms, a recommendation and warnings, calibrated by the runs the window checked\n"
    "  against its plans ($STRATA_HISTORY, else the run history in the user's data directory).\n"
    "  --workers: the worker counts (default: the experiment's, 1, 2, 4, 8, 16, 64); --scale-out: workers\n"
    "  beyond the hosts at hand on more hosts like this one (default: on the hosts at hand, sharing their\n"
    "  cores); --json: the plan as JSON; --quick: fewer repetitions (a smoke run); --no-ps: no ps round trip.\n";

int fail(const QString& why)
{
    std::fprintf(stderr, "strata plan: %s\n", qPrintable(why));
    return 1;
}

QString ms(double s) { return QString::number(s * 1e3, 'f', s < 0.01 ? 3 : 2); }

void printText(const ScalingPlan& plan, const QString& calibrationNote)
{
    const ProbeResult& p = plan.probe;
    const ComputeProbe& c = p.compute;
    std::printf("Plan for %s (now %s), probed on %s: %s, %d cores, in %.0f s\n", qPrintable(plan.request.experiment),
                qPrintable(strategyName(plan.request.current)), qPrintable(p.host), qPrintable(p.cpu), p.cores,
                p.probeSeconds);
    std::printf("  model: %lld parameters (%.1f KiB of gradient), %lld examples per replica\n",
                static_cast<long long>(p.parameters), static_cast<double>(p.gradientBytes) / 1024.0,
                static_cast<long long>(c.batch));
    for (const ComputePoint& cp : c.points)
        std::printf("  compute: %s ms a step at %d thread(s), %d at once (spread %.0f%%)\n", qPrintable(ms(cp.step.typical())),
                    cp.threads, cp.copies, cp.step.robustCv * 100);
    std::printf("  of which forward %s ms, backward %s ms, optimizer %s ms; input %s ms a batch\n",
                qPrintable(ms(c.forwardSeconds)), qPrintable(ms(c.backwardSeconds)), qPrintable(ms(c.optimizerSeconds)),
                qPrintable(ms(c.input.typical())));
    std::printf("  all-reduce between %d processes over %s: a = %s ms per step, B = %.0f MB/s (fit error %.0f%%)\n",
                p.collective.ranks, qPrintable(p.collective.transport), qPrintable(ms(p.collective.latencySeconds)),
                p.collective.bytesPerSecond / 1e6, p.collective.fitError * 100);
    if (p.collective.rehearsal.samples > 0)
        std::printf("  MultiWorkerMirrored rehearsed on those %d processes (%d thread(s) each): %s ms a step (spread %.0f%%)\n",
                    p.collective.ranks, p.collective.rehearsalThreads, qPrintable(ms(p.collective.rehearsal.typical())),
                    p.collective.rehearsal.robustCv * 100);
    if (p.ps)
        std::printf("  ps round trip (pull + push of %.1f KiB): %s ms; a = %s ms, B = %.0f MB/s; the ps's CPU %s ms\n",
                    static_cast<double>(p.ps->variableBytes) / 1024.0, qPrintable(ms(p.ps->roundTrip.typical())),
                    qPrintable(ms(p.ps->latencySeconds)), p.ps->bytesPerSecond / 1e6, qPrintable(ms(p.ps->serverCpuSeconds)));
    std::printf("\n%-20s %7s %5s %9s %11s %7s %6s %9s %9s %9s  %s\n", "strategy", "workers", "hosts", "step ms",
                "samples/s", "speedup", "effic", "compute", "comm", "exposed", "limit");
    for (const Prediction& x : plan.predictions) {
        const ModelTerms& t = x.terms;
        std::printf("%-20s %7d %5d %9s %11.0f %7.2f %5.0f%% %9s %9s %9s  %s%s%s\n", qPrintable(strategyName(x.strategy)),
                    x.workers, x.hosts, qPrintable(ms(x.stepSeconds)), x.samplesPerSecond, x.speedup, x.efficiency * 100,
                    qPrintable(ms(t.compute)), qPrintable(ms(t.communication)), qPrintable(ms(t.exposed)),
                    qPrintable(t.limit), x.coresShared ? ", shared cores" : "", x.extrapolated ? ", extrapolated" : "");
    }
    std::printf("\nThe model (times per step; docs/planner.md):\n");
    for (Strategy s : {Strategy::OneDevice, Strategy::Mirrored, Strategy::MultiWorkerMirrored, Strategy::ParameterServer})
        for (const Prediction& x : plan.predictions)
            if (x.strategy == s && (x.workers == 2 || s == Strategy::OneDevice)) {
                std::printf("  %s, %d worker(s): %s\n", qPrintable(strategyName(s)), x.workers, qPrintable(x.terms.formula));
                break;
            }
    std::printf("\nRecommendation: %s with %d worker(s)\n", qPrintable(strategyName(plan.recommendation.strategy)),
                plan.recommendation.workers);
    if (!calibrationNote.isEmpty())
        std::printf("  %s\n", qPrintable(calibrationNote));
    for (const QString& reason : plan.recommendation.reasons)
        std::printf("  - %s\n", qPrintable(reason));
    if (!plan.warnings.empty()) {
        std::printf("\nWarnings:\n");
        for (const Warning& w : plan.warnings)
            std::printf("  ! %s\n", qPrintable(w.text));
    }
    std::printf("\n%s\n", qPrintable(plan.noise.text));
}

} // namespace

int planCommand(const QStringList& arguments)
{
    QString file;
    ProbeOptions options;
    bool json = false, scaleOut = false;
    std::vector<int> workers;
    for (qsizetype i = 0; i < arguments.size(); ++i) {
        const QString& a = arguments[i];
        const bool hasValue = i + 1 < arguments.size();
        if (a == QLatin1String("--json"))
            json = true;
        else if (a == QLatin1String("--quick"))
            options.quick = true;
        else if (a == QLatin1String("--no-ps"))
            options.parameterServer = false;
        else if (a == QLatin1String("--scale-out"))
            scaleOut = true;
        else if (a == QLatin1String("--engine") && hasValue)
            options.enginePath = arguments[++i];
        else if (a == QLatin1String("--workers") && hasValue) {
            for (const QString& n : arguments[++i].split(QLatin1Char(','), Qt::SkipEmptyParts)) {
                bool ok = false;
                const int v = n.trimmed().toInt(&ok);
                if (!ok || v < 1 || v > 4096) {
                    fail(QStringLiteral("--workers takes worker counts from 1 to 4096 (\"%1\")").arg(n));
                    return 2;
                }
                workers.push_back(v);
            }
        } else if (a == QLatin1String("--help")) {
            std::fputs(kUsage, stdout);
            return 0;
        } else if (!a.startsWith(QLatin1String("--")) && file.isEmpty())
            file = a;
        else {
            std::fprintf(stderr, "strata plan: unexpected argument \"%s\"\n%s", qPrintable(a), kUsage);
            return 2;
        }
    }
    if (file.isEmpty()) {
        std::fputs(kUsage, stderr);
        return 2;
    }
    QFile f(file);
    if (!f.open(QIODevice::ReadOnly))
        return fail(QStringLiteral("cannot read %1: %2").arg(file, f.errorString()));
    const nlohmann::json experiment = nlohmann::json::parse(f.readAll().toStdString(), nullptr, false);
    if (!experiment.is_object() || !experiment.contains("model"))
        return fail(QStringLiteral("%1 is not an experiment (JSON with a model)").arg(file));
    try {
        if (!json)
            std::fprintf(stderr, "Probing this machine for %s (about %s)...\n", qPrintable(QFileInfo(file).fileName()),
                         options.quick ? "5 seconds" : "20 seconds");
        const ProbeResult probe = ProbeRunner::runBlocking(file, options);
        PlanRequest request = requestFor(experiment, probe);
        if (!workers.empty())
            request.workerCounts = workers;
        request.scaleOut = scaleOut;
        // What the window's finished runs taught the planner, where their history is (read only:
        // a plan from here is not stored, and checks no run).
        Calibration calibration;
        if (const QString path = RunHistory::defaultPath(); QFileInfo::exists(path)) {
            RunHistory history;
            QString error;
            if (!history.open(path, &error) || !storedCalibration(history, &calibration, &error)) {
                std::fprintf(stderr, "strata plan: not calibrated by earlier runs: %s\n", qPrintable(error));
                calibration = {};
            }
        }
        const ScalingPlan plan = planScaling(probe, request, calibration);
        if (json)
            std::printf("%s\n", planToJson(plan).dump(1).c_str());
        else
            printText(plan, calibrationNote(plan, calibration));
        return 0;
    } catch (const std::exception& e) {
        return fail(QString::fromStdString(e.what()));
    }
}

} // namespace strata::app::plan
