// "Compare strategies": the panel offers every strategy that runs here, the multi-process
// ones with their workers, and its variants are what app::sweepVariant makes of the choices
// (ParameterServer: a coordinator, the workers and one ps task on this machine).

#include "ui/compare/sweep_panel.h"

#include <QCheckBox>
#include <QSpinBox>
#include <QTest>

using namespace strata;

class TestSweepPanel : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void offersParameterServerBesideMultiWorkerMirrored()
    {
        ui::SweepPanel panel;
        panel.setHostCpus(2);
        for (const char* type : {"OneDevice", "Mirrored", "CentralStorage", "MultiWorkerMirrored", "ParameterServer"})
            QVERIFY2(panel.findChild<QCheckBox*>(QStringLiteral("sweep%1").arg(type)), type);
        QVERIFY(!panel.findChild<QCheckBox*>("sweepTPU"));
        auto* workers = panel.findChild<QSpinBox*>("sweepParameterServerReplicas");
        QVERIFY(workers);
        QCOMPARE(workers->suffix(), QString(" workers"));
        QCOMPARE(workers->value(), 2); // not the host's cores: processes, not devices

        for (const char* type : {"OneDevice", "Mirrored", "CentralStorage"})
            panel.choose(type, false);
        panel.choose("ParameterServer", true, 3);
        panel.choose("MultiWorkerMirrored", true, 2);
        const QList<app::SweepVariant> variants = panel.variants();
        QCOMPARE(variants.size(), 2);
        QCOMPARE(variants[0].label, QString("MultiWorkerMirrored 2 workers"));
        QCOMPARE(variants[1].label, QString("ParameterServer 3 workers"));
        QVERIFY(variants[1].cluster == app::sweepVariant("ParameterServer", 3, 2).cluster);
    }
};

QTEST_MAIN(TestSweepPanel)
#include "tst_sweep_panel.moc"
