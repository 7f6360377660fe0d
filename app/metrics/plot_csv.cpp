#include "app/metrics/plot_csv.h"

#include <QSaveFile>

#include <limits>
#include <vector>

namespace strata::app {

QByteArray csvField(const QString& text)
{
    QByteArray bytes = text.toUtf8();
    if (bytes.contains(',') || bytes.contains('"') || bytes.contains('\n') || bytes.contains('\r')) {
        bytes.replace("\"", "\"\"");
        bytes = '"' + bytes + '"';
    }
    return bytes;
}

namespace {

struct Points {
    std::vector<double> x, y;
    size_t next = 0;
};

} // namespace

bool writePlotCsv(const PlotSource& source, const QString& xName, const QString& path, QString* error)
{
    const int lines = source.lineCount();
    std::vector<Points> points(static_cast<size_t>(lines));
    QByteArray header = csvField(xName);
    for (int i = 0; i < lines; ++i) {
        header += ',' + csvField(source.lineName(i));
        Points& p = points[size_t(i)];
        source.forEachPoint(i, [&p](double x, double y) {
            p.x.push_back(x);
            p.y.push_back(y);
        });
    }

    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly | QIODevice::Text)) {
        if (error)
            *error = QObject::tr("Cannot write %1: %2").arg(path, file.errorString());
        return false;
    }
    file.write(header + '\n');
    // A merge of the lines by x; each line's points are in x order.
    QByteArray row;
    for (;;) {
        double x = std::numeric_limits<double>::infinity();
        for (const Points& p : points)
            if (p.next < p.x.size() && p.x[p.next] < x)
                x = p.x[p.next];
        if (x == std::numeric_limits<double>::infinity())
            break;
        row = QByteArray::number(x, 'g', 17);
        for (Points& p : points) {
            row += ',';
            if (p.next < p.x.size() && p.x[p.next] == x)
                row += QByteArray::number(p.y[p.next++], 'g', 9);
        }
        row += '\n';
        file.write(row);
    }
    // flush() first: Qt 6.4's commit() ignores a failed flush (a full disk).
    if (!file.flush() || !file.commit()) {
        if (error)
            *error = QObject::tr("Cannot write %1: %2").arg(path, file.errorString());
        return false;
    }
    return true;
}

} // namespace strata::app
