#include "ui/setup/model_page.h"

#include "app/experiment/catalogs.h"
#include "app/experiment/field_labels.h"
#include "ui/setup/field_binding.h"
#include "ui/setup/form_layout.h"
#include "ui/setup/layer_editor.h"
#include "ui/shell/dialogs.h"
#include "ui/shell/theme.h"

#include <QFormLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QLocale>
#include <QMenu>
#include <QPushButton>
#include <QSignalBlocker>
#include <QSplitter>
#include <QTableWidget>
#include <QToolButton>
#include <QVBoxLayout>

namespace strata::ui {

namespace {
enum Column { Index, Type, OutputShape, Params, ColumnCount };

QToolButton* toolButton(const QString& name, const QString& text, const QString& tip, QWidget* parent)
{
    auto* b = new QToolButton(parent);
    b->setObjectName(name);
    b->setText(text);
    b->setToolTip(tip);
    b->setToolButtonStyle(Qt::ToolButtonTextOnly);
    return b;
}
} // namespace

ModelPage::ModelPage(app::ExperimentDocument* document, Dialogs* dialogs, QWidget* parent)
    : QWidget(parent), m_document(document), m_dialogs(dialogs), m_inputShape(new QLineEdit(this)),
      m_table(new QTableWidget(0, ColumnCount, this)), m_total(new QLabel(this)),
      m_editor(new LayerEditor(document, this)),
      m_add(toolButton("addLayer", tr("Add layer"), tr("Insert a layer after the selected one"), this)),
      m_remove(toolButton("removeLayer", tr("Remove"), tr("Remove the selected layer (Delete)"), this)),
      m_up(toolButton("moveLayerUp", tr("Move up"), tr("Move the selected layer up (Ctrl+Up)"), this)),
      m_down(toolButton("moveLayerDown", tr("Move down"), tr("Move the selected layer down (Ctrl+Down)"), this))
{
    QFormLayout* top = makeInputRow(document);
    QHBoxLayout* buttons = makeLayerButtons();
    setUpTable();

    auto* left = new QWidget(this);
    auto* leftLayout = new QVBoxLayout(left);
    leftLayout->setContentsMargins(0, 0, 0, 0);
    leftLayout->addLayout(buttons);
    leftLayout->addWidget(m_table, 1);
    leftLayout->addWidget(m_total);
    auto* splitter = new QSplitter(this);
    splitter->addWidget(left);
    splitter->addWidget(m_editor);
    splitter->setStretchFactor(0, 3);
    splitter->setStretchFactor(1, 2);

    auto* layout = new QVBoxLayout(this);
    layout->addLayout(top);
    layout->addWidget(splitter, 1);

    // Every edit, undo and load revalidates; this also follows host changes.
    connect(document, &app::ExperimentDocument::validationChanged, this, &ModelPage::refresh);
    refresh();
    selectLayer(m_document->layerCount() > 0 ? 0 : -1);
}

// The input shape, and importing a Keras model.
QFormLayout* ModelPage::makeInputRow(app::ExperimentDocument* document)
{
    m_inputShape->setObjectName("inputShape");
    m_inputShape->setPlaceholderText(tr("e.g. 28, 28 (without the batch dimension)"));
    fitWidth(m_inputShape, FieldWidth::Long);
    bindIntsEdit(m_inputShape, document, "/model/input_shape", IntsForm::List);
    auto* importButton = new QPushButton(tr("Import Keras model..."), this);
    importButton->setObjectName("importKeras");
    importButton->setToolTip(tr("Replace the model with a Keras model.to_json() file"));
    connect(importButton, &QPushButton::clicked, this, &ModelPage::importKeras);
    auto* top = makeForm();
    auto* inputRow = new QHBoxLayout;
    inputRow->addWidget(m_inputShape, 1);
    inputRow->addWidget(importButton);
    inputRow->addStretch(1);
    top->addRow(app::fieldTitle("model.input_shape") + ':', inputRow);

    return top;
}

// Add (a menu of the layer types), remove and move the selected layer.
QHBoxLayout* ModelPage::makeLayerButtons()
{
    auto* menu = new QMenu(m_add);
    for (const auto& type : app::layerTypes()) {
        QAction* action = menu->addAction(type.type, this, [this, t = type.type] { addLayer(t); });
        action->setToolTip(type.description);
    }
    m_add->setMenu(menu);
    m_add->setPopupMode(QToolButton::InstantPopup);
    connect(m_remove, &QToolButton::clicked, this, [this] {
        const int row = selectedLayer();
        if (row >= 0) {
            m_document->removeLayer(row);
            selectLayer(std::min(row, m_document->layerCount() - 1));
        }
    });
    auto move = [this](int delta) {
        const int row = selectedLayer();
        const int to = row + delta;
        if (row < 0 || to < 0 || to >= m_document->layerCount())
            return;
        m_document->moveLayer(row, to);
        selectLayer(to);
    };
    connect(m_up, &QToolButton::clicked, this, [move] { move(-1); });
    connect(m_down, &QToolButton::clicked, this, [move] { move(+1); });
    m_remove->setShortcut(QKeySequence::Delete);
    m_up->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_Up));
    m_down->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_Down));
    auto* buttons = new QHBoxLayout;
    for (auto* b : {m_add, m_remove, m_up, m_down})
        buttons->addWidget(b);
    buttons->addStretch(1);

    return buttons;
}

