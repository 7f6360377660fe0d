#include "app/metrics/natural_order.h"

namespace strata::app {

namespace {
// The run of digits of `s` from `i` on, without its leading zeros; `i` past its end.
QStringView digitsAt(QStringView s, qsizetype& i)
{
    qsizetype begin = i;
    while (i < s.size() && s[i].isDigit())
        ++i;
    while (begin < i - 1 && s[begin] == QLatin1Char('0'))
        ++begin;
    return s.mid(begin, i - begin);
}
} // namespace

int naturalCompare(QStringView a, QStringView b)
{
    qsizetype i = 0, j = 0;
    while (i < a.size() && j < b.size()) {
        if (a[i].isDigit() && b[j].isDigit()) {
            const QStringView x = digitsAt(a, i), y = digitsAt(b, j);
            if (x.size() != y.size()) // no leading zeros: the longer is the larger
                return x.size() < y.size() ? -1 : 1;
            if (const int c = x.compare(y); c != 0)
                return c;
            continue;
        }
        const QChar x = a[i].toCaseFolded(), y = b[j].toCaseFolded();
        if (x != y)
            return x < y ? -1 : 1;
        ++i;
        ++j;
    }
    if (i < a.size() || j < b.size())
        return i < a.size() ? 1 : -1; // a prefix comes first
    return a.compare(b);
}

} // namespace strata::app
