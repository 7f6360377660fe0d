#!/usr/bin/env bash
# Verifies the engine, its CUDA backend included, on a GPU machine that has CUDA, a compiler,
# CMake and ninja but no Qt and no Debian package archive (README: "Verifying the GPU backend").
#
#   scripts/gpu-check.sh prepare            here, on Debian 12 with its archive: downloads the
#       Debian packages the engine-only build and its tests need and a bare GPU machine lacks,
#       into .gpu-deps/ (git-ignored; it travels with the checkout, about 57 MB with
#       Fashion-MNIST: the checkout and it stay under the device tool's 64 MiB).
#   scripts/gpu-check.sh run [REPORT_DIR]   there, from the checkout's root: unpacks them into
#       build-gpu/deps/, configures build-gpu/ with -DSTRATA_ENGINE_ONLY=ON, builds, runs the
#       engine tests, then those labelled `gpu` one by one (verbose), then the GPU benchmark, and
#       writes REPORT_DIR/gpu-report.md with the raw logs beside it. REPORT_DIR: $OUT when set,
#       else build-gpu/report. Exits nonzero when the build, a test or the benchmark fails (the
#       report is written all the same).
#
# The GPU benchmark is, when present, `bench/gpu_bench.sh BUILD_DIR REPORT_DIR`, else the
# executable build-gpu/bench/strata-bench-gpu (run with --json REPORT_DIR/gpu-bench.json); it
# runs only where nvidia-smi sees a GPU. Environment: STRATA_CUDA_ARCHS (CMake's
# CMAKE_CUDA_ARCHITECTURES, default 90: Hopper), STRATA_JOBS (default: every core).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
depsdir=$root/.gpu-deps

# What a bare GPU machine lacks, by what needs it. Not carried: libc6, libstdc++6, libgcc-s1 and
# libgomp1, which come with the compiler; prepare checks that every library the carried ones
# load is carried or one of those. Nor libhdf5 (Keras weights files): with libcurl and its TLS
# libraries it is about 10 MB more than the 64 MiB the checkout may carry; the engine-only
# build goes without it (CMakeLists.txt) and the Keras weights tests are left out there.
packages=(
    # oneDNN (the CPU GEMM) and the OpenCL loader libdnnl links
    libdnnl-dev libdnnl2 ocl-icd-libopencl1
    # Gloo (multi-worker collectives) and what libgloo links: hiredis, ibverbs, netlink
    libgloo-dev libgloo0 libhiredis0.14 libibverbs1 libnl-3-200 libnl-route-3-200
    nlohmann-json3-dev
    # zlib1g too: zlib1g-dev's libz.so points at its libz.so.1
    zlib1g-dev zlib1g
    # The tests: Qt Core, Network and Test (headers, CMake configs, moc) and what those link
    qt6-base-dev qt6-base-dev-tools libqt6core6 libqt6network6 libqt6test6
    # qmake6: Qt6CoreTools' CMake config checks that its qmake script exists (never run)
    qmake6
    libicu72 libdouble-conversion3 libpcre2-16-0 libpcre2-8-0 libb2-1 libzstd1 libglib2.0-0
    libgssapi-krb5-2 libkrb5-3 libk5crypto3 libkrb5support0 libcom-err2 libkeyutils1
    libbrotli1 libproxy1v5
    # The published Fashion-MNIST (31 MB): the accuracy tests, on GPU and CPU alike
    dataset-fashion-mnist
)
# The sonames of libc6, libstdc++6, libgcc-s1 and libgomp1: on the GPU machine already.
base_sonames=" ld-linux-x86-64.so.2 libc.so.6 libm.so.6 libresolv.so.2 libpthread.so.0 libdl.so.2
    librt.so.1 libstdc++.so.6 libgcc_s.so.1 libgomp.so.1 "
multiarch=x86_64-linux-gnu

die() {
    echo "gpu-check: $*" >&2
    exit 1
}

