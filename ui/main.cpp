// strata: the desktop application, and `strata run EXPERIMENT` for a headless run through
// the same app/ code.

#include "app/headless_run.h"
#include "ui/main_window.h"
#include "ui/screenshot_tour.h"

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
        "                             (exit status 0 completed or stopped, 1 failed, 2 invalid experiment)");
    parser.addHelpOption();
    parser.addVersionOption();
    parser.addOption({"engine", "The strata-engine binary to launch (default: next to strata, or on PATH).", "path"});
    parser.addOption({"run-dir", "With run: the run directory (default: a new one under the user's data directory).",
                      "dir"});
    parser.addOption({"screenshots", "Save a screenshot of every page (and of the run half way) into dir, then quit.",
                      "dir"});
    parser.addPositionalArgument("experiment", "The experiment file (*.strata.json).", "[run] [EXPERIMENT]");
}

bool wantsConsole(int argc, char** argv)
{
    // Help, version and headless runs need no display: no QApplication for them.
    for (int i = 1; i < argc; ++i)
        for (const char* flag : {"run", "--help", "-h", "--help-all", "--version", "-v"})
            if (std::strcmp(argv[i], flag) == 0)
                return true;
    return false;
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
    if (wantsConsole(argc, argv)) {
        QCoreApplication app(argc, argv);
        setIdentity();
        QCommandLineParser parser;
        describe(parser);
        parser.process(app);
        const QStringList args = parser.positionalArguments();
        if (args.size() != 2 || args[0] != "run") {
            std::fprintf(stderr, "strata: expected `strata run EXPERIMENT` (see --help)\n");
            return 2;
        }
        return strata::app::runHeadless({args[1], parser.value("run-dir"), parser.value("engine")});
    }
    QApplication app(argc, argv);
    setIdentity();
    QCommandLineParser parser;
    describe(parser);
    parser.process(app);
    const QString experiment = parser.positionalArguments().value(0);
    if (parser.isSet("screenshots"))
        return strata::ui::takeScreenshots(parser.value("screenshots"), experiment, parser.value("engine"));
    strata::ui::MainWindow window(parser.value("engine"));
    if (!experiment.isEmpty())
        window.openFile(experiment);
    window.show();
    return app.exec();
}
