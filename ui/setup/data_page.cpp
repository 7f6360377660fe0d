#include "ui/setup/data_page.h"

#include "app/experiment/catalogs.h"
#include "ui/shell/dialogs.h"
#include "ui/setup/field_binding.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLineEdit>
#include <QPushButton>
#include <QSignalBlocker>
#include <QSpinBox>
#include <QStackedWidget>
#include <QVBoxLayout>

#include <limits>

namespace strata::ui {

namespace {
QSpinBox* countSpin(const QString& name, int minimum, const QString& special = {})
{
    auto* spin = new QSpinBox;
    spin->setObjectName(name);
    spin->setRange(minimum, std::numeric_limits<int>::max());
    spin->setGroupSeparatorShown(true);
    if (!special.isEmpty())
        spin->setSpecialValueText(special);
    return spin;
}
} // namespace

DataPage::DataPage(app::ExperimentDocument* document, Dialogs* dialogs, QWidget* parent)
    : QWidget(parent), m_document(document), m_dialogs(dialogs), m_sources(new QStackedWidget(this))
{
    const QStringList sources = app::dataSourceNames();
    auto* type = new QComboBox(this);
    type->setObjectName("sourceType");
    const QMap<QString, QString> titles{{"fashion_mnist", tr("Fashion-MNIST (Debian's dataset-fashion-mnist)")},
                                        {"mnist", tr("MNIST (a directory of IDX files)")},
                                        {"idx", tr("IDX files")},
                                        {"cifar10", tr("CIFAR-10 (binary version)")},
                                        {"text", tr("Labelled text")},
                                        {"synthetic", tr("Synthetic")}};
    for (const auto& s : sources) {
        type->addItem(titles.value(s, s), s);
        m_sources->addWidget(makeSourceForm(s));
    }
    // Not a plain field binding: another source type has other fields (setType drops them).
    connect(type, &QComboBox::activated, this, [this, type](int index) {
        m_document->setType("/data/source", type->itemData(index).toString());
    });
    auto showSource = [this, sources, type] {
        const int index = static_cast<int>(sources.indexOf(m_document->get("/data/source/type").toString()));
        const QSignalBlocker blocker(type);
        type->setCurrentIndex(index);
        m_sources->setCurrentIndex(std::max(0, index));
    };
    connect(document, &app::ExperimentDocument::changed, this, showSource);
    showSource();

    auto* sourceBox = new QGroupBox(tr("Dataset"), this);
    auto* sourceLayout = new QFormLayout(sourceBox);
    sourceLayout->addRow(tr("Source:"), type);
    sourceLayout->addRow(m_sources);

    auto* validation = new QComboBox(this);
    validation->setObjectName("validation");
    validation->addItem(tr("none"), "none");
    validation->addItem(tr("the test split, after every epoch"), "test");
    validation->addItem(tr("a split of the training data"), "split");
    bindComboBox(validation, document, "/data/validation", "none");
    auto* split = new QDoubleSpinBox(this);
    split->setObjectName("validationSplit");
    split->setRange(0, 0.95);
    split->setSingleStep(0.05);
    bindDoubleSpinBox(split, document, "/data/validation_split", 0);
    auto* shuffle = new QCheckBox(tr("reshuffle every epoch"), this);
    shuffle->setObjectName("shuffle");
    bindCheckBox(shuffle, document, "/data/shuffle", true);
    auto* prefetch = countSpin("prefetch", 0, tr("none"));
    bindSpinBox(prefetch, document, "/data/prefetch", 2);
    auto* shard = new QComboBox(this);
    shard->setObjectName("shardPolicy");
    // How MultiWorkerMirrored's workers split the input (engine/include/strata/data/shard.h).
    shard->addItem(tr("AUTO (FILE when there are at least as many files as workers, else DATA)"), "AUTO");
    shard->addItem(tr("OFF (every worker reads everything: the workers train on the same examples)"), "OFF");
    shard->addItem(tr("FILE (each worker reads its own files)"), "FILE");
    shard->addItem(tr("DATA (every worker reads everything and keeps its piece of each global batch)"), "DATA");
    shard->setToolTip(tr("How the workers of a MultiWorkerMirrored job divide the input; one worker reads "
                         "everything whatever the policy"));
    bindComboBox(shard, document, "/data/shard_policy", "AUTO");
    auto* evaluate = new QCheckBox(tr("evaluate on the test split after training"), this);
    evaluate->setObjectName("evaluateTest");
    bindCheckBox(evaluate, document, "/data/evaluate_test", true);
    auto* trainLimit = countSpin("trainLimit", 0, tr("all"));
    bindSpinBox(trainLimit, document, "/data/train_limit", 0);
    auto* testLimit = countSpin("testLimit", 0, tr("all"));
    bindSpinBox(testLimit, document, "/data/test_limit", 0);

    auto* inputBox = new QGroupBox(tr("Input pipeline"), this);
    auto* input = new QFormLayout(inputBox);
    input->addRow(tr("Validation:"), validation);
    input->addRow(tr("Validation split:"), split);
    input->addRow(tr("Shuffle:"), shuffle);
    input->addRow(tr("Prefetch (batches):"), prefetch);
    input->addRow(tr("Shard policy:"), shard);
    input->addRow(tr("Test:"), evaluate);
    input->addRow(tr("Training examples:"), trainLimit);
    input->addRow(tr("Test examples:"), testLimit);

    auto* layout = new QVBoxLayout(this);
    layout->addWidget(sourceBox);
    layout->addWidget(inputBox);
    layout->addStretch(1);
}

QWidget* DataPage::makePathEditor(const QString& pointer, PathKind kind, const QString& placeholder)
{
    auto* box = new QWidget;
    box->setObjectName(pointer.section('/', -1));
    auto* edit = new QLineEdit(box);
    edit->setObjectName("path");
    edit->setPlaceholderText(placeholder);
    bindLineEdit(edit, m_document, pointer);
    auto* browse = new QPushButton(tr("Browse..."), box);
    browse->setObjectName("browse");
    connect(browse, &QPushButton::clicked, this, [this, pointer, kind, edit] {
        const QString title = tr("Choose %1").arg(pointer.section('/', -1));
        QString path = kind == PathKind::Directory
                           ? m_dialogs->directory(this, title, edit->text())
                           : m_dialogs->openFile(this, title, tr("All files (*)"));
        if (path.isEmpty() && kind == PathKind::FileOrDirectory)
            path = m_dialogs->directory(this, title, edit->text());
        if (!path.isEmpty())
            m_document->setValue(pointer, path);
    });
    auto* layout = new QHBoxLayout(box);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(edit, 1);
    layout->addWidget(browse);
    return box;
}

QWidget* DataPage::makeSourceForm(const QString& type)
{
    auto* page = new QWidget;
    auto* form = new QFormLayout(page);
    form->setContentsMargins(0, 0, 0, 0);
    const QString base = "/data/source/";
    if (type == "fashion_mnist") {
        form->addRow(tr("Directory:"), makePathEditor(base + "dir", PathKind::Directory, "/usr/share/datasets/fashion-mnist"));
    } else if (type == "mnist" || type == "cifar10") {
        form->addRow(tr("Directory:"), makePathEditor(base + "dir", PathKind::Directory, tr("required")));
    } else if (type == "idx") {
        form->addRow(tr("Training images:"), makePathEditor(base + "train_images", PathKind::File, tr("required")));
        form->addRow(tr("Training labels:"), makePathEditor(base + "train_labels", PathKind::File, tr("required")));
        form->addRow(tr("Test images:"), makePathEditor(base + "test_images", PathKind::File, tr("optional")));
        form->addRow(tr("Test labels:"), makePathEditor(base + "test_labels", PathKind::File, tr("optional")));
    } else if (type == "text") {
        form->addRow(tr("Training text:"),
                     makePathEditor(base + "train", PathKind::FileOrDirectory, tr("label<TAB>text file, or class directories")));
        form->addRow(tr("Test text:"), makePathEditor(base + "test", PathKind::FileOrDirectory, tr("optional")));
        auto* vocab = countSpin("vocabSize", 2);
        bindSpinBox(vocab, m_document, base + "vocab_size", 10000);
        form->addRow(tr("Vocabulary size:"), vocab);
        auto* length = countSpin("maxLength", 1);
        bindSpinBox(length, m_document, base + "max_length", 250);
        form->addRow(tr("Sequence length:"), length);
    } else if (type == "synthetic") {
        auto* task = new QComboBox;
        task->setObjectName("task");
        task->addItem(tr("classification (Gaussian clusters)"), "classification");
        task->addItem(tr("regression (learnable nonlinear target)"), "regression");
        task->addItem(tr("random regression (the seeds' np.random example)"), "random_regression");
        bindComboBox(task, m_document, base + "task", "classification");
        form->addRow(tr("Task:"), task);
        const QList<std::tuple<QString, QString, int, int>> counts{{"samples", tr("Training examples:"), 1, 1000},
                                                                   {"test_samples", tr("Test examples:"), 0, 200},
                                                                   {"features", tr("Features:"), 1, 10},
                                                                   {"classes", tr("Classes:"), 2, 2}};
        for (const auto& [field, label, minimum, absent] : counts) {
            auto* spin = countSpin(field, minimum);
            bindSpinBox(spin, m_document, base + field, absent);
            form->addRow(label, spin);
        }
        auto* noise = new QLineEdit;
        noise->setObjectName("noise");
        noise->setPlaceholderText(tr("default"));
        bindNumberEdit(noise, m_document, base + "noise");
        form->addRow(tr("Noise:"), noise);
    }
    return page;
}

} // namespace strata::ui
