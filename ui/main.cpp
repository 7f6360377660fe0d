// strata: the desktop application, `strata run EXPERIMENT` for a headless run through the
// same app/ code, `strata runs` to list the run history, `strata compare RUN...` to
// compare finished runs, `strata export tensorboard RUN... DIR` to write runs as TensorBoard
// event files and `strata hosts trust HOST[:PORT]` to trust a node's SSH host key.

#include "app/compare/run_comparison.h"
#include "app/history/runs_table.h"
#include "app/launch/headless_run.h"
#include "app/plan/plan_command.h"
#include "app/plan/plan_history.h"
#include "app/ssh/hosts_command.h"
#include "app/tensorboard/export_command.h"
#include "app/trace_export/export_trace_command.h"
#include "ui/shell/main_window.h"
#include "ui/shell/screenshot_tour.h"
#include "ui/shell/theme.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QCoreApplication>

#include <cstring>

namespace {

void describe(QCommandLineParser& parser)
{
    parser.setApplicationDescription(
        "Strata: configure, launch and watch distributed deep-learning training runs.\n\n"
        "  strata [EXPERIMENT]        open the window (on EXPERIMENT, a *.strata.json)\n"
        "  strata run EXPERIMENT      run it without a window: a progress bar, the outcome at the end\n"
        "                             (exit status 0 completed or stopped, 1 failed, 2 invalid experiment);\n"
        "                             with --run-dir DIR of an earlier run, it resumes from DIR's checkpoint when\n"
        "                             EXPERIMENT is the one that wrote it (more epochs train longer), and refuses\n"
        "                             a different one, naming what differs, unless --fresh or --weights-only\n"
        "  strata attach RUN          follow again a run that went on without Strata (RUN: its history id or\n"
        "                             run directory): what it did meanwhile, then live, to its end\n"
        "  strata runs                the run history, newest first (--status, --strategy, --filter, --limit)\n"
        "  strata compare RUN RUN...  compare finished runs, each a history id (see `strata runs`) or a run\n"
        "                             directory: the table and what differs between their experiments\n"
        "                             (exit status 1: a run that cannot be read)\n"
        "  strata export tensorboard RUN... DIR [--follow]\n"
        "  strata export trace RUN... OUT.json\n"
        "                             write runs as TensorBoard event files into DIR/<run name> (--follow: as\n"
        "                             they go, until they end); then `tensorboard --logdir DIR`\n"
        "  strata plan EXPERIMENT [--workers N,N,...] [--scale-out] [--json]\n"
        "                             probe this machine for the experiment and predict step time, throughput\n"
        "                             and scaling efficiency of each strategy and worker count, with the model's\n"
        "                             terms, a recommendation and warnings (docs/planner.md)\n"
        "  strata hosts trust HOST[:PORT] [--user USER] [--yes]\n"
        "                             show a node's SSH host key fingerprint and trust it (asks on the\n"
        "                             terminal; --yes trusts it without asking): one line in ~/.ssh/known_hosts\n\n"
        "Every run is recorded in the run history, a SQLite file in the user's data directory;\n"
        "the environment variable STRATA_HISTORY names another file.");
    parser.addHelpOption();
    parser.addVersionOption();
    parser.addOption({"engine", "The strata-engine binary to launch (default: next to strata, or on PATH).", "path"});
    parser.addOption({"run-dir", "With run: the run directory (default: a new one under the user's data directory).",
                      "dir"});
    parser.addOption({"fresh", "With run: start from the beginning even where the run directory holds checkpoints (they "
                               "are moved into its set-aside-<date>-<time>/, not deleted)."});
    parser.addOption({"weights-only", "With run: start from the weights of the run directory's newest checkpoint, with a "
                                      "fresh optimizer and position (the model's variables must fit them; the "
                                      "checkpoints are then set aside)."});
    parser.addOption({"status", "With runs: only runs with this status (running, completed, stopped, failed, "
                                "interrupted).", "status"});
    parser.addOption({"strategy", "With runs: only runs of this strategy (Mirrored, OneDevice, ...).", "type"});
    parser.addOption({"filter", "With runs: only runs whose name, label, tags or hosts contain text.", "text"});
    parser.addOption({"limit", "With runs: at most n runs (the newest).", "n"});
    parser.addOption({"screenshots", "Save a screenshot of every page (and of the run half way) into dir, then quit.",
                      "dir"});
    parser.addOption({"tour", "With --screenshots: full (every page, a run, a comparison; the default), short (the "
                              "Cluster page with its nodes checked and the run's dashboard), small (short, and "
                              "a comparison), slurm (the Cluster page of a Slurm job), slurm-run (a Slurm job's dashboard, "
                              "pending and running, on the cluster SLURM_CONF names), large (the dashboard of a job "
                              "of many workers, run as it is), timeline (the Timeline panel of the run under way) or plan (the Plan page from a probe of the experiment).", "name"});
    parser.addOption({"window-size", "With --screenshots: the window's size (default 1600x1000).", "WxH"});
    parser.addOption({"target-loss", "With compare: also the wall time each run took to reach this training loss.",
                      "loss"});
    parser.addOption({"baseline", "With compare: the run (1 = the first listed) scaling is measured against "
                                  "(default: the first OneDevice or Default run).", "n"});
    parser.addOption({"markdown", "With compare: print Markdown."});
    parser.addPositionalArgument("experiment", "The experiment file (*.strata.json).", "[EXPERIMENT | COMMAND ARGS...]");
}

bool wantsConsole(int argc, char** argv)
{
    // Help, version and headless runs need no display: no QApplication for them.
    for (int i = 1; i < argc; ++i)
        for (const char* flag : {"run", "attach", "runs", "compare", "--help", "-h", "--help-all", "--version", "-v"})
            if (std::strcmp(argv[i], flag) == 0)
                return true;
    return false;
}

// `strata compare RUN RUN...` (history ids or run directories): the report on stdout; 1 for a
// run that cannot be read, 2 for bad arguments.
int compare(const QCommandLineParser& parser, const QStringList& dirs)
{
    strata::app::CompareOptions options;
    bool ok = true;
    if (parser.isSet("target-loss"))
        options.targetLoss = parser.value("target-loss").toDouble(&ok);
    if (ok && parser.isSet("baseline")) {
        options.baseline = parser.value("baseline").toInt(&ok) - 1;
        ok = ok && options.baseline >= 0 && options.baseline < dirs.size();
    }
    if (!ok || dirs.size() < 2) {
        std::fprintf(stderr, "strata: expected `strata compare RUN RUN... [--target-loss X] [--baseline N] "
                             "[--markdown]`, N from 1 to the number of runs (see --help)\n");
        return 2;
    }
    QString report, error;
    QStringList runDirs, labels;
    if (!strata::app::resolveRunRefs(dirs, &runDirs, &labels, &error)
        || !strata::app::compareRunDirs(runDirs, options,
                                        parser.isSet("markdown") ? strata::app::ReportFormat::Markdown
                                                                 : strata::app::ReportFormat::Text,
                                        &report, &error, labels)) {
        std::fprintf(stderr, "strata: %s\n", qPrintable(error));
        return 1;
    }
    std::fputs(report.toUtf8().constData(), stdout);
    return 0;
}

void setIdentity()
{
    QCoreApplication::setOrganizationName("Strata");
    QCoreApplication::setApplicationName("strata");
    QCoreApplication::setApplicationVersion(STRATA_VERSION);
}

} // namespace

