#!/usr/bin/env bash
# Screenshots of every page of the window (docs/screenshots/*.png, shown in the README),
# taken under Xvfb by the app itself (`strata --screenshots`) at 1600x1000, with a real run on
# the dashboard and a real comparison of three strategies; the Cluster page, the dashboard and
# Compare again at 1280x720 (*-1280x720.png); the Cluster page of a Slurm job at both sizes
# (cluster-slurm.png, cluster-slurm-1280x720.png), and, as root, a Slurm job's dashboard pending
# and running, and History's row of it (slurm-pending.png, slurm-history.png, slurm-running.png).
# Without an experiment argument, also the dashboards of a multi-worker job, of a job of 64 workers
# (15-large-job*.png), the Timeline panel (16-timeline*.png) and of a job on SSH nodes (as root only: it runs a
# temporary sshd on 127.0.0.1), whose Cluster page then replaces 2-cluster.png.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/build.sh
out=${1:-docs/screenshots}
experiment=${2:-resources/experiments/fashion-mnist-mlp-mirrored.strata.json}
# A history of its own, so that the History page shows this tour's runs only.
tour=$(mktemp -d)
sshd_pid=
cleanup() {
    [[ -n $sshd_pid ]] && kill "$sshd_pid" 2>/dev/null || true
    rm -rf "$tour"
}
trap cleanup EXIT
export STRATA_HISTORY=$tour/history.sqlite
# Nor the user's remembered window layout (QSettings).
export XDG_CONFIG_HOME=$tour/config
screen=(xvfb-run -a -s "-screen 0 1600x1000x24")
"${screen[@]}" build/ui/strata --screenshots "$out" --window-size 1600x1000 "$experiment"

# A small screen: the Cluster page (of a multi-worker job, whose cluster is used), the
# dashboard and Compare at 1280x720.
shots=$tour/small
xvfb-run -a -s "-screen 0 1280x720x24" build/ui/strata --screenshots "$shots" --tour small --window-size 1280x720 \
    resources/experiments/fashion-mnist-mlp-multi-worker.strata.json
for name in 2-cluster 6-dashboard 7-compare; do
    cp "$shots/$name.png" "$out/$name-1280x720.png"
done

# The Cluster page with the multi-worker job's tasks as a Slurm job (no run: nothing is submitted).
slurm=resources/experiments/fashion-mnist-mlp-multi-worker.strata.json
"${screen[@]}" build/ui/strata --screenshots "$tour/slurm" --tour slurm --window-size 1600x1000 "$slurm"
cp "$tour/slurm/cluster-slurm.png" "$out/cluster-slurm.png"
xvfb-run -a -s "-screen 0 1280x720x24" build/ui/strata --screenshots "$tour/slurm-small" --tour slurm \
    --window-size 1280x720 "$slurm"
cp "$tour/slurm-small/cluster-slurm.png" "$out/cluster-slurm-1280x720.png"