# unpack DEB DIR: dpkg-deb where there is one; else Python (a .deb is an ar archive holding
# data.tar.*), which the GPU machine has.
unpack() {
    if command -v dpkg-deb >/dev/null; then
        dpkg-deb -x "$1" "$2"
        return
    fi
    python3 - "$1" "$2" <<'PY'
import io, sys, tarfile
deb, dest = sys.argv[1], sys.argv[2]
data = open(deb, "rb").read()
assert data[:8] == b"!<arch>\n", deb + ": not an ar archive"
pos = 8
while pos < len(data):
    name = data[pos:pos + 16].decode().strip().rstrip("/")
    size = int(data[pos + 48:pos + 58])
    if name.startswith("data.tar"):
        with tarfile.open(fileobj=io.BytesIO(data[pos + 60:pos + 60 + size])) as tar:
            if hasattr(tarfile, "tar_filter"):
                tar.extractall(dest, filter="tar")
            else:
                tar.extractall(dest)
        break
    pos += 60 + size + (size & 1)
else:
    sys.exit(deb + ": no data.tar member")
PY
}

# unpack_all DEBS DIR: every package of DEBS into DIR, made usable where it lies.
unpack_all() {
    local debs=$1 dir=$2 deb link
    rm -rf "$dir"
    mkdir -p "$dir"
    for deb in "$debs"/*.deb; do
        unpack "$deb" "$dir"
    done
    # Absolute symlinks (libz.so -> /lib/...) would leave the tree: point them into it.
    while IFS= read -r link; do
        ln -sfn "$dir$(readlink "$link")" "$link"
    done < <(find "$dir" -lname '/*')
    # Gloo's CMake config names its library by absolute path (/usr/lib/libgloo.so.0.5.0).
    sed -i 's|"/usr/lib/|"${_IMPORT_PREFIX}/lib/|g' "$dir"/usr/share/cmake/Gloo/GlooTargets-*.cmake
    # moc needs libpcre2-16 from this tree: a wrapper gives it the library path, so the rest of
    # the build (compiler, linker, cmake) keeps the machine's own libraries.
    local moc=$dir/usr/lib/qt6/libexec/moc
    mv "$moc" "$moc.bin"
    cat >"$moc" <<WRAPPER
#!/bin/sh
LD_LIBRARY_PATH="$(libpath "$dir")\${LD_LIBRARY_PATH:+:\$LD_LIBRARY_PATH}" exec "$moc.bin" "\$@"
WRAPPER
    chmod +x "$moc"
}

# libpath DIR: the library directories of an unpacked tree, colon-separated.
libpath() {
    echo "$1/usr/lib/$multiarch:$1/lib/$multiarch:$1/usr/lib"
}

# check_closure DIR: every library that the test executables' Qt, oneDNN, Gloo and the Qt tools
# load is in DIR or one the GPU machine has (base_sonames). Prints what is missing.
check_closure() {
    local dir=$1 queue=() seen=" " missing="" name path d
    for name in libQt6Core.so.6 libQt6Network.so.6 libQt6Test.so.6 libdnnl.so.2 libgloo.so.0; do
        queue+=("$name")
    done
    for path in "$dir"/usr/lib/qt6/libexec/*; do
        [[ $(head -c4 "$path" | od -An -c | tr -d ' ') == 177ELF ]] && queue+=("$path")
    done
    while ((${#queue[@]})); do
        name=${queue[0]}
        queue=("${queue[@]:1}")
        [[ $seen == *" $name "* ]] && continue
        seen+="$name "
        path=
        if [[ $name == /* ]]; then
            path=$name
        elif [[ $base_sonames == *" $name "* ]]; then
            continue
        else
            for d in usr/lib/$multiarch lib/$multiarch usr/lib; do
                [[ -e $dir/$d/$name ]] && path=$dir/$d/$name && break
            done
        fi
        if [[ -z $path ]]; then
            missing+=" $name"
            continue
        fi
        while read -r name; do
            queue+=("$name")
        done < <(readelf -d "$(readlink -f "$path")" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p')
    done
    echo "$missing"
}

prepare() {
    command -v apt-get >/dev/null || die "prepare needs Debian 12's apt-get (run it on the development machine)"
    local missing
    tmp=$(mktemp -d)
    trap 'rm -rf "$tmp"' EXIT
    # apt-get download needs the package lists: fetch them once where there are none.
    apt-cache show libdnnl2 >/dev/null 2>&1 || apt-get update -qq
    local apt_opts=()
    # As root, apt downloads as the _apt user, who cannot write to our private temp folder.
    [[ $(id -u) -eq 0 ]] && apt_opts+=(-o APT::Sandbox::User=root)
    (cd "$tmp" && apt-get download -qq "${apt_opts[@]}" "${packages[@]}")
    mkdir -p "$tmp/debs"
    mv "$tmp"/*.deb "$tmp/debs/"

    # Unpack as `run` will, and check that nothing the tests load is left behind.
    unpack_all "$tmp/debs" "$tmp/root"
    missing=$(check_closure "$tmp/root")
    [[ -z $missing ]] || die "libraries neither carried nor on a bare GPU machine:$missing (add their packages)"

    rm -rf "$depsdir"
    mkdir -p "$depsdir"
    mv "$tmp/debs" "$depsdir/debs"
    # MANIFEST: what is carried (run unpacks again when it changes).
    (cd "$depsdir/debs" && for deb in *.deb; do
        printf '%s %s %s\n' "$(dpkg-deb -f "$deb" Package)" "$(dpkg-deb -f "$deb" Version)" \
            "$(sha256sum "$deb" | cut -d' ' -f1)"
    done) >"$depsdir/MANIFEST"
    echo "gpu-check: $(ls "$depsdir"/debs | wc -l) packages in .gpu-deps/: $(du -sh "$depsdir" | cut -f1)" \
        "(unpacked on the GPU machine: $(du -sh "$tmp/root" | cut -f1))"
    echo "gpu-check: carry .gpu-deps with the checkout; there run: scripts/gpu-check.sh run"
}

# step NAME LOG CMD...: runs CMD with its output in LOG, records its seconds; returns its status.
declare -A seconds
step() {
    local name=$1 log=$2 start status=0
    shift 2
    echo "gpu-check: $name..." >&2
    start=$SECONDS
    "$@" >"$log" 2>&1 || status=$?
    seconds[$name]=$((SECONDS - start))
    return $status
}

run() {
    [[ -f $depsdir/MANIFEST ]] || die "no .gpu-deps/: run 'scripts/gpu-check.sh prepare' on Debian 12 first and carry .gpu-deps with the checkout"
    local report=${1:-${OUT:-$root/build-gpu/report}}
    mkdir -p "$report"
    report=$(cd "$report" && pwd)
    # A report folder used before (build-gpu/report) holds the last run's logs: gone, so that
    # this report shows and lists only what this run wrote.
    rm -f "$report"/{configure,build,tests,gpu-tests,gpu-bench}.log "$report"/gpu-bench.json \
        "$report"/gpu-report.md
    local build=$root/build-gpu
    local deps=$build/deps
    local jobs=${STRATA_JOBS:-$(nproc)}
    local archs=${STRATA_CUDA_ARCHS:-90}
    local failed=()

    if ! cmp -s "$depsdir/MANIFEST" "$deps/.manifest" 2>/dev/null; then
        echo "gpu-check: unpacking .gpu-deps into build-gpu/deps..." >&2
        unpack_all "$depsdir/debs" "$deps"
        cp "$depsdir/MANIFEST" "$deps/.manifest"
    fi
    local libs
    libs=$(libpath "$deps")

    local configured=0 built=0
    # The linker resolves what Qt's libraries link (ICU...) from the unpacked tree: -rpath-link.
    if step configure "$report/configure.log" cmake -S "$root" -B "$build" -G Ninja \
        -DCMAKE_BUILD_TYPE=Release -DSTRATA_ENGINE_ONLY=ON \
        -DCMAKE_PREFIX_PATH="$deps/usr" \
        -DCMAKE_CUDA_ARCHITECTURES="$archs" \
        -DCMAKE_EXE_LINKER_FLAGS="-Wl,-rpath-link,$libs" \
        -DCMAKE_SHARED_LINKER_FLAGS="-Wl,-rpath-link,$libs"; then
        configured=1
        if step build "$report/build.log" cmake --build "$build" -j "$jobs"; then
            built=1
        else
            failed+=("build")
        fi
    else
        failed+=("configure")
    fi

    # The tests and the benchmark load Qt, oneDNN and Gloo from the unpacked tree, and the engine
    # finds Fashion-MNIST there.
    export LD_LIBRARY_PATH="$libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
    export STRATA_DATASETS_DIR="$deps/usr/share/datasets"
    local gpu_tests=0 has_gpu=0 gpu_list="nvidia-smi not found"
    if command -v nvidia-smi >/dev/null; then
        gpu_list=$(nvidia-smi -L 2>&1) || true
        [[ $gpu_list == GPU* ]] && has_gpu=1
    fi
    if ((built)); then
        # Every engine test but the GPU ones in parallel; the GPU ones after, one at a time on the
        # one GPU, verbose.
        step tests "$report/tests.log" ctest --test-dir "$build" -LE '^gpu$' -V -j "$jobs" --no-tests=error ||
            failed+=("engine tests")
        gpu_tests=$(ctest --test-dir "$build" -N -L '^gpu$' | sed -n 's/^Total Tests: //p') || gpu_tests=0
        if ((gpu_tests)); then
            step gpu-tests "$report/gpu-tests.log" ctest --test-dir "$build" -L '^gpu$' -V ||
                failed+=("GPU tests")
        fi
    fi

    local bench="absent: this checkout has neither bench/gpu_bench.sh nor a strata-bench-gpu target"
    if ((built)); then
        if [[ -x $root/bench/gpu_bench.sh || -x $build/bench/strata-bench-gpu ]]; then
            if ((!has_gpu)); then
                bench="not run: no GPU on this machine"
            elif [[ -x $root/bench/gpu_bench.sh ]]; then
                bench="bench/gpu_bench.sh"
                step bench "$report/gpu-bench.log" "$root/bench/gpu_bench.sh" "$build" "$report" ||
                    failed+=("GPU benchmark")
            else
                bench="build-gpu/bench/strata-bench-gpu"
                step bench "$report/gpu-bench.log" "$build/bench/strata-bench-gpu" \
                    --json "$report/gpu-bench.json" || failed+=("GPU benchmark")
            fi
        fi
    else
        bench="not run: the build failed"
    fi

    write_report >"$report/gpu-report.md"
    cat "$report/gpu-report.md"
    echo "gpu-check: report in $report/gpu-report.md" >&2
    ((${#failed[@]} == 0)) || die "failed: ${failed[*]}"
}

# The ctest summary ("N% tests passed, ...") and failures of a ctest log, then the functions
# Qt Test skipped, with their reasons.
test_summary() {
    local log=$1
    grep -E '^[0-9]+% tests passed|^Total Test time' "$log" || echo "(no ctest summary: see $(basename "$log"))"
    if grep -q '^The following tests FAILED' "$log"; then
        echo
        echo "Failed:"
        echo '```'
        sed -n '/^The following tests FAILED/,$p' "$log" | sed 1d | grep -E '^\s+[0-9]+ - ' | sed 's/^\s*//' || true
        echo '```'
        echo
        echo "What the failing tests said (Qt Test's FAIL lines, at most 40):"
        echo '```'
        # A FAIL line and its indented Actual/Expected/Loc lines, which under -j carry the same
        # "N: " prefix among other tests' lines.
        awk '{
            pre = ""; body = $0
            if (match($0, /^[0-9]+: /)) { pre = substr($0, 1, RLENGTH); body = substr($0, RLENGTH + 1) }
            if (body ~ /^FAIL! +: /) { open[pre] = 1; print body; next }
            if (open[pre] && body ~ /^   /) { print body; next }
            open[pre] = 0
        }' "$log" | head -40
        echo '```'
    fi
    local skips
    skips=$(grep -E '^([0-9]+: )?SKIP +: ' "$log" | sed -E 's/^[0-9]+: //; s/^SKIP +: //' | sort -u || true)
    if [[ -n $skips ]]; then
        echo
        echo "Skipped by the tests themselves ($(wc -l <<<"$skips")):"
        echo '```'
        echo "$skips"
        echo '```'
    fi
}

