#include "ui/setup/data_page.h"

#include "app/experiment/catalogs.h"
#include "app/experiment/field_labels.h"
#include "ui/setup/field_binding.h"
#include "ui/setup/field_marks.h"
#include "ui/setup/field_spin_box.h"
#include "ui/setup/form_layout.h"
#include "ui/shell/dialogs.h"

#include <QCheckBox>
#include <QComboBox>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLineEdit>
#include <QPushButton>
#include <QSignalBlocker>
#include <QStackedWidget>
#include <QVBoxLayout>

#include <limits>

namespace strata::ui {

namespace {
FieldSpinBox* countSpin(const QString& name, int minimum, const QString& special = {})
{
    auto* spin = new FieldSpinBox;
    spin->setObjectName(name);
    spin->setAllowedRange(minimum, std::numeric_limits<int>::max());
    spin->setGroupSeparatorShown(true);
    spin->setSpecialText(special);
    return spin;
}

QString label(const char* path) { return app::fieldTitle(QLatin1String(path)) + ':'; }
} // namespace

DataPage::DataPage(app::ExperimentDocument* document, Dialogs* dialogs, QWidget* parent)
    : QWidget(parent), m_document(document), m_dialogs(dialogs), m_sources(new QStackedWidget(this))
{
    QGroupBox* sourceBox = makeSourceBox(document);
    QGroupBox* inputBox = makeInputBox(document);
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(sourceBox);
    layout->addWidget(inputBox);
    layout->addStretch(1);
}

// The data source: its type, then the chosen type's own fields.
QGroupBox* DataPage::makeSourceBox(app::ExperimentDocument* document)
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
    fitToCurrentPage(m_sources);
    connect(document, &app::ExperimentDocument::changed, this, showSource);
    showSource();
    markProblems(type, document, "data.source.type");

    auto* sourceBox = new QGroupBox(app::fieldTitle("data.source"), this);
    auto* sourceLayout = new QVBoxLayout(sourceBox);
    auto* sourceForm = makeForm();
    sourceForm->addRow(label("data.source.type"), type);
    sourceLayout->addLayout(sourceForm);
    sourceLayout->addWidget(m_sources);

    return sourceBox;
}

// The input pipeline: validation, shuffling, prefetch, sharding, limits.
QGroupBox* DataPage::makeInputBox(app::ExperimentDocument* document)
{
    auto* validation = new QComboBox(this);
    validation->setObjectName("validation");
    validation->addItem(tr("none"), "none");
    validation->addItem(tr("the test split, after every epoch"), "test");
    validation->addItem(tr("a split of the training data"), "split");
    bindComboBox(validation, document, "/data/validation");
    auto* split = new QLineEdit(this);
    split->setObjectName("validationSplit");
    split->setPlaceholderText(tr("e.g. 0.1"));
    split->setToolTip(tr("The fraction of the training data held out (0 to 1, exclusive), with a split "
                         "validation"));
    fitWidth(split, FieldWidth::Number);
    bindNumberEdit(split, document, "/data/validation_split");
    auto* shuffle = new QCheckBox(tr("reshuffle every epoch"), this);
    shuffle->setObjectName("shuffle");
    bindCheckBox(shuffle, document, "/data/shuffle");
    auto* prefetch = countSpin("prefetch", 0, tr("none"));
    bindSpinBox(prefetch, document, "/data/prefetch");
    auto* shard = new QComboBox(this);
    shard->setObjectName("shardPolicy");
    // How MultiWorkerMirrored's workers split the input (engine/include/strata/data/shard.h).
    shard->addItem(tr("AUTO (FILE when there are at least as many files as workers, else DATA)"), "AUTO");
    shard->addItem(tr("OFF (every worker reads everything: the workers train on the same examples)"), "OFF");
    shard->addItem(tr("FILE (each worker reads its own files)"), "FILE");
    shard->addItem(tr("DATA (every worker reads everything and keeps its piece of each global batch)"), "DATA");
    shard->setToolTip(tr("How the workers of a MultiWorkerMirrored job divide the input; one worker reads "
                         "everything whatever the policy"));
    bindComboBox(shard, document, "/data/shard_policy");
    auto* evaluate = new QCheckBox(tr("evaluate on the test split after training"), this);
    evaluate->setObjectName("evaluateTest");
    bindCheckBox(evaluate, document, "/data/evaluate_test");
    auto* trainLimit = countSpin("trainLimit", 0, tr("all"));
    bindSpinBox(trainLimit, document, "/data/train_limit");
    auto* testLimit = countSpin("testLimit", 0, tr("all"));
    bindSpinBox(testLimit, document, "/data/test_limit");

    auto* inputBox = new QGroupBox(tr("Input pipeline"), this);
    auto* input = makeForm(inputBox);
    input->addRow(label("data.validation"), validation);
    input->addRow(label("data.validation_split"), split);
    input->addRow(label("data.shuffle"), shuffle);
    input->addRow(label("data.prefetch"), prefetch);
    input->addRow(label("data.shard_policy"), shard);
    input->addRow(label("data.evaluate_test"), evaluate);
    input->addRow(label("data.train_limit"), trainLimit);
    input->addRow(label("data.test_limit"), testLimit);

    return inputBox;
}