# A Slurm job's dashboard while it waits (another job fills the partition for a few seconds) and
# once it runs, on a real Slurm on this machine (root only: slurmd runs jobs as their users).
if [[ $(id -u) -eq 0 ]]; then
    coproc sandbox { build/tests/app/strata-slurm-sandbox 3; }
    read -r conf <&"${sandbox[0]}"
    export SLURM_CONF=${conf#SLURM_CONF=}
    sbatch -N3 -n6 --output=/dev/null --wrap "sleep 12" >/dev/null
    "${screen[@]}" build/ui/strata --screenshots "$tour/slurm-run" --tour slurm-run --window-size 1600x1000 "$slurm"
    cp "$tour/slurm-run/slurm-pending.png" "$tour/slurm-run/slurm-history.png" "$tour/slurm-run/slurm-running.png" "$out/"
    exec {sandbox[1]}>&-
    wait "$sandbox_PID" || true
    unset SLURM_CONF
fi
[[ $# -lt 2 ]] || exit 0

# The dashboard of a multi-worker job (two local workers and an evaluator).
shots=$tour/multi-worker
"${screen[@]}" build/ui/strata --screenshots "$shots" --tour short \
    resources/experiments/fashion-mnist-mlp-multi-worker.strata.json
cp "$shots/6-dashboard.png" "$out/9-multi-worker.png"
cp "$shots/6-dashboard-map.png" "$out/11-placement-map.png"

# The dashboard of a ParameterServer job (a coordinator, two workers, two ps tasks): its
# placement map, the workers' staleness and the ps tasks' traffic.
shots=$tour/parameter-server
"${screen[@]}" build/ui/strata --screenshots "$shots" --tour short \
    resources/experiments/fashion-mnist-mlp-parameter-server.strata.json
cp "$shots/6-dashboard-map.png" "$out/12-parameter-server-map.png"
cp "$shots/6-dashboard-2.png" "$out/13-parameter-server-staleness.png"
cp "$shots/6-dashboard-3.png" "$out/14-parameter-server-traffic.png"

# The dashboard of a job of 64 workers on this machine (MultiWorkerMirrored, a tiny model; about
# two minutes on two cores): every per-worker plot a band with the slowest workers named, and the
# heatmap of each worker's time per step (also maximised); at 1600x1000 and again at 1280x720; its
# placement map (hosts and tasks alike grouped) in its tab and whole.
shots=$tour/large
"${screen[@]}" build/ui/strata --screenshots "$shots" --tour large resources/experiments/tiny-mlp-64-workers.strata.json
cp "$shots/15-large-job.png" "$shots/15-large-job-heatmap.png" "$shots/15-large-job-1280x720.png" \
    "$shots/15-large-job-1.png" "$shots/15-large-job-map.png" "$out/"
cp "$shots/15-large-job-2.png" "$out/16-timeline-64-workers.png"

# The Timeline panel of a MultiWorkerMirrored job under way (two workers and an evaluator): each
# task's last steps on the job's clock, at 1600x1000 and 1280x720.
shots=$tour/timeline
"${screen[@]}" build/ui/strata --screenshots "$shots" --tour timeline \
    resources/experiments/fashion-mnist-mlp-multi-worker.strata.json
cp "$shots/16-timeline.png" "$shots/16-timeline-1280x720.png" "$out/"

# The Plan page from a real probe of the multi-worker MLP on this machine (its compute, an all-reduce
# sweep between two processes, the ParameterServer round trip): at 1600x1000 and at 1280x720.
shots=$tour/plan
"${screen[@]}" build/ui/strata --screenshots "$shots" --tour plan \
    resources/experiments/fashion-mnist-mlp-multi-worker.strata.json
cp "$shots/17-plan.png" "$shots/17-plan-1280x720.png" "$out/"

# The same job on two SSH nodes: a temporary sshd on 127.0.0.1 with its own host key and
# config (as tests/app/ssh_fixture.h runs it), and a temporary HOME whose known_hosts trusts it
# and whose key it authorizes. Its Cluster page (nodes checked) replaces 2-cluster.png.
if [[ $(id -u) -ne 0 || ! -x /usr/sbin/sshd ]]; then
    echo "screenshots: no SSH screenshots (they need root and Debian's openssh-server)" >&2
    exit 0
fi
ssh=$tour/ssh
home=$tour/home
mkdir -p "$ssh" "$home/.ssh" "$tour/work" /run/sshd
ssh-keygen -q -t ed25519 -N '' -C strata-tour-host -f "$ssh/host_ed25519"
ssh-keygen -q -t ed25519 -N '' -C strata-tour-client -f "$home/.ssh/id_ed25519"
cp "$home/.ssh/id_ed25519.pub" "$ssh/authorized_keys"
port=22022
while (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; do port=$((port + 1)); done
cat >"$ssh/sshd_config" <<CONFIG
Port $port
ListenAddress 127.0.0.1
HostKey $ssh/host_ed25519
PidFile $ssh/sshd.pid
AuthorizedKeysFile $ssh/authorized_keys
PasswordAuthentication no
KbdInteractiveAuthentication no
PubkeyAuthentication yes
PermitRootLogin prohibit-password
UsePAM no
StrictModes no
UseDNS no
CONFIG
/usr/sbin/sshd -f "$ssh/sshd_config" -E "$ssh/sshd.log"
for _ in $(seq 50); do [[ -s $ssh/sshd.pid ]] && break; sleep 0.1; done
sshd_pid=$(cat "$ssh/sshd.pid")
echo "[127.0.0.1]:$port $(cut -d' ' -f1,2 "$ssh/host_ed25519.pub")" >"$home/.ssh/known_hosts"
engine=$PWD/build/engine/strata-engine
node() {
    echo "{\"name\": \"$1\", \"host\": \"127.0.0.1\", \"ssh_port\": $port, \"auth\": \"key\",
        \"key_file\": \"$home/.ssh/id_ed25519\", \"engine\": \"$engine\", \"work_dir\": \"$tour/work/$1\"}"
}
cat >"$tour/remote.strata.json" <<EXPERIMENT
{
  "strata": 1,
  "name": "fashion-mnist-mlp-ssh",
  "description": "The default MLP under MultiWorkerMirroredStrategy on two nodes reached over SSH, a worker on each and an evaluator beside the first.",
  "seed": 42,
  "strategy": {"type": "MultiWorkerMirrored", "timeout_seconds": 10},
  "cluster": {
    "nodes": [$(node node-a), $(node node-b)],
    "tasks": [
      {"type": "worker", "node": "node-a"},
      {"type": "worker", "node": "node-b"},
      {"type": "evaluator", "node": "node-a"}
    ],
    "stop_unattended_seconds": 600
  },
  "model": {"input_shape": [28, 28],
            "layers": [{"type": "Flatten"}, {"type": "Dense", "units": 128, "activation": "relu"}, {"type": "Dense", "units": 10}]},
  "data": {"source": {"type": "fashion_mnist"}, "validation": "test", "shard_policy": "AUTO"},
  "training": {"epochs": 5, "batch_size": 32,
               "loss": {"type": "sparse_categorical_crossentropy", "from_logits": true},
               "metrics": ["accuracy"], "optimizer": {"type": "adam", "learning_rate": 0.001},
               "checkpoint": {"every_epochs": 1}}
}
EXPERIMENT
shots=$tour/remote
HOME=$home "${screen[@]}" build/ui/strata --screenshots "$shots" --tour short "$tour/remote.strata.json"
cp "$shots/2-cluster.png" "$out/2-cluster.png"
cp "$shots/6-dashboard.png" "$out/10-remote.png"
