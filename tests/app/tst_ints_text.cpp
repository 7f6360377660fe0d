// The integer fields' text forms (app/experiment/ints_text): what the layer editor and the
// input shape editor show for a value and write for a text, in each form, and the text they
// refuse; shown text reads back as the same value.

#include "app/experiment/ints_text.h"
#include "app/experiment/json_variant.h"

#include <QtTest>

#include <nlohmann/json.hpp>

using strata::app::IntsForm;
using Json = nlohmann::ordered_json;

Q_DECLARE_METATYPE(strata::app::IntsForm)

class TestIntsText : public QObject {
    Q_OBJECT

private slots:
    void parses_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<IntsForm>("form");
        QTest::addColumn<QString>("json"); // the value written; "absent": the field removed; "refused"
        QTest::newRow("list") << "28, 28, 1" << IntsForm::List << "[28, 28, 1]";
        QTest::newRow("list of one") << "784" << IntsForm::List << "[784]";
        QTest::newRow("list with -1") << "-1, 8" << IntsForm::List << "[-1, 8]";
        QTest::newRow("list, no spaces, trailing comma") << "7,4," << IntsForm::List << "[7, 4]";
        QTest::newRow("list in Python's parentheses") << "(7, 4)" << IntsForm::List << "[7, 4]";
        QTest::newRow("empty: removed") << "  " << IntsForm::List << "absent";
        QTest::newRow("list with a word") << "7, x" << IntsForm::List << "refused";
        QTest::newRow("list with None") << "None, 4" << IntsForm::List << "refused";
        QTest::newRow("int") << "3" << IntsForm::IntOrPair << "3";
        QTest::newRow("pair") << "3, 5" << IntsForm::IntOrPair << "[3, 5]";
        QTest::newRow("three for a pair") << "3, 5, 7" << IntsForm::IntOrPair << "refused";
        QTest::newRow("noise shape") << "None, 1, 64" << IntsForm::DimList << "[null, 1, 64]";
        QTest::newRow("noise shape, null and brackets") << "[null, 1, NONE]" << IntsForm::DimList
                                                        << "[null, 1, null]";
        QTest::newRow("noise shape, a word") << "batch, 1" << IntsForm::DimList << "refused";
        QTest::newRow("padding n") << "2" << IntsForm::Padding2D << "2";
        QTest::newRow("padding h, w") << "1, 2" << IntsForm::Padding2D << "[1, 2]";
        QTest::newRow("padding t, b, l, r") << "0, 2, 3, 1" << IntsForm::Padding2D << "[[0, 2], [3, 1]]";
        QTest::newRow("padding as Python writes it") << "((0, 2), (3, 1))" << IntsForm::Padding2D
                                                     << "[[0, 2], [3, 1]]";
        QTest::newRow("padding of three") << "1, 2, 3" << IntsForm::Padding2D << "refused";
    }

    void parses()
    {
        QFETCH(QString, text);
        QFETCH(IntsForm, form);
        QFETCH(QString, json);
        const auto value = strata::app::parseInts(text, form);
        if (json == "refused") {
            QVERIFY(!value);
            return;
        }
        QVERIFY(value);
        if (json == "absent") {
            QVERIFY(!value->isValid());
            return;
        }
        QCOMPARE(strata::app::fromVariant(*value), Json::parse(json.toStdString()));
        // The editor shows the value as text that reads back as the same value.
        const QString shown = strata::app::intsText(*value);
        QCOMPARE(strata::app::fromVariant(*strata::app::parseInts(shown, form)), Json::parse(json.toStdString()));
    }

    void showsDocumentValues()
    {
        using strata::app::intsText;
        using strata::app::toVariant;
        QCOMPARE(intsText(toVariant(Json::parse("[28, 28, 1]"))), QString("28, 28, 1"));
        QCOMPARE(intsText(toVariant(Json::parse("3"))), QString("3"));
        QCOMPARE(intsText(toVariant(Json::parse("[null, 1, 64]"))), QString("None, 1, 64"));
        QCOMPARE(intsText(toVariant(Json::parse("[[1, 1], [2, 0]]"))), QString("1, 1, 2, 0"));
        QCOMPARE(intsText(QVariant()), QString());
    }
};

QTEST_GUILESS_MAIN(TestIntsText)
#include "tst_ints_text.moc"
