#pragma once
// Model page: the layer list (add, remove, reorder), each layer's output shape and
// parameter count and the total, updated as the user types; the layer that breaks the
// model is marked. The selected layer's fields are edited beside the list.

#include "app/experiment/experiment_document.h"

#include <QWidget>

class QFormLayout;
class QHBoxLayout;
class QLabel;
class QLineEdit;
class QTableWidget;
class QToolButton;

namespace strata::ui {

class Dialogs;
class LayerEditor;

class ModelPage : public QWidget {
    Q_OBJECT

public:
    ModelPage(app::ExperimentDocument* document, Dialogs* dialogs, QWidget* parent = nullptr);

    void selectLayer(int index);
    int selectedLayer() const;

Q_SIGNALS:
    void message(const QString& text, bool error);

private:
    // The constructor's steps.
    QFormLayout* makeInputRow(app::ExperimentDocument* document);
    QHBoxLayout* makeLayerButtons();
    void setUpTable();
    void refresh();
    void addLayer(const QString& type);
    void importKeras();

    app::ExperimentDocument* m_document;
    Dialogs* m_dialogs;
    QLineEdit* m_inputShape;
    QTableWidget* m_table;
    QLabel* m_total;
    LayerEditor* m_editor;
    QToolButton* m_add;
    QToolButton* m_remove;
    QToolButton* m_up;
    QToolButton* m_down;
};

} // namespace strata::ui
