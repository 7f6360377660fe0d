#include "ui/history/compare_page.h"

#include "ui/shell/dialogs.h"
#include "ui/plot/series_plot.h"
#include "ui/history/split_bars.h"
#include "ui/history/sweep_panel.h"
#include "ui/shell/theme.h"

#include <qcustomplot.h>

#include <QComboBox>
#include <QDateTime>
#include <QDoubleSpinBox>
#include <QFileInfo>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QListWidget>
#include <QMenu>
#include <QPdfWriter>
#include <QPushButton>
#include <QSplitter>
#include <QTableWidget>
#include <QVBoxLayout>

namespace strata::ui {

ComparePage::ComparePage(app::ComparisonSession* session, Dialogs* dialogs, QWidget* parent)
    : QWidget(parent), m_session(session), m_dialogs(dialogs), m_sweep(new SweepPanel(this)),
      m_title(new QLabel(this)), m_target(new QDoubleSpinBox(this)), m_baseline(new QComboBox(this)),
      m_split(new SplitBars(this)), m_table(new QTableWidget(this)), m_differences(new QListWidget(this))
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
        plot->setMinimumSize(300, 180);
        plot->setDialogs(m_dialogs);
        connect(plot, &SeriesPlot::message, this, &ComparePage::message);
        m_plots.push_back(plot);
    }
    m_split->setObjectName("compareStepSplit");
    m_split->setMinimumSize(300, 180);
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

    m_table->setObjectName("comparisonTable");
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_differences->setObjectName("experimentDifferences");
    m_differences->setWordWrap(true);

    auto* header = new QHBoxLayout;
    header->addWidget(m_title, 1);
    header->addWidget(new QLabel(tr("Target loss:"), this));
    header->addWidget(m_target);
    header->addWidget(new QLabel(tr("Baseline:"), this));
    header->addWidget(m_baseline);
    header->addWidget(exportTable);
    header->addWidget(exportReport);

    auto* plotsBox = new QWidget(this);
    auto* grid = new QGridLayout(plotsBox);
    grid->setContentsMargins(0, 0, 0, 0);
    for (size_t i = 0; i < m_plots.size(); ++i)
        grid->addWidget(m_plots[i], int(i) / 2, int(i) % 2);
    grid->addWidget(m_split, 1, 1);
    auto* bottom = new QSplitter(Qt::Horizontal, this);
    bottom->addWidget(m_table);
    bottom->addWidget(m_differences);
    bottom->setStretchFactor(0, 3);
    bottom->setStretchFactor(1, 2);
    auto* splitter = new QSplitter(Qt::Vertical, this);
    splitter->addWidget(plotsBox);
    splitter->addWidget(bottom);
    splitter->setStretchFactor(0, 3);
    splitter->setStretchFactor(1, 2);
    splitter->setSizes({500, 330});

    auto* layout = new QVBoxLayout(this);
    layout->addWidget(m_sweep);
    layout->addLayout(header);
    layout->addWidget(splitter, 1);

    connect(session, &app::ComparisonSession::runsChanged, this, &ComparePage::showRuns);
    connect(session, &app::ComparisonSession::tableChanged, this, &ComparePage::showTable);
    showRuns();
}

ComparePage::~ComparePage()
{
    for (SeriesPlot* plot : m_plots)
        plot->setSource(nullptr);
}

void ComparePage::showRuns()
{
    const int runs = m_session->runCount();
    m_title->setText(runs ? tr("Comparing %n run(s): %1", nullptr, runs).arg(m_session->labels().join(", "))
                          : tr("No runs to compare: select runs on the History page, or run strategies above."));
    // The session made new lines for the new runs: the plots read those now.
    for (int i = 0; i < app::ComparisonSession::PlotCount; ++i) {
        m_plots[size_t(i)]->setSource(&m_session->lines(app::ComparisonSession::PlotKind(i)));
        m_plots[size_t(i)]->resetView();
    }
    m_baseline->clear();
    m_baseline->addItem(tr("first OneDevice run"));
    m_baseline->addItems(m_session->labels());
    m_baseline->setCurrentIndex(m_session->options().baseline + 1);

    m_differences->clear();
    bool unfair = false;
    for (const app::ExperimentDifference& d : m_session->differences()) {
        auto* item = new QListWidgetItem(d.text(), m_differences);
        if (!d.setup) {
            // The runs measured different things: say so where it cannot be missed.
            item->setForeground(theme::error(palette())); // unfair to compare
            item->setToolTip(tr("Not the strategy: this difference makes the comparison unfair"));
            unfair = true;
        }
    }
    if (runs > 1 && m_session->differences().empty())
        new QListWidgetItem(tr("The experiments are identical."), m_differences);
    else if (runs > 1 && !unfair)
        new QListWidgetItem(tr("Only the setup differs: model, data, batch and seed are the same."), m_differences);
    showTable();
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
    QStringList labels;
    for (int run = 0; run < runs; ++run) {
        const QStringList cells = t.cells(run);
        labels << cells.front() + (run == t.baseline ? tr(" (baseline)") : QString());
        for (int row = 1; row < cells.size(); ++row) {
            auto* item = new QTableWidgetItem(cells[row]);
            item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
            m_table->setItem(row - 1, run, item);
        }
    }
    m_table->setHorizontalHeaderLabels(labels);
    m_split->setRuns(t.runs);
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
