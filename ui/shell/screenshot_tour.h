#pragma once
// `strata --screenshots DIR [--tour short|small|slurm|slurm-run|large|timeline] [--window-size WxH] [EXPERIMENT]`: opens the window on an experiment,
// shows each page and saves it as DIR/<nn>-<page>.png (the Cluster page with its nodes
// checked), launches the run and saves the live dashboard half way through (also with its
// placement map, and in a dark palette), stops it, then compares three strategies and shows
// the history. The short tour is the Cluster page and
// the dashboard only (2-cluster.png, 6-dashboard.png); the small one adds the comparison
// (7-compare.png), for a small screen. The slurm tour is the Cluster page with the experiment's
// tasks run as a Slurm job (cluster-slurm.png); slurm-run launches them as one on the Slurm
// that SLURM_CONF names and saves the dashboard while the job waits (slurm-pending.png) and
// once it runs (slurm-running.png). The large tour runs the experiment as it is (a job of many
// workers: resources/experiments/tiny-mlp-64-workers.strata.json) and saves its dashboard once it
// has ended, at the window's size, with its heatmap maximised, and at 1280x720 (15-large-job.png,
// 15-large-job-heatmap.png, 15-large-job-1280x720.png; its Timeline tab 15-large-job-2.png). The
// timeline tour launches the experiment and saves the Timeline panel once the run is under way:
// (its tab chosen shows it maximised), and again at 1280x720 (16-timeline.png,
// 16-timeline-1280x720.png). The plan tour probes the experiment on
// this machine and saves the Plan page at the window's size and at 1280x720 (17-plan.png,
// 17-plan-1280x720.png).
// scripts/screenshots.sh runs them under Xvfb for the README.

#include <QSize>
#include <QString>

namespace strata::ui {

enum class Tour { Full, Short, Small, Slurm, SlurmRun, Large, Timeline, Plan };

int takeScreenshots(const QString& directory, const QString& experiment, const QString& enginePath,
                    Tour tour = Tour::Full, QSize windowSize = QSize(1600, 1000));

} // namespace strata::ui
