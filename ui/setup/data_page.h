#pragma once
// Data page: the dataset (Fashion-MNIST by default; IDX, CIFAR-10 and text files chosen with
// a file dialog; synthetic data), validation data, shuffling, prefetch and shard policy.

#include "app/experiment/experiment_document.h"

#include <QWidget>

class QGroupBox;
class QStackedWidget;

namespace strata::ui {

class Dialogs;

class DataPage : public QWidget {
    Q_OBJECT

public:
    DataPage(app::ExperimentDocument* document, Dialogs* dialogs, QWidget* parent = nullptr);

private:
    enum class PathKind { File, Directory, FileOrDirectory };
    // The constructor's steps: the page's two boxes.
    QGroupBox* makeSourceBox(app::ExperimentDocument* document);
    QGroupBox* makeInputBox(app::ExperimentDocument* document);
    QWidget* makeSourceForm(const QString& type);
    QWidget* makePathEditor(const QString& pointer, PathKind kind, const QString& placeholder);

    app::ExperimentDocument* m_document;
    Dialogs* m_dialogs;
    QStackedWidget* m_sources;
};

} // namespace strata::ui
