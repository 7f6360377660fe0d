#!/usr/bin/env bash
# The Debian packages as a newcomer gets them (packaging/README.md): builds them
# (scripts/package.sh), checks them with lintian and their binaries' debug links, installs them
# with apt into a fresh Debian 12 root (debootstrap --variant=minbase, Debian's archive as the
# only source), runs them there as an ordinary user, purges them with what they pulled in, and
# checks that nothing of Strata's is left. As root; needs Debian's archive over the network.
#   scripts/package-test.sh              build, then test
#   scripts/package-test.sh --no-build   test the packages already in build-package/
# STRATA_DEBIAN_MIRROR and STRATA_DEBIAN_SECURITY name other archive URLs. Work files and the
# full log: build-package/package-test/.
set -euo pipefail
cd "$(dirname "$0")/.."

build=1
case "${1:-}" in
  --no-build) build=0 ;;
  "") ;;
  *) echo "usage: scripts/package-test.sh [--no-build]" >&2; exit 2 ;;
esac
if [[ $(id -u) -ne 0 ]]; then
  echo "package-test: run as root (debootstrap, chroot and mounts need it)" >&2
  exit 1
fi
mirror=${STRATA_DEBIAN_MIRROR:-http://deb.debian.org/debian}
security=${STRATA_DEBIAN_SECURITY:-http://deb.debian.org/debian-security}
app_id=example.a_seed_2fd1fb05.strata

start=$SECONDS
last=$SECONDS
phase() {
  printf '== %s (previous step %ds, total %ds)\n' "$1" $((SECONDS - last)) $((SECONDS - start))
  last=$SECONDS
}
fail() {
  echo "package-test: FAIL: $*" >&2
  exit 1
}

if ((build)); then
  phase "building the packages (scripts/package.sh)"
  scripts/package.sh
else
  scripts/install-deps.sh --package
fi
shopt -s nullglob
engine_deb=(build-package/strata-engine_*.deb)
app_deb=(build-package/strata_*.deb)
ddebs=(build-package/*-dbgsym_*.ddeb)
shopt -u nullglob
((${#engine_deb[@]} == 1 && ${#app_deb[@]} == 1 && ${#ddebs[@]} == 2)) ||
  fail "expected one strata-engine and one strata .deb and two .ddeb in build-package/ (run without --no-build)"
version=$(dpkg-deb -f "${app_deb[0]}" Version)

work=build-package/package-test
rm -rf "$work"
mkdir -p "$work"
log=$work/log.txt
: >"$log"

phase "lintian (errors, warnings and infos fail; overrides: packaging/lintian/)"
lintian --display-info --fail-on error,warning,info "${engine_deb[0]}" "${app_deb[0]}" "${ddebs[@]}" ||
  fail "lintian found the issues above"

phase "stripped binaries, their debug information in the .ddeb"
for deb in "${engine_deb[0]}" "${app_deb[0]}"; do
  package=$(dpkg-deb -f "$deb" Package)
  dpkg-deb -x "$deb" "$work/$package"
  dpkg-deb -x "build-package/$package-dbgsym_${version}_$(dpkg-deb -f "$deb" Architecture).ddeb" "$work/$package-dbgsym"
  binary=$work/$package/usr/bin/$package
  sections=$(readelf --section-headers --wide "$binary")
  grep -qE '\.(symtab|debug_info) ' <<<"$sections" && fail "$package: /usr/bin/$package is not stripped"
  build_id=$(readelf --notes "$binary" | sed -n 's/.*Build ID: \([0-9a-f]*\).*/\1/p')
  debug=$work/$package-dbgsym/usr/lib/debug/.build-id/${build_id:0:2}/${build_id:2}.debug
  [[ -n "$build_id" && -f "$debug" ]] || fail "$package-dbgsym has no debug file for build id '$build_id'"
  # (readelf complains that a debug file has no program interpreter, and exits 1)
  grep -q '\.debug_info ' <<<"$(readelf --section-headers --wide "$debug" 2>/dev/null || true)" ||
    fail "$debug holds no DWARF (.debug_info): the build had no -g"
  echo "$package: /usr/bin/$package stripped; $package-dbgsym: ${debug#"$work/$package-dbgsym"}"
done

root=$(mktemp -d /tmp/strata-package-test.XXXXXX)
chmod 755 "$root" # mktemp's 0700 would keep the user (and apt's _apt) out of the root's /
cleanup() {
  local status=$?
  # Processes still running inside the root (started by this script) would hold its mounts.
  for proc in /proc/[0-9]*; do
    [[ "$(readlink "$proc/root" 2>/dev/null)" == "$root" ]] && kill -KILL "${proc#/proc/}" 2>/dev/null
  done
  for mount in dev/pts dev sys proc; do
    if mountpoint -q "$root/$mount"; then
      umount "$root/$mount" || umount --lazy "$root/$mount"
    fi
  done
  if grep -q " $root/" /proc/mounts; then
    echo "package-test: something is still mounted under $root; left in place" >&2
  else
    rm -rf --one-file-system "$root"
  fi
  if ((status != 0)); then
    echo "package-test: failed after $((SECONDS - start))s; the last lines of $log:" >&2
    tail -n 25 "$log" >&2
  fi
  exit "$status"
}
trap cleanup EXIT

in_root() {
  chroot "$root" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8 \
    DEBIAN_FRONTEND=noninteractive "$@"
}
as_user() {
  chroot --userspec=tester:tester "$root" env -i PATH=/usr/bin:/bin HOME=/home/tester LANG=C.UTF-8 "$@"
}
# What is installed, and every path outside the user's home and the pseudo file systems.
snapshot() {
  in_root dpkg-query -W -f '${Package} ${Version}\n' | sort >"$work/$1.packages"
  chroot "$root" find / -xdev \( -path /proc -o -path /sys -o -path /dev -o -path /run -o -path /tmp \
    -o -path /home \) -prune -o -print | sort >"$work/$1.files"
}

phase "debootstrap --variant=minbase bookworm ($mirror)"
debootstrap --variant=minbase bookworm "$root" "$mirror" >>"$log" 2>&1 || fail "debootstrap failed"
# As a fresh installation has them: the release, its updates and its security updates.
cat >"$root/etc/apt/sources.list" <<EOF
deb $mirror bookworm main
deb $mirror bookworm-updates main
deb $security bookworm-security main
EOF
cp /etc/resolv.conf "$root/etc/resolv.conf"
mount -t proc proc "$root/proc"
mount -o bind,ro /sys "$root/sys"
mount --bind /dev "$root/dev"
mount --bind /dev/pts "$root/dev/pts"
in_root useradd --create-home tester
# Up to date, as a fresh installation is (debootstrap takes the release's versions).
in_root apt-get update >>"$log" 2>&1 || fail "apt-get update failed in the fresh root"
in_root apt-get upgrade -y >>"$log" 2>&1 || fail "apt-get upgrade failed in the fresh root"
snapshot before

phase "apt-get install ./$(basename "${engine_deb[0]}") ./$(basename "${app_deb[0]}") (dependencies from Debian's archive)"
cp "${engine_deb[0]}" "${app_deb[0]}" "$root/tmp/"
in_root apt-get install -y "/tmp/$(basename "${engine_deb[0]}")" "/tmp/$(basename "${app_deb[0]}")" >>"$log" 2>&1 ||
  fail "apt-get install failed"
rm "$root/tmp/$(basename "${engine_deb[0]}")" "$root/tmp/$(basename "${app_deb[0]}")"
# The debug symbols, as a developer adds them (apt takes only *.deb names): they must fit the
# installed binaries' build ids.
cp "${ddebs[@]}" "$root/tmp/"
in_root dpkg -i "${ddebs[@]/#build-package/\/tmp}" >>"$log" 2>&1 || fail "dpkg -i of the -dbgsym packages failed"
rm "$root"/tmp/*.ddeb
for package in strata strata-engine; do
  build_id=$(readelf --notes "$root/usr/bin/$package" | sed -n 's/.*Build ID: \([0-9a-f]*\).*/\1/p')
  [[ -f "$root/usr/lib/debug/.build-id/${build_id:0:2}/${build_id:2}.debug" ]] ||
    fail "$package-dbgsym has no debug file for the installed /usr/bin/$package"
done
pulled=$(comm -13 "$work/before.packages" <(in_root dpkg-query -W -f '${Package} ${Version}\n' | sort) | wc -l)
echo "installed, with $pulled packages in all (dependencies and recommends)"
# (dpkg -L: "/." first, a blank line between packages)
in_root dpkg -L strata-engine strata strata-engine-dbgsym strata-dbgsym | grep -v -e '^$' -e '^/\.$' |
  sort -u >"$work/installed.files"
for path in /usr/bin/strata /usr/bin/strata-engine /usr/share/man/man1/strata.1.gz \
            /usr/share/man/man1/strata-engine.1.gz /usr/share/applications/$app_id.desktop \
            /usr/share/metainfo/$app_id.metainfo.xml /usr/share/icons/hicolor/scalable/apps/$app_id.svg \
            /usr/share/icons/hicolor/48x48/apps/$app_id.png /usr/share/doc/strata/copyright \
            /usr/share/doc/strata-engine/changelog.gz \
            /usr/share/strata/experiments/fashion-mnist-mlp.strata.json; do
  grep -qxF "$path" "$work/installed.files" || fail "$path is not in the packages"
done

phase "strata --version, strata-engine --version, strata-engine probe"
out=$(as_user strata --version) && [[ "$out" == "strata $version" ]] || fail "strata --version said '$out'"
echo "$out"
out=$(as_user strata-engine --version) && [[ "$out" == "strata-engine $version" ]] ||
  fail "strata-engine --version said '$out'"
echo "$out"
out=$(as_user strata-engine probe) && grep -qE '"type": ?"hello"' <<<"$out" ||
  fail "strata-engine probe printed no hello event: $out"
echo "probe: ${out:0:160}..."

phase "QT_QPA_PLATFORM=offscreen strata run /usr/share/strata/experiments/fashion-mnist-mlp.strata.json"
status=0
as_user env QT_QPA_PLATFORM=offscreen strata run /usr/share/strata/experiments/fashion-mnist-mlp.strata.json \
  >"$work/run.txt" 2>&1 || status=$?
tr '\r' '\n' <"$work/run.txt" | grep -E '^(Epoch|worker|Run directory)' || true
((status == 0)) || fail "strata run exited with $status ($work/run.txt)"
accuracy=$(tr '\r' '\n' <"$work/run.txt" | sed -n 's/.*completed: test loss [0-9.]*, accuracy \([0-9.]*\).*/\1/p')
[[ -n "$accuracy" ]] && awk -v a="$accuracy" 'BEGIN { exit !(a >= 0.85) }' ||
  fail "expected a completed run with test accuracy >= 0.85, got '$accuracy'"

phase "the window, offscreen: strata --screenshots --tour short (a run launched from the window)"
status=0
as_user env QT_QPA_PLATFORM=offscreen timeout 300 strata --screenshots /home/tester/shots --tour short \
  >"$work/window.txt" 2>&1 || status=$?
((status == 0)) || fail "the window's tour exited with $status: $(cat "$work/window.txt")"
if grep -qiE 'could not (load|find)|driver not loaded|error while loading|cannot open shared object' "$work/window.txt"; then
  fail "the window could not load a part of Qt: $(cat "$work/window.txt")"
fi
for shot in 2-cluster 6-dashboard; do
  [[ -s "$root/home/tester/shots/$shot.png" ]] || fail "the tour saved no $shot.png"
  cp "$root/home/tester/shots/$shot.png" "$work/"
done
echo "saved the Cluster page and the live dashboard ($work/2-cluster.png, $work/6-dashboard.png)"

# The processes still running in the root: none of Strata's may be (the run and the tour are
# over); the rest (a session bus the window's libraries started) are listed, and killed on exit.
running=$(for proc in /proc/[0-9]*; do
  [[ "$(readlink "$proc/root" 2>/dev/null)" == "$root" ]] && echo "${proc#/proc/}: $(tr '\0' ' ' <"$proc/cmdline")"
done || true)
if grep -q strata <<<"$running"; then
  fail "Strata's processes still run after their commands ended: $running"
fi
[[ -z "$running" ]] || echo "still running in the root, not Strata's: $running"

phase "apt-get purge strata strata-engine and their -dbgsym, apt-get autoremove --purge"
in_root apt-get purge -y strata strata-engine strata-dbgsym strata-engine-dbgsym >>"$log" 2>&1 ||
  fail "apt-get purge failed"
in_root apt-get autoremove --purge -y >>"$log" 2>&1 || fail "apt-get autoremove failed"
# autoremove keeps what a package of the base system recommends (apt recommends ca-certificates,
# for one): list those, check that nothing but such a recommendation holds them, and remove them.
kept=$(comm -13 <(cut -d' ' -f1 "$work/before.packages") \
  <(in_root dpkg-query -W -f '${Package}\n' | sort))
if [[ -n "$kept" ]]; then
  echo "kept by autoremove as recommended by the base system:" $kept
  held=$(comm -23 <(sort <<<"$kept") <(in_root apt-get -s autoremove -o APT::AutoRemove::RecommendsImportant=false |
    sed -n 's/^Remv \([^ :]*\).*/\1/p' | sort))
  [[ -z "$held" ]] || fail "packages the install pulled in are still held by something other than a recommendation: $held"
  in_root apt-get autoremove --purge -y -o APT::AutoRemove::RecommendsImportant=false >>"$log" 2>&1 ||
    fail "apt-get autoremove (recommends not important) failed"
fi
snapshot after

phase "nothing left"
if ! diff -u "$work/before.packages" "$work/after.packages" >"$work/packages.diff"; then
  cat "$work/packages.diff"
  fail "the installed packages differ from before the install"
fi
left=0
while IFS= read -r path; do
  [[ -e "$root$path" || -L "$root$path" ]] || continue
  # A directory another package still owns (/usr/bin, /usr/share/man/man1) stays.
  if [[ -d "$root$path" && ! -L "$root$path" ]] && in_root dpkg-query -S "$path" >/dev/null 2>&1; then
    continue
  fi
  echo "left behind: $path"
  left=1
done <"$work/installed.files"
strays=$(chroot "$root" find / -xdev \( -path /proc -o -path /sys -o -path /dev -o -path /home -o -path /tmp \) \
  -prune -o -iname '*strata*' -print)
if [[ -n "$strays" ]]; then
  echo "left behind: $strays"
  left=1
fi
((left == 0)) || fail "files of the packages are left"
# Everything else that changed outside apt's and dpkg's own state and logs: what the
# dependencies' maintainer scripts left (systemd's purge keeps /etc/machine-id, for one). Not
# Strata's (the checks above); listed for the record.
comm -3 "$work/before.files" "$work/after.files" >"$work/files.diff" || true
others=$(grep -vE '^\s*/var/(lib/(apt|dpkg)|cache/(apt|debconf|ldconfig)|log)(/|$)' "$work/files.diff" || true)
echo "none of the $(wc -l <"$work/installed.files") paths the packages installed is left, no *strata* file" \
     "outside /home and /tmp, and the package list equals the one before"
if [[ -n "$others" ]]; then
  echo "left by the dependencies' own purge (first column: gone, second: new):"
  echo "$others"
fi

phase "done"