int main(int argc, char** argv)
{
    // `hosts`, `export` and `plan` have options of their own: their arguments go to them unparsed.
    if (argc > 1 && std::strcmp(argv[1], "hosts") == 0) {
        QCoreApplication app(argc, argv);
        setIdentity();
        return strata::app::ssh::hostsCommand(app.arguments().mid(2));
    }
    if (argc > 1 && std::strcmp(argv[1], "plan") == 0) {
        QCoreApplication app(argc, argv);
        setIdentity();
        return strata::app::plan::planCommand(app.arguments().mid(2));
    }
    if (argc > 1 && std::strcmp(argv[1], "export") == 0) {
        QCoreApplication app(argc, argv);
        setIdentity();
        const QStringList args = app.arguments().mid(2);
        if (args.value(0) == QLatin1String("trace"))
            return strata::app::exportTraceCommand(args);
        return strata::app::tensorboard::exportCommand(args);
    }
    if (wantsConsole(argc, argv)) {
        QCoreApplication app(argc, argv);
        setIdentity();
        QCommandLineParser parser;
        describe(parser);
        parser.process(app);
        const QStringList args = parser.positionalArguments();
        if (args == QStringList{"runs"})
            return strata::app::runsCommand({{}, parser.value("status"), parser.value("strategy"),
                                             parser.value("filter"), parser.value("limit")});
        if (!args.isEmpty() && args[0] == "compare")
            return compare(parser, args.mid(1));
        if (args.size() == 2 && args[0] == "attach")
            return strata::app::attachHeadless(args[1], parser.value("engine"), &strata::app::plan::againstThePlan);
        if (args.size() != 2 || args[0] != "run") {
            std::fprintf(stderr, "strata: expected `strata run EXPERIMENT`, `strata attach RUN` or `strata runs` (see --help)\n");
            return 2;
        }
        if (parser.isSet("fresh") && parser.isSet("weights-only")) {
            std::fprintf(stderr, "strata: --fresh and --weights-only exclude each other\n");
            return 2;
        }
        const auto resume = parser.isSet("fresh")          ? strata::app::ResumeChoice::Fresh
                            : parser.isSet("weights-only") ? strata::app::ResumeChoice::WeightsOnly
                                                           : strata::app::ResumeChoice::Resume;
        return strata::app::runHeadless(
            {args[1], parser.value("run-dir"), parser.value("engine"), resume, &strata::app::plan::againstThePlan});
    }
    QApplication app(argc, argv);
    setIdentity();
    QCommandLineParser parser;
    describe(parser);
    parser.process(app);
    strata::ui::theme::applyScheme(strata::ui::theme::savedScheme()); // View > Theme, as last chosen
    const QString experiment = parser.positionalArguments().value(0);
    if (parser.isSet("screenshots")) {
        const QString tour = parser.value("tour");
        if (!tour.isEmpty() && tour != "full" && tour != "short" && tour != "small" && tour != "slurm" && tour != "slurm-run" &&
            tour != "large" && tour != "timeline" && tour != "plan") {
            std::fprintf(stderr, "strata: --tour is full, short, small, slurm, slurm-run, large, timeline or plan, not %s\n",
                         qPrintable(tour));
            return 2;
        }
        const QStringList size = (parser.isSet("window-size") ? parser.value("window-size") : QStringLiteral("1600x1000")).split('x');
        const QSize windowSize(size.value(0).toInt(), size.value(1).toInt());
        if (size.size() != 2 || windowSize.width() < 320 || windowSize.height() < 240) {
            std::fprintf(stderr, "strata: --window-size is WIDTHxHEIGHT, e.g. 1280x720\n");
            return 2;
        }
        const auto kind = tour == "short"   ? strata::ui::Tour::Short
                          : tour == "small" ? strata::ui::Tour::Small
                          : tour == "slurm" ? strata::ui::Tour::Slurm
                          : tour == "slurm-run" ? strata::ui::Tour::SlurmRun
                          : tour == "large" ? strata::ui::Tour::Large
                          : tour == "timeline" ? strata::ui::Tour::Timeline
                          : tour == "plan" ? strata::ui::Tour::Plan
                                            : strata::ui::Tour::Full;
        return strata::ui::takeScreenshots(parser.value("screenshots"), experiment, parser.value("engine"), kind, windowSize);
    }
    strata::ui::MainWindow window(parser.value("engine"));
    if (!experiment.isEmpty())
        window.openFile(experiment);
    window.show();
    return app.exec();
}