QWidget* DataPage::makePathEditor(const QString& pointer, PathKind kind, const QString& placeholder)
{
    auto* box = new QWidget;
    box->setObjectName(pointer.section('/', -1));
    auto* edit = new QLineEdit(box);
    edit->setObjectName("path");
    edit->setPlaceholderText(placeholder);
    bindLineEdit(edit, m_document, pointer);
    fitWidth(box, FieldWidth::Path);
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
    auto* form = makeForm(page);
    form->setContentsMargins(0, 0, 0, 0);
    const QString base = "/data/source/";
    if (type == "fashion_mnist") {
        form->addRow(label("data.source.dir"), makePathEditor(base + "dir", PathKind::Directory,
                                                              app::fieldDefault(base + "dir", type).toString()));
    } else if (type == "mnist" || type == "cifar10") {
        form->addRow(label("data.source.dir"), makePathEditor(base + "dir", PathKind::Directory, tr("required")));
    } else if (type == "idx") {
        form->addRow(label("data.source.train_images"),
                     makePathEditor(base + "train_images", PathKind::File, tr("required")));
        form->addRow(label("data.source.train_labels"),
                     makePathEditor(base + "train_labels", PathKind::File, tr("required")));
        form->addRow(label("data.source.test_images"), makePathEditor(base + "test_images", PathKind::File, tr("optional")));
        form->addRow(label("data.source.test_labels"), makePathEditor(base + "test_labels", PathKind::File, tr("optional")));
    } else if (type == "text") {
        form->addRow(label("data.source.train"), makePathEditor(base + "train", PathKind::FileOrDirectory,
                                                                tr("label<TAB>text file, or class directories")));
        form->addRow(label("data.source.test"), makePathEditor(base + "test", PathKind::FileOrDirectory, tr("optional")));
        auto* vocab = countSpin("vocabSize", 3);
        bindSpinBox(vocab, m_document, base + "vocab_size");
        form->addRow(label("data.source.vocab_size"), vocab);
        auto* length = countSpin("maxLength", 1);
        bindSpinBox(length, m_document, base + "max_length");
        form->addRow(label("data.source.max_length"), length);
    } else if (type == "synthetic") {
        auto* task = new QComboBox;
        task->setObjectName("task");
        task->addItem(tr("classification (Gaussian clusters)"), "classification");
        task->addItem(tr("regression (learnable nonlinear target)"), "regression");
        task->addItem(tr("random regression (the seeds' np.random example)"), "random_regression");
        bindComboBox(task, m_document, base + "task");
        form->addRow(label("data.source.task"), task);
        const QList<std::pair<QString, int>> counts{{"samples", 1}, {"test_samples", 0}, {"features", 1}, {"classes", 2}};
        for (const auto& [field, minimum] : counts) {
            auto* spin = countSpin(field, minimum);
            bindSpinBox(spin, m_document, base + field);
            form->addRow(app::fieldTitle("data.source." + field) + ':', spin);
        }
        auto* noise = new QLineEdit;
        noise->setObjectName("noise");
        noise->setPlaceholderText(tr("default"));
        fitWidth(noise, FieldWidth::Number);
        bindNumberEdit(noise, m_document, base + "noise");
        form->addRow(label("data.source.noise"), noise);
    }
    return page;
}

} // namespace strata::ui
