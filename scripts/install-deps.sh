#!/usr/bin/env bash
# Installs the Debian 12 packages Strata builds, tests and runs with.
# Idempotent: when everything is present it only checks and returns (well under a second).
#   scripts/install-deps.sh          build + test + run dependencies
#   scripts/install-deps.sh --bench  also the reference framework for bench/ (python3-torch)
#   scripts/install-deps.sh --package  also what Debian packages are made and checked with
#                                      (scripts/package.sh, scripts/package-test.sh)
set -euo pipefail

packages=(
  build-essential cmake ninja-build pkg-config ccache
  qt6-base-dev libqt6sql6-sqlite qt6-qpa-plugins
  libqcustomplot-dev libqcustomplot2.1-qt6 qt6-svg-dev
  libdnnl-dev nlohmann-json3-dev libsimdjson-dev zlib1g-dev
  libgloo-dev libssh-dev libzmq3-dev cppzmq-dev libsodium-dev qtkeychain-qt6-dev
  # Keras' model.weights.h5 (libhdf5), and h5py for the tests that read it as Keras does
  libhdf5-dev python3-h5py
  # TensorBoard event files: TensorFlow's messages (protobuf 3.21, protoc); the tests decode
  # them with python3-protobuf and check the records' CRC-32C with crcmod
  libprotobuf-dev protobuf-compiler python3-protobuf python3-crcmod
  dataset-fashion-mnist
  xvfb xauth
  # tests/ui/xdotool_dashboard.sh: the built window driven with a real mouse and keys under Xvfb
  # (xdotool; xwininfo from x11-utils finds its menus) and screenshots (ImageMagick's import)
  xdotool x11-utils imagemagick
  # the tests' real SSH servers (sshd, ssh-keygen, ssh-agent) and hosts (network namespaces)
  openssh-server openssh-client iproute2
  # the tests' real Slurm cluster (tests/app/slurm_fixture.h: munged, slurmctld, slurmd and the
  # client commands on this machine)
  slurmctld slurmd slurm-client munge
  # the fuzz targets (scripts/fuzz.sh): clang with libFuzzer, ASan and UBSan, its OpenMP, and
  # llvm-symbolizer for the sanitizers' stack traces
  clang-14 libclang-rt-14-dev libomp-14-dev llvm-14
  # the tests that validate the AppStream metadata and the desktop entry (about 5 MB)
  appstream desktop-file-utils
)
for flag in "$@"; do
  case "$flag" in
    --bench)
      # OpenBLAS explicitly: python3-torch only depends on some libblas.so.3, which without
      # recommends is netlib's reference BLAS, several times slower (not a fair reference).
      packages+=(python3-torch python3-numpy libopenblas0-pthread) ;;
    --package)
      # man pages from --help, PNG icons from the SVG, CPack's file type and dependency
      # probes, lintian, and a fresh Debian root to install into
      packages+=(help2man librsvg2-bin file dpkg-dev lintian debootstrap) ;;
    *)
      echo "install-deps: unknown option $flag (--bench, --package)" >&2
      exit 2 ;;
  esac
done

missing=()
for p in "${packages[@]}"; do
  status=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
  [[ "$status" == "install ok installed" ]] || missing+=("$p")
done

if ((${#missing[@]} == 0)); then
  exit 0
fi

if [[ $(id -u) -ne 0 ]]; then
  echo "install-deps: missing packages: ${missing[*]}" >&2
  echo "install-deps: run as root (or install them with sudo apt-get install)" >&2
  exit 1
fi

echo "install-deps: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
