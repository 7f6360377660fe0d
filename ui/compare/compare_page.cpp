#include "ui/compare/compare_page.h"

#include "ui/shell/dialogs.h"
#include "ui/compare/run_chips.h"
#include "ui/compare/run_swatch.h"
#include "ui/plot/series_plot.h"
#include "ui/compare/split_bars.h"
#include "ui/compare/sweep_panel.h"
#include "ui/shell/theme.h"

#include <qcustomplot.h>

#include <QComboBox>
#include <QDateTime>
#include <QDoubleSpinBox>
#include <QFileInfo>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QEvent>
#include <QLabel>
#include <QMenu>
#include <QPdfWriter>
#include <QPushButton>
#include <QSplitter>
#include <QStackedWidget>
#include <QStyle>
#include <QTableWidget>
#include <QVBoxLayout>

namespace strata::ui {

ComparePage::ComparePage(app::ComparisonSession* session, Dialogs* dialogs, QWidget* parent)
    : QWidget(parent), m_session(session), m_dialogs(dialogs), m_sweep(new SweepPanel(this)),
      m_header(new QWidget(this)), m_title(new QLabel(this)), m_target(new QDoubleSpinBox(this)),
      m_baseline(new QComboBox(this)), m_split(new SplitBars(this)), m_table(new QTableWidget(this)),
      m_differences(new QTableWidget(this)), m_differencesSummary(new QLabel(this)), m_chips(new RunChips(this)),
      m_stack(new QStackedWidget(this))
{
    buildHeader();
    buildPlots();
    buildTables();
    QWidget* comparison = buildComparison();
    auto* empty = new QLabel(tr("<p><b>No runs compared yet.</b></p><p>Select two or more runs on the History page "
                                "and press <i>Compare selected</i>, or run <i>Compare strategies</i> above: the "
                                "runs' curves, step times and results then appear here side by side.</p>"),
                             this);
    empty->setObjectName("compareEmpty");
    empty->setAlignment(Qt::AlignCenter);
    empty->setWordWrap(true);
    empty->setMargin(24);
    m_stack->addWidget(empty);
    m_stack->addWidget(comparison);

    auto* layout = new QVBoxLayout(this);
    layout->addWidget(m_sweep);
    layout->addWidget(m_header);
    layout->addWidget(m_stack, 1);

    connect(m_session, &app::ComparisonSession::runsChanged, this, &ComparePage::showRuns);
    connect(m_session, &app::ComparisonSession::tableChanged, this, &ComparePage::showTable);
    showRuns();
}

// The header: the comparison's title, the target loss, the baseline run, the exports.
void ComparePage::buildHeader()
{
    m_title->setObjectName("compareTitle");
    m_title->setWordWrap(true);
    QFont bold = m_title->font();
    bold.setBold(true);
    m_title->setFont(bold);

    m_target->setObjectName("targetLoss");
    m_target->setRange(0, 1e6);
    m_target->setDecimals(4);
    m_target->setSingleStep(0.05);
    m_target->setSpecialValueText(tr("none"));
    m_target->setToolTip(tr("The table gives the wall time each run took to reach this training loss"));
    connect(m_target, &QDoubleSpinBox::valueChanged, this, [this](double v) {
        m_session->setTargetLoss(v > 0 ? std::optional<double>(v) : std::nullopt);
    });
    m_baseline->setObjectName("baselineRun");
    m_baseline->setToolTip(tr("Speedup and scaling efficiency are measured against this run"));
    connect(m_baseline, &QComboBox::activated, this, [this](int index) { m_session->setBaseline(index - 1); });

    auto* exportTable = new QPushButton(tr("Export table..."), this);
    exportTable->setObjectName("exportTable");
    connect(exportTable, &QPushButton::clicked, this, &ComparePage::exportTable);
    auto* exportReport = new QPushButton(tr("Export report (PDF)..."), this);
    exportReport->setObjectName("exportReport");
    connect(exportReport, &QPushButton::clicked, this, [this] {
        const QString path = m_dialogs->saveFile(this, tr("Export the comparison"), "comparison.pdf", tr("PDF (*.pdf)"));
        QString error;
        if (!path.isEmpty() && !this->exportReport(path, &error))
            Q_EMIT message(error, true);
        else if (!path.isEmpty())
            Q_EMIT message(tr("Wrote the comparison to %1").arg(path), false);
    });

    auto* header = new QHBoxLayout(m_header);
    header->setContentsMargins(0, 0, 0, 0);
    header->addWidget(m_title, 1);
    header->addWidget(new QLabel(tr("Target loss:"), this));
    header->addWidget(m_target);
    header->addWidget(new QLabel(tr("Baseline:"), this));
    header->addWidget(m_baseline);
    header->addWidget(exportTable);
    header->addWidget(exportReport);
}

// The plots of every run's lines, and the step time split's bars.
void ComparePage::buildPlots()
{
    const QList<std::tuple<QString, QString, QString, QString>> plots{
        {"compareLossByStep", tr("Loss"), tr("step"), tr("training loss")},
        {"compareLossByTime", tr("Loss against wall time"), tr("seconds"), tr("training loss")},
        {"compareThroughput", tr("Throughput"), tr("step"), tr("samples/s")}};
    for (const auto& [name, title, x, y] : plots) {
        auto* plot = new SeriesPlot(this);
        plot->setObjectName(name);
        plot->setTitle(title);
        plot->setAxisLabels(x, y);
        plot->setXIntegral(name != QLatin1String("compareLossByTime"));
        plot->setMinimumSize(260, 150);
        plot->setDialogs(m_dialogs);
        connect(plot, &SeriesPlot::message, this, &ComparePage::message);
        m_plots.push_back(plot);
    }
    m_split->setObjectName("compareStepSplit");
    m_split->setMinimumSize(260, 150);
    m_split->setContextMenuPolicy(Qt::CustomContextMenu);
    connect(m_split, &QWidget::customContextMenuRequested, this, [this](const QPoint& at) {
        QMenu menu(this);
        menu.addAction(tr("Export image (PNG, SVG, PDF)..."), this, [this] {
            const QString path = m_dialogs->saveFile(this, tr("Export the step time split"), "step-time-split.png",
                                                     tr("PNG (*.png);;SVG (*.svg);;PDF (*.pdf)"));
            QString error;
            if (!path.isEmpty() && !m_split->exportImage(path, &error))
                Q_EMIT message(error, true);
        });
        menu.exec(m_split->mapToGlobal(at));
    });
}

// The comparison table and the experiments' differences.
void ComparePage::buildTables()
{
    m_table->setObjectName("comparisonTable");
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_differences->setObjectName("experimentDifferences");
    m_differences->setEditTriggers(QAbstractItemView::NoEditTriggers);
    // A row a line, a column as wide as its values up to a limit: a long value (a cluster's
    // nodes) is elided, whole in its tooltip; many runs scroll.
    m_differences->setWordWrap(false);
    m_differences->setTextElideMode(Qt::ElideMiddle);
    m_differences->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_differences->horizontalHeader()->setMaximumSectionSize(260);
    m_differences->verticalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_differencesSummary->setObjectName("differencesSummary");
    m_differencesSummary->setWordWrap(true);
    connect(m_chips, &RunChips::runShownChanged, this, [this] {
        showRunLines();
        showTable();
    });
}

// The run chips over the plots, the tables under them.
QWidget* ComparePage::buildComparison()
{
    auto* plotsBox = new QWidget(this);
    auto* grid = new QGridLayout(plotsBox);
    grid->setContentsMargins(0, 0, 0, 0);
    for (size_t i = 0; i < m_plots.size(); ++i)
        grid->addWidget(m_plots[i], int(i) / 2, int(i) % 2);
    grid->addWidget(m_split, 1, 1);
    auto* differencesBox = new QWidget(this);
    auto* differencesLayout = new QVBoxLayout(differencesBox);
    differencesLayout->setContentsMargins(0, 0, 0, 0);
    differencesLayout->addWidget(m_differencesSummary);
    differencesLayout->addWidget(m_differences, 1);
    // Dragging a splitter all the way shrinks a part to its minimum, never to nothing.
    auto* bottom = new QSplitter(Qt::Horizontal, this);
    bottom->setObjectName("compareTablesSplitter");
    bottom->setChildrenCollapsible(false);
    bottom->addWidget(m_table);
    bottom->addWidget(differencesBox);
    bottom->setStretchFactor(0, 3);
    bottom->setStretchFactor(1, 2);
    m_table->setMinimumSize(220, 90);
    differencesBox->setMinimumSize(220, 90);
    auto* splitter = new QSplitter(Qt::Vertical, this);
    splitter->setObjectName("compareSplitter");
    splitter->setChildrenCollapsible(false);
    splitter->addWidget(plotsBox);
    splitter->addWidget(bottom);
    splitter->setStretchFactor(0, 3);
    splitter->setStretchFactor(1, 2);
    splitter->setSizes({500, 330});

    auto* comparison = new QWidget(this);
    auto* comparisonLayout = new QVBoxLayout(comparison);
    comparisonLayout->setContentsMargins(0, 0, 0, 0);
    comparisonLayout->addWidget(m_chips);
    comparisonLayout->addWidget(splitter, 1);
    return comparison;
}

ComparePage::~ComparePage()
{
    for (SeriesPlot* plot : m_plots)
        plot->setSource(nullptr);
}

QColor ComparePage::runColour(int run) const
{
    return theme::series(m_session->colourSlot(run), palette());
}

void ComparePage::changeEvent(QEvent* event)
{
    QWidget::changeEvent(event);
    if (event->type() != QEvent::PaletteChange)
        return;
    QList<QColor> colours;
    for (int run = 0; run < m_session->runCount(); ++run)
        colours << runColour(run);
    m_chips->setColours(colours);
    showRunLines();
    showDifferences();
    showTable();
}

void ComparePage::showRuns()
{
    const int runs = m_session->runCount();
    m_header->setVisible(runs > 0);
    m_title->setText(tr("Comparing %n run(s)", nullptr, runs));
    m_title->setToolTip(m_session->labels().join('\n'));
    QList<QColor> colours;
    for (int run = 0; run < runs; ++run)
        colours << runColour(run);
    m_chips->setRuns(m_session->labels(), colours);
    // The session made new lines for the new runs: the plots read those now.
    for (int i = 0; i < app::ComparisonSession::PlotCount; ++i) {
        m_plots[size_t(i)]->setSource(&m_session->lines(app::ComparisonSession::PlotKind(i)));
        m_plots[size_t(i)]->resetView();
    }
    showRunLines();
    // Shown once they read the new lines (a plot refreshes when shown; the old lines are gone).
    m_stack->setCurrentIndex(runs > 0 ? 1 : 0);
    m_baseline->clear();
    m_baseline->addItem(tr("first OneDevice run"));
    for (int run = 0; run < runs; ++run)
        m_baseline->addItem(runSwatch(colours[run]), m_session->labels()[run]);
    m_baseline->setCurrentIndex(m_session->options().baseline + 1);
    showDifferences();
    showTable();
}

void ComparePage::showRunLines()
{
    const QStringList labels = m_session->labels();
    for (int kind = 0; kind < app::ComparisonSession::PlotCount; ++kind) {
        SeriesPlot* plot = m_plots[size_t(kind)];
        const app::SeriesLines& lines = m_session->lines(app::ComparisonSession::PlotKind(kind));
        // A run without data has no line: lines are matched to runs by name (labels are distinct).
        for (int line = 0; line < lines.lineCount(); ++line)
            if (const int run = int(labels.indexOf(lines.lineName(line))); run >= 0) {
                plot->setLineColor(line, runColour(run));
                plot->setLineVisible(line, m_chips->isRunShown(run));
            }
    }
}

void ComparePage::showDifferences()
{
    const int runs = m_session->runCount();
    const QStringList labels = m_session->labels();
    // The setup being compared first, then what makes the comparison unfair.
    std::vector<const app::ExperimentDifference*> rows;
    for (const bool setup : {true, false})
        for (const app::ExperimentDifference& d : m_session->differences())
            if (d.setup == setup)
                rows.push_back(&d);
    m_differences->clear();
    m_differences->setColumnCount(runs);
    m_differences->setRowCount(int(rows.size()));
    for (int run = 0; run < runs; ++run) {
        auto* item = new QTableWidgetItem(runSwatch(runColour(run)), labels[run]);
        item->setToolTip(labels[run]);
        m_differences->setHorizontalHeaderItem(run, item);
    }
    const QColor unfairColour = theme::error(palette());
    const QString unfairTip = tr("Not the strategy: this difference makes the comparison unfair (the runs measured "
                                 "different things)");
    int unfair = 0;
    for (int row = 0; row < int(rows.size()); ++row) {
        const app::ExperimentDifference& d = *rows[size_t(row)];
        auto* field = new QTableWidgetItem(d.label);
        field->setToolTip(d.setup ? d.path : d.path + "\n" + unfairTip);
        if (!d.setup) {
            // The runs measured different things: say so where it cannot be missed.
            field->setIcon(style()->standardIcon(QStyle::SP_MessageBoxWarning));
            field->setForeground(unfairColour);
            ++unfair;
        }
        m_differences->setVerticalHeaderItem(row, field);
        for (int run = 0; run < runs; ++run) {
            auto* cell = new QTableWidgetItem(d.values.value(run));
            cell->setToolTip(d.values.value(run));
            if (!d.setup)
                cell->setForeground(unfairColour);
            m_differences->setItem(row, run, cell);
        }
    }
    QString summary;
    if (runs > 1 && rows.empty())
        summary = tr("The experiments are identical.");
    else if (runs > 1 && unfair == 0)
        summary = tr("Only the setup differs: model, data, batch and seed are the same.");
    else if (runs > 1)
        summary = tr("%n difference(s) besides the setup (marked) make the comparison unfair: the runs measured "
                     "different things.", nullptr, unfair);
    m_differencesSummary->setText(summary);
    QPalette summaryPalette = palette();
    if (unfair > 0)
        summaryPalette.setColor(QPalette::WindowText, unfairColour);
    m_differencesSummary->setPalette(summaryPalette);
    m_differencesSummary->setVisible(!summary.isEmpty());
}

void ComparePage::showTable()
{
    const app::ComparisonTable& t = m_session->table();
    const QStringList header = t.header();
    const int runs = int(t.runs.size());
    // A column per run, a row per figure: many figures of a few runs read down the page.
    m_table->clear();
    m_table->setColumnCount(runs);
    m_table->setRowCount(int(header.size()) - 1);
    m_table->setVerticalHeaderLabels(header.mid(1));
    std::vector<app::RunSummary> shown;
    QList<QColor> shownColours;
    for (int run = 0; run < runs; ++run) {
        const QStringList cells = t.cells(run), tips = t.tips(run);
        const QColor colour = runColour(run);
        m_table->setHorizontalHeaderItem(
            run, new QTableWidgetItem(runSwatch(colour), cells.front() + (run == t.baseline ? tr(" (baseline)") : QString())));
        for (int row = 1; row < cells.size(); ++row) {
            auto* item = new QTableWidgetItem(cells[row]);
            item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
            if (!tips[row].isEmpty())
                item->setToolTip(tips[row]);
            m_table->setItem(row - 1, run, item);
        }
        if (m_chips->isRunShown(run)) {
            shown.push_back(t.runs[size_t(run)]);
            shownColours << colour;
        }
    }
    m_split->setRuns(shown, shownColours);
}

void ComparePage::exportTable()
{
    const QString path = m_dialogs->saveFile(this, tr("Export the comparison table"), "comparison.csv",
                                             tr("CSV (*.csv);;Markdown (*.md)"));
    if (path.isEmpty())
        return;
    const bool markdown = QFileInfo(path).suffix().toLower() == "md";
    QString error;
    if (!app::writeTextFile(path, markdown ? m_session->report(app::ReportFormat::Markdown)
                                           : app::tableCsv(m_session->table()),
                            &error))
        Q_EMIT message(error, true);
    else
        Q_EMIT message(tr("Wrote the comparison table to %1").arg(path), false);
}

bool ComparePage::exportReport(const QString& path, QString* error)
{
    QPdfWriter pdf(path);
    pdf.setPageSize(QPageSize(QPageSize::A4));
    pdf.setPageOrientation(QPageLayout::Landscape);
    pdf.setResolution(96);
    pdf.setTitle(tr("Strata comparison"));
    pdf.setCreator(QStringLiteral("Strata"));
    // One painter for the whole document: ending a painter on a QPdfWriter ends the file.
    QCPPainter painter;
    if (!painter.begin(&pdf)) {
        if (error)
            *error = tr("Cannot write %1: check that its folder exists and is writable").arg(path);
        return false;
    }
    const QRect page = painter.viewport();
    // First the report as `strata compare` prints it, in a fixed-width font.
    QFont mono(QStringLiteral("monospace"));
    mono.setStyleHint(QFont::TypeWriter);
    mono.setPointSizeF(8);
    painter.setFont(mono);
    const QString heading = tr("Strata comparison, %1").arg(QDateTime::currentDateTime().toString(Qt::ISODate));
    const QStringList lines = (heading + "\n\n" + m_session->report(app::ReportFormat::Text)).split('\n');
    const int lineHeight = painter.fontMetrics().lineSpacing();
    int y = lineHeight;
    for (const QString& line : lines) {
        if (y > page.height() - lineHeight) {
            pdf.newPage();
            y = lineHeight;
        }
        painter.drawText(0, y, line);
        y += lineHeight;
    }
    // Then the plots on a page, with their legends and axes.
    std::vector<QCustomPlot*> plots;
    for (SeriesPlot* plot : m_plots)
        plots.push_back(plot->plot());
    plots.push_back(m_split->plot());
    pdf.newPage();
    const int w = page.width() / 2 - 10, h = page.height() / 2 - 10;
    for (size_t i = 0; i < plots.size(); ++i) {
        painter.save();
        painter.translate(int(i % 2) * (w + 20), int(i / 2) * (h + 20));
        plots[i]->toPainter(&painter, w, h);
        painter.restore();
    }
    const bool ok = painter.end();
    if (!ok || QFileInfo(path).size() == 0) {
        if (error)
            *error = tr("Cannot write %1").arg(path);
        return false;
    }
    return true;
}

} // namespace strata::ui
