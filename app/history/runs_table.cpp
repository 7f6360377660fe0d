#include "app/history/runs_table.h"

#include "app/metrics/display_text.h"

#include <cstdio>

namespace strata::app {

namespace {

QString metricText(const RunRecord& run, const char* metric)
{
    const std::optional<double> v = finalMetric(run, "test", metric);
    return v ? QString::number(*v, 'f', 4) : QStringLiteral("-");
}

} // namespace

QString runsTable(const std::vector<RunRecord>& runs)
{
    struct Column {
        const char* title;
        bool number; // right-aligned
    };
    const Column columns[] = {{"ID", true},        {"STARTED", false}, {"NAME", false},      {"STRATEGY", false},
                              {"REPLICAS", true},  {"STATUS", false},  {"STEPS", true},      {"SAMPLES/S", true},
                              {"TEST ACC", true},  {"TEST LOSS", true}, {"RUN DIR", false}};
    constexpr int kColumns = int(std::size(columns));
    std::vector<QStringList> rows;
    QStringList header;
    for (const Column& c : columns)
        header << c.title;
    rows.push_back(header);
    for (const RunRecord& r : runs)
        rows.push_back({QString::number(r.id),
                        startedText(r.startedAt),
                        r.displayName(),
                        r.strategy,
                        QString::number(r.replicas),
                        statusName(r.status),
                        QString::number(r.steps),
                        r.samplesPerSec > 0 ? QString::number(r.samplesPerSec, 'f', 0) : QStringLiteral("-"),
                        metricText(r, "accuracy"),
                        metricText(r, "loss"),
                        r.runDir});
    int widths[kColumns] = {};
    for (const QStringList& row : rows)
        for (int c = 0; c < kColumns; ++c)
            widths[c] = std::max(widths[c], int(row[c].size()));
    QString text;
    for (const QStringList& row : rows) {
        QString line;
        for (int c = 0; c < kColumns; ++c) {
            if (c > 0)
                line += "  ";
            line += columns[c].number ? row[c].rightJustified(widths[c]) : row[c].leftJustified(widths[c]);
        }
        while (line.endsWith(' '))
            line.chop(1);
        text += line + '\n';
    }
    return text;
}

int runsCommand(const RunsOptions& options)
{
    RunFilter filter;
    filter.text = options.text;
    filter.strategy = options.strategy;
    if (!options.status.isEmpty()) {
        filter.status = statusFromName(options.status);
        if (!filter.status) {
            std::fprintf(stderr, "strata: --status: %s is not one of running, completed, stopped, failed, interrupted\n",
                         qPrintable(options.status));
            return 2;
        }
    }
    if (!options.limit.isEmpty()) {
        bool ok = false;
        filter.limit = options.limit.toInt(&ok);
        if (!ok || filter.limit <= 0) {
            std::fprintf(stderr, "strata: --limit: %s is not a positive number\n", qPrintable(options.limit));
            return 2;
        }
    }
    RunHistory history;
    QString error;
    std::vector<RunRecord> runs;
    if (!history.open(options.database.isEmpty() ? RunHistory::defaultPath() : options.database, &error) ||
        !history.query(filter, &runs, &error)) {
        std::fprintf(stderr, "strata: %s\n", qPrintable(error));
        return 1;
    }
    const bool filtered = !filter.text.isEmpty() || !filter.strategy.isEmpty() || filter.status;
    const QString text = !runs.empty() ? runsTable(runs)
                         : filtered    ? QStringLiteral("No runs match in %1\n").arg(history.path())
                                       : QStringLiteral("No runs recorded in %1\n").arg(history.path());
    std::fputs(text.toUtf8().constData(), stdout);
    return 0;
}

} // namespace strata::app
