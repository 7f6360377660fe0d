#pragma once
// ExperimentDocument: the experiment being edited: its JSON, its file, whether it has
// unsaved changes, the undo history, and its validation, recomputed after every change.
// The pages edit it through set()/layer operations; nothing else writes the JSON.

#include "app/experiment/validation.h"

#include <nlohmann/json.hpp>

#include <QObject>
#include <QString>
#include <QStringList>
#include <QVariant>

#include <vector>

namespace strata::app {

using Json = nlohmann::ordered_json;

class ExperimentDocument : public QObject {
    Q_OBJECT

public:
    explicit ExperimentDocument(QObject* parent = nullptr);

    const Json& json() const { return m_json; }
    // The file it was loaded from or saved to; empty for a new document.
    const QString& filePath() const { return m_filePath; }
    // Relative data paths resolve against this: the file's directory, or the directory of
    // the example it was created from.
    const QString& baseDir() const { return m_baseDir; }
    QString displayName() const;
    bool isDirty() const { return m_dirty; }

    // A new document with the default experiment (the Fashion-MNIST MLP).
    void newDocument();
    // Loads a file. On failure the document is unchanged and the message says why (the
    // file, and line and column for malformed JSON).
    bool load(const QString& path, QString* error);
    // A new, untitled document with an example's contents (relative paths keep working).
    bool newFromExample(const QString& path, QString* error);
    bool save(QString* error);
    bool saveAs(const QString& path, QString* error);

    // The value at a JSON pointer ("/training/epochs"); null when absent.
    Json value(const QString& pointer) const;
    // Undoable edits. Consecutive set() calls on the same pointer within a second merge into
    // one undo step (typing a number is one edit, not one per key).
    void set(const QString& pointer, const Json& value);
    void remove(const QString& pointer);
    // Replaces the object at `pointer` (a strategy, loss, optimizer or data source) by one of
    // another type, keeping the fields in `keep` that both types share (one undo step).
    void setType(const QString& pointer, const QString& type, const QStringList& keep = {});
    // What setType() writes: an object of `type` with the fields in `keep` that `before` has.
    static Json ofType(const Json& before, const QString& type, const QStringList& keep);
    void replace(const Json& document, const QString& label); // e.g. a Keras import
    void insertLayer(int index, const Json& layer);
    // A new layer of `type` with the fields it needs filled with usual values (Dense: 32
    // units, Conv2D: 32 filters of 3x3, Dropout: 0.5, ...).
    void insertLayer(int index, const QString& type);
    void removeLayer(int index);
    void moveLayer(int from, int to);
    int layerCount() const;

    // The same in Qt types, for editors (widgets never handle JSON).
    QVariant get(const QString& pointer) const;
    void setValue(const QString& pointer, const QVariant& value);
    // A layer's fields as written ({"type": ..., "units": ...}).
    QVariantMap layer(int index) const;
    // Sets a layer field; an invalid QVariant removes it (back to the default).
    void setLayerField(int index, const QString& field, const QVariant& value);
    // Replaces the model with a Keras model.to_json() file's model; the message says why not.
    bool importKerasModel(const QString& path, QString* error);
    // Pretty JSON of a part of the document, for read-only previews.
    QString text(const QString& pointer) const;

    bool canUndo() const { return m_position > 0; }
    bool canRedo() const { return m_position < m_history.size(); }
    QString undoLabel() const;
    QString redoLabel() const;
    void undo();
    void redo();

    const Validation& validation() const { return m_validation; }
    // The host the experiment will run on (devices for validation, replica count).
    void setHost(const HostCapabilities& host);
    const HostCapabilities& host() const { return m_host; }

    // The experiment as the engine should receive it: data paths made absolute.
    Json forLaunch() const;

    // The examples shipped with Strata (resources/experiments, next to the binary or in
    // /usr/share/strata), name -> path.
    static std::vector<std::pair<QString, QString>> examples();
    static Json defaultExperiment();

Q_SIGNALS:
    void changed();
    void dirtyChanged(bool dirty);
    void filePathChanged();
    void undoStateChanged();
    void validationChanged();

private:
    struct Edit {
        QString label;
        QString pointer; // merge key for set(); empty for other edits
        Json before, after;
        qint64 at = 0;   // ms since epoch
    };
    void apply(Edit edit, bool mergeable);
    void reset(Json document, const QString& path, const QString& baseDir);
    void setDirty(bool dirty);
    void revalidate();

    Json m_json;
    QString m_filePath;
    QString m_baseDir;
    bool m_dirty = false;
    std::vector<Edit> m_history;
    size_t m_position = 0;     // edits applied
    size_t m_savedPosition = 0;
    HostCapabilities m_host;
    Validation m_validation;
};

} // namespace strata::app
