#!/usr/bin/env bash
# The built app driven as a user drives it: a real X server (Xvfb at 1600x1000) and real input
# (xdotool's XTEST mouse and keys; Qt ignores the synthetic events `xdotool --window` sends).
# It launches a short run with Ctrl+R and waits for the run to finish, then:
#   - right-clicks the Loss plot and checks that a menu opened there (a new override-redirect
#     window of strata's whose corner is at the click), screenshots it, and closes it with Escape;
#   - hovers the plot and checks that its toolbar appeared in the plot's top right corner (the
#     pixels there change), and that it went when the mouse left (the pixels are as before).
#   tests/ui/xdotool_dashboard.sh [STRATA [ENGINE [OUTDIR]]]
# Defaults: build/ui/strata, build/engine/strata-engine, build/tests/ui/xdotool_dashboard (the
# screenshots; on failure also the screen then and the app's output). CTest runs it on the
# build's binaries (tests/ui/CMakeLists.txt). Exits 77 (CTest: skipped) when Xvfb, xdotool,
# x11-utils or ImageMagick are missing. Everything it starts is ended on exit, failures
# included; nothing of the user's (history, settings, run directories) is read or written.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
strata=${1:-$root/build/ui/strata}
engine=${2:-$root/build/engine/strata-engine}
out=${3:-$root/build/tests/ui/xdotool_dashboard}
experiment=$here/dashboard_short.strata.json

# ImageMagick's own tools: another `convert` may come first on PATH.
magick() { if [[ -x /usr/bin/$1 ]]; then echo "/usr/bin/$1"; else command -v "$1" || true; fi; }
import=$(magick import) convert=$(magick convert) compare=$(magick compare)
for tool in Xvfb xdotool xwininfo "$import" "$convert" "$compare"; do
    if [[ -z $tool ]] || ! command -v "$tool" >/dev/null; then
        echo "xdotool_dashboard: SKIPPED: ${tool:-ImageMagick (import, convert, compare)} not found" \
             "(scripts/install-deps.sh installs xvfb, xdotool, x11-utils and imagemagick)"
        exit 77
    fi
done
for binary in "$strata" "$engine"; do
    [[ -x $binary ]] || { echo "xdotool_dashboard: $binary is not built (cmake --build build)" >&2; exit 1; }
done