// The layers' table (a row a layer) and their parameters' total.
void ModelPage::setUpTable()
{
    m_table->setObjectName("layerTable");
    m_table->setHorizontalHeaderLabels({tr("#"), tr("Layer"), tr("Output shape"), tr("Params")});
    m_table->verticalHeader()->hide();
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setSelectionMode(QAbstractItemView::SingleSelection);
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->horizontalHeader()->setSectionResizeMode(Type, QHeaderView::Stretch);
    m_table->horizontalHeader()->setSectionResizeMode(Index, QHeaderView::ResizeToContents);
    connect(m_table, &QTableWidget::itemSelectionChanged, this, [this] { m_editor->setLayer(selectedLayer()); });
    m_total->setObjectName("totalParams");

}

int ModelPage::selectedLayer() const
{
    const auto rows = m_table->selectionModel()->selectedRows();
    return rows.isEmpty() ? -1 : rows.front().row();
}

void ModelPage::selectLayer(int index)
{
    if (index < 0 || index >= m_table->rowCount())
        m_table->clearSelection();
    else
        m_table->selectRow(index);
    m_editor->setLayer(index < m_table->rowCount() ? index : -1);
}

void ModelPage::addLayer(const QString& type)
{
    const int at = selectedLayer() < 0 ? m_document->layerCount() : selectedLayer() + 1;
    m_document->insertLayer(at, type);
    selectLayer(at);
}

void ModelPage::importKeras()
{
    const QString path = m_dialogs->openFile(this, tr("Import Keras model"), tr("Keras model JSON (*.json);;All files (*)"));
    if (path.isEmpty())
        return;
    QString error;
    if (m_document->importKerasModel(path, &error)) {
        selectLayer(0);
        Q_EMIT message(tr("Imported the Keras model from %1 (Edit > Undo brings the previous model back).").arg(path),
                       false);
    } else {
        Q_EMIT message(error, true);
    }
}

void ModelPage::refresh()
{
    const app::Validation& v = m_document->validation();
    const int count = m_document->layerCount();
    const int selected = selectedLayer();
    const QSignalBlocker blocker(m_table);
    m_table->setRowCount(count);
    const QLocale locale;
    for (int i = 0; i < count; ++i) {
        const QVariantMap layer = m_document->layer(i);
        QString detail = layer.value("type").toString();
        for (const char* key : {"units", "filters", "rate", "activation"})
            if (layer.contains(key))
                detail += QStringLiteral(" %1=%2").arg(key, layer.value(key).toString());
        QString shape, params, error;
        if (i < v.layers.size()) {
            shape = v.layers[i].outputShape;
            params = v.layers[i].outputShape.isEmpty() ? QString() : locale.toString(v.layers[i].params);
            error = v.layers[i].error;
        }
        // Field problems of this layer ("model.layers[2].units: ...") mark it too.
        const QString prefix = QStringLiteral("model.layers[%1]").arg(i);
        for (const auto& p : v.problems)
            if (p.path == prefix || p.path.startsWith(prefix + '.'))
                error += (error.isEmpty() ? QString() : QStringLiteral("\n")) + p.labelled();
        const QStringList cells{QString::number(i + 1), detail, error.isEmpty() ? shape : tr("error"), params};
        for (int c = 0; c < ColumnCount; ++c) {
            auto* item = new QTableWidgetItem(cells[c]);
            if (c == Params)
                item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
            if (!error.isEmpty()) {
                item->setBackground(theme::errorBackground(palette()));
                item->setToolTip(error);
            }
            m_table->setItem(i, c, item);
        }
    }
    if (selected >= 0 && selected < count)
        m_table->selectRow(selected);
    QString total = tr("Input %1 - total params: %2").arg(v.inputShape, locale.toString(v.totalParams));
    if (v.nonTrainableParams > 0)
        total += tr(" (%1 non-trainable)").arg(locale.toString(v.nonTrainableParams));
    m_total->setText(v.layers.isEmpty() && count > 0 ? tr("Total params: unknown until the model is valid") : total);
}

} // namespace strata::ui
