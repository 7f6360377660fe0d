#pragma once
// The fields of one layer, each with the editor its kind calls for (from the engine's layer
// registry: integers, numbers, choices, kernel sizes, regularizers), bound to the document.

#include "app/experiment/catalogs.h"
#include "app/experiment/experiment_document.h"

#include <QWidget>

class QFormLayout;
class QLabel;

namespace strata::ui {

class LayerEditor : public QWidget {
    Q_OBJECT

public:
    LayerEditor(app::ExperimentDocument* document, QWidget* parent = nullptr);
    // Shows layer `index` (-1: none); rebuilds only when the layer or its type changed.
    void setLayer(int index);
    int layer() const { return m_index; }

private:
    QWidget* makeEditor(const app::FieldInfo& field, const QString& pointer);
    void rebuild();

    app::ExperimentDocument* m_document;
    QList<app::LayerTypeInfo> m_types;
    int m_index = -1;
    QString m_type;
    QLabel* m_heading;
    QLabel* m_description;
    QWidget* m_fields = nullptr;
};

} // namespace strata::ui