mkdir -p "$out"
rm -f "$out"/*.png "$out"/strata.log
work=$(mktemp -d)
step="starting"
xvfb_pid= app_pid= display=

# A run's engines are detached from the window (a job outlives its window by design): they are
# found by their run directory, under this test's temporary directory, in their command lines.
engines() {
    local p
    for p in /proc/[0-9]*; do
        { tr '\0' ' ' <"$p/cmdline" | grep -qF -- "$work/"; } 2>/dev/null && echo "${p#/proc/}"
    done
    return 0
}
cleanup() {
    local status=$?
    set +e
    trap - EXIT
    if ((status != 0 && status != 77)); then
        echo "xdotool_dashboard: FAILED while $step" >&2
        if [[ -n $display ]] && DISPLAY=:$display "$import" -window root "$out/failure.png" 2>/dev/null; then
            echo "xdotool_dashboard: the screen then: $out/failure.png" >&2
        fi
        if [[ -s $work/strata.log ]]; then
            cp "$work/strata.log" "$out/strata.log"
            echo "xdotool_dashboard: the app's output (last lines; all of it in $out/strata.log):" >&2
            tail -n 20 "$work/strata.log" >&2
        fi
    fi
    [[ -n $app_pid ]] && kill -KILL "$app_pid" 2>/dev/null
    local pids
    pids=$(engines)
    [[ -n $pids ]] && kill -KILL $pids 2>/dev/null
    [[ -n $app_pid ]] && wait "$app_pid" 2>/dev/null
    [[ -n $xvfb_pid ]] && kill "$xvfb_pid" 2>/dev/null && wait "$xvfb_pid" 2>/dev/null
    rm -rf "$work"
    exit "$status"
}
trap cleanup EXIT
trap 'exit 143' TERM INT HUP # CTest's timeout, a Ctrl+C: still clean up
fail() { echo "xdotool_dashboard: $*" >&2; exit 1; }

# Polls `condition...` every 0.1 s for up to `seconds`; fails naming what it waited for.
wait_for() {
    local what=$1 seconds=$2
    shift 2
    local deadline=$((SECONDS + seconds))
    until "$@"; do
        ((SECONDS < deadline)) || fail "gave up after ${seconds} s waiting for $what"
        sleep 0.1
    done
}

step="starting Xvfb"
# -displayfd: Xvfb takes a free display and writes its number once it accepts connections.
Xvfb -displayfd 3 -screen 0 1600x1000x24 -nolisten tcp 3>"$work/display" 2>"$work/xvfb.log" &
xvfb_pid=$!
wait_for "Xvfb to accept connections" 10 grep -qs '^[0-9]' "$work/display"
display=$(head -n 1 "$work/display")
export DISPLAY=:$display

step="starting strata on $experiment"
# A home of its own: no history, settings, keyring or run directory of the user's.
export HOME=$work/home XDG_CONFIG_HOME=$work/config XDG_DATA_HOME=$work/data XDG_CACHE_HOME=$work/cache
export XDG_RUNTIME_DIR=$work/runtime STRATA_HISTORY=$work/history.sqlite STRATA_ENGINE=$engine
export QT_QPA_PLATFORM=xcb NO_AT_BRIDGE=1
unset SESSION_MANAGER DBUS_SESSION_BUS_ADDRESS
mkdir -p "$HOME" "$XDG_RUNTIME_DIR" && chmod 700 "$XDG_RUNTIME_DIR"
"$strata" "$experiment" >"$work/strata.log" 2>&1 &
app_pid=$!
window=
main_window() {
    window=$(xdotool search --onlyvisible --pid "$app_pid" --name ' - Strata$' 2>/dev/null | head -n 1)
    [[ -n $window ]]
}
wait_for "the main window to show" 20 main_window

step="placing and focusing the window"
# No window manager: the window takes the whole screen, from its origin.
# (--sync waits for the X server to confirm, bounded: it would wait forever for a window gone.)
timeout 10 xdotool windowmove --sync "$window" 0 0 windowsize --sync "$window" 1600 1000
timeout 10 xdotool windowfocus --sync "$window"
eval "$(xdotool getwindowgeometry --shell "$window")" # X Y WIDTH HEIGHT
echo "xdotool_dashboard: window $window at $X,$Y, ${WIDTH}x$HEIGHT on display :$display"
# Where things are on the Dashboard page (shown on launch), as fractions of the window: the Loss
# plot spans about 0.10..0.54 of its width and 0.20..0.48 of its height (under the header and
# figures; docs/dashboard.md), its toolbar in its top right corner. `corner` (0.40..0.54 by
# 0.19..0.25) holds the toolbar and neither the crosshair nor the values' tooltip of a hover at
# `hover`. A changed layout fails here naming the point clicked, with a screenshot.
at() { echo $((X + WIDTH * $1 / 100)) $((Y + HEIGHT * $2 / 100)); }
read -r menu_x menu_y < <(at 30 33)    # in the loss plot's axes
read -r hover_x hover_y < <(at 20 38)  # in them too, left and below the toolbar
read -r away_x away_y < <(at 3 80)     # on the page list, below its items
corner="$((WIDTH * 14 / 100))x$((HEIGHT * 6 / 100))+$((X + WIDTH * 40 / 100))+$((Y + HEIGHT * 19 / 100))"

step="launching with Ctrl+R"
xdotool key ctrl+r
events() { find "$XDG_DATA_HOME" -name 'events-*.jsonl' -size +0 2>/dev/null | grep -q .; }
wait_for "a run directory with events (Ctrl+R launched nothing?)" 15 events

step="waiting for the run to finish"
finished() { find "$XDG_DATA_HOME" -name 'events-*.jsonl' -exec grep -qs '"type": *"done"' {} + ; }
wait_for "the run's done event" 30 finished

# The pixels of the Loss plot's top right corner, in $work/$1.png.
grab_corner() { "$import" -window root -crop "$corner" +repage "$work/$1.png"; }
# How many pixels differ between two grabs.
differing() { "$compare" -metric AE "$work/$1.png" "$work/$2.png" null: 2>&1 | cut -d' ' -f1 || true; }
settled() {
    grab_corner previous && sleep 0.3 && grab_corner corner-before
    [[ $(differing previous corner-before) == 0 ]]
}

step="waiting for the dashboard to settle after the run (mouse away from the plots)"
xdotool mousemove "$away_x" "$away_y"
wait_for "the Loss plot's corner to stop changing" 10 settled

step="right-clicking the Loss plot at $menu_x,$menu_y"
visible() { xdotool search --onlyvisible --pid "$app_pid" 2>/dev/null | sort; }
visible >"$work/windows-before"
# A pixel beside first, as a hand arrives: the plot sees the mouse enter, then the press.
xdotool mousemove $((menu_x - 1)) $((menu_y - 1)) mousemove "$menu_x" "$menu_y"
xdotool click 3
menu=
# A new window of strata's, override-redirect (a popup), with its corner where the click was.
menu_open() {
    local w info
    for w in $(visible | comm -13 "$work/windows-before" -); do
        info=$(xwininfo -id "$w")
        grep -q 'Override Redirect State: yes' <<<"$info" || continue
        grep -q "Absolute upper-left X:  $menu_x\$" <<<"$info" || continue
        grep -q "Absolute upper-left Y:  $menu_y\$" <<<"$info" || continue
        menu=$w
        menu_geometry=$(awk '/Width:/ {w = $2} /Height:/ {h = $2} END {print w "x" h}' <<<"$info")
        return 0
    done
    return 1
}
wait_for "the plot's context menu to open at the click" 5 menu_open
echo "xdotool_dashboard: the menu opened: window $menu, $menu_geometry at $menu_x,$menu_y"
# Fit, log y, maximise, the x axis, export image, export data: six rows at least.
((${menu_geometry#*x} >= 6 * 18)) || fail "the menu is only $menu_geometry: not the plot's menu"
"$import" -window root "$out/dashboard-menu.png"

step="closing the menu with Escape"
xdotool key Escape
menu_closed() { ! visible | grep -qx "$menu"; }
wait_for "the menu to close" 5 menu_closed

step="moving the mouse away from the plot"
xdotool mousemove "$away_x" "$away_y"
wait_for "the Loss plot's corner to stop changing" 10 settled

step="hovering the Loss plot at $hover_x,$hover_y"
xdotool mousemove $((hover_x - 1)) $((hover_y - 1)) mousemove "$hover_x" "$hover_y"
toolbar_shown() { grab_corner corner-hover && (($(differing corner-before corner-hover) > 500)); }
wait_for "the plot's toolbar to show in its top right corner ($corner)" 5 toolbar_shown
"$import" -window root "$out/dashboard-toolbar.png"
echo "xdotool_dashboard: the toolbar showed: $(differing corner-before corner-hover) pixels changed in $corner"

step="leaving the Loss plot"
xdotool mousemove "$away_x" "$away_y"
toolbar_gone() { grab_corner corner-after && [[ $(differing corner-before corner-after) == 0 ]]; }
wait_for "the plot's toolbar to go when the mouse left" 5 toolbar_gone

step="done"
echo "xdotool_dashboard: passed; screenshots in $out"