write_report() {
    local cuda_found nvcc cuda
    cuda_found=$(sed -n 's/.*Strata: engine only; CUDA toolkit found: //p' "$report/configure.log" 2>/dev/null)
    nvcc=$(command -v nvcc || true)
    [[ -z $nvcc && -x /usr/local/cuda/bin/nvcc ]] && nvcc=/usr/local/cuda/bin/nvcc
    cuda=${nvcc:+$("$nvcc" --version | grep -o 'release [0-9.]*' || true) ($nvcc)}
    echo "# Strata GPU check"
    echo
    local src="unknown (no git on this machine)"
    if command -v git >/dev/null; then
        src=$(git -C "$root" describe --always --dirty 2>/dev/null) || src="not a git checkout"
    fi
    echo "$(date -u '+%Y-%m-%d %H:%M UTC') on $(uname -n); source: $src"
    echo
    echo "## Machine"
    echo
    if ((has_gpu)); then
        echo "- GPU: $(sed 's/ (UUID.*//' <<<"$gpu_list" | paste -sd';' | sed 's/;/; /g')"
        echo "- driver: $(nvidia-smi --query-gpu=driver_version --format=csv,noheader | head -1)"
    else
        echo "- GPU: **none** (nvidia-smi: $(head -1 <<<"$gpu_list"))"
    fi
    echo "- CPU: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //'), $(nproc) cores"
    echo "- CUDA: ${cuda:-none found}; CUDA toolkit found by CMake: ${cuda_found:-unknown}; CMAKE_CUDA_ARCHITECTURES=$archs"
    echo "- compiler: $(c++ --version 2>/dev/null | head -1); $(cmake --version | head -1)"
    echo
    echo "## Build"
    echo
    if ((built)); then
        echo "build-gpu/ (-DSTRATA_ENGINE_ONLY=ON) configured in ${seconds[configure]} s, built in ${seconds[build]} s."
    elif ((configured)); then
        echo "**The build failed** (after ${seconds[build]} s): see build.log. Last lines:"
        echo '```'
        tail -30 "$report/build.log"
        echo '```'
    else
        echo "**Configuring failed**: see configure.log. Last lines:"
        echo '```'
        tail -30 "$report/configure.log"
        echo '```'
    fi
    echo
    echo "## Engine tests (all but those labelled gpu, ${jobs} at a time)"
    echo
    if ((built)); then
        test_summary "$report/tests.log"
    else
        echo "Not run: no build."
    fi
    echo
    echo "## GPU tests (label gpu, one at a time)"
    echo
    if ((!built)); then
        echo "Not run: no build."
    elif ((gpu_tests == 0)); then
        echo "No test is labelled gpu in this build: no GPU test ran."
    else
        ((has_gpu)) || echo "This machine has **no GPU**: see each test's output for what it did."
        test_summary "$report/gpu-tests.log"
    fi
    echo
    echo "## GPU benchmark"
    echo
    echo "$bench"
    if [[ -f $report/gpu-bench.log ]]; then
        echo "(${seconds[bench]:-?} s), its output:"
        echo '```'
        tail -200 "$report/gpu-bench.log"
        echo '```'
    fi
    echo
    echo "## Logs beside this report"
    echo
    local f
    for f in configure.log build.log tests.log gpu-tests.log gpu-bench.log gpu-bench.json; do
        [[ -f $report/$f ]] && echo "- $f"
    done
    echo
    if ((${#failed[@]})); then
        echo "**Result: FAILED** (${failed[*]})"
    else
        echo "**Result: passed**"
    fi
}

case ${1:-} in
    prepare) prepare ;;
    run) shift; run "$@" ;;
    *)
        echo "usage: scripts/gpu-check.sh prepare | run [REPORT_DIR]" >&2
        exit 2
        ;;
esac
