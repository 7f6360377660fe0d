#!/usr/bin/env bash
# Builds Strata's Debian packages into build-package/ (packaging/README.md):
#   strata-engine_<version>_<arch>.deb, strata_<version>_<arch>.deb, and a -dbgsym .ddeb of each.
# A build directory of its own: no CUDA backend (the toolkit under /usr/local/cuda is no Debian
# package, so packages linking it would not install from Debian's archive), no tests or
# benchmarks, Release plus Debian's hardening flags and -g (the debug information goes into
# the .ddeb files; the .deb binaries are stripped). Extra arguments go to the CMake configure step.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh --package
jobs=${STRATA_JOBS:-$(nproc)}

# Debian's build flags: -g, -fstack-protector-strong, -D_FORTIFY_SOURCE=2, relro, and with
# hardening=+all also bindnow and -fcf-protection; file paths relative to the checkout. The
# Release flags come after them, so the optimisation level stays the project's (-O3).
export DEB_BUILD_MAINT_OPTIONS=hardening=+all
cppflags=$(dpkg-buildflags --get CPPFLAGS)
cmake -S . -B build-package -G Ninja -DCMAKE_BUILD_TYPE=Release -DSTRATA_CUDA=OFF \
      -DSTRATA_BUILD_TESTS=OFF -DSTRATA_BUILD_BENCH=OFF \
      "-DCMAKE_C_FLAGS=$(dpkg-buildflags --get CFLAGS) $cppflags" \
      "-DCMAKE_CXX_FLAGS=$(dpkg-buildflags --get CXXFLAGS) $cppflags" \
      "-DCMAKE_EXE_LINKER_FLAGS=$(dpkg-buildflags --get LDFLAGS)" "$@" >/dev/null
cmake --build build-package -j "$jobs"
rm -f build-package/*.deb build-package/*.ddeb
(cd build-package && cpack)
