#!/bin/sh
# placer installs like a Debian tool: the .deb that `cpack -G DEB` makes passes lintian with no
# error, and installs with dpkg -i in a clean Debian 12 container (localhost/placer/deb-install:
# the base image, the libraries the package depends on, man-db and bash-completion; no network,
# so every dependency must already be there), where:
#   - placer-watch.service is shipped in /usr/lib/systemd/system, not enabled, and starts the
#     installed placer watch on /etc/placer/profile.yaml;
#   - the package's Depends names the package of every library the binary links (objdump's
#     NEEDED, dpkg -S on the host), and the installed placer runs: --version, topo, plan of a
#     shipped profile, bench --print-default (the shipped study, found from /usr/bin/placer);
#   - man placer-plan renders, and every installed page renders without a groff warning; each
#     command's man page (as man renders it) lists the options its --help lists, and no others;
#   - bash-completion loads the installed completion on demand, and it completes a command
#     (placer pl -> plan), an option (placer plan --to -> --topology), a shipped profile by
#     name (placer size --profile hci -> hci-hdd hci-nvme), a profile file and a study file.
# The .deb is made in the test's scratch directory (the build tree is left as it was). The
# container is removed, and the cgroups podman leaves, by the teardown (lib/common.sh). The image
# is part of the shared setup (containers/build-images.sh, cached), not removed.
# ctest: needs=shared cost=30
set -u
T=deb_install
. "${PLACER_SOURCE_DIR:?PLACER_SOURCE_DIR not set}/tests/integration/lib/common.sh"
PLACER=${PLACER_BIN:?PLACER_BIN not set}
need_root
need_cmd podman runc debootstrap cpack lintian dpkg-deb objdump gzip
BUILD=$(cd "$(dirname "$PLACER")" && pwd)
[ -f "$BUILD/CPackConfig.cmake" ] || skip "$BUILD has no CPackConfig.cmake"
export CONTAINERS_CONF="$SRC/containers/containers.conf"
image=localhost/placer/deb-install:latest
name=$T_TAG
parent=/$T_TAG

t_begin /var/tmp
work=$T_WORK
# podman (cgroupfs) leaves the --cgroup-parent and a conmon group behind in every hierarchy
t_defer 'podman rm -f -t 0 "$name" >/dev/null 2>&1; t_remove_groups'
t0=$(date +%s)

sh "$SRC/containers/build-images.sh" --only deb-install >"$work/images.out" 2>&1 ||
  { cat "$work/images.out" >&2; fail "containers/build-images.sh --only deb-install failed"; }
say "$(tail -1 "$work/images.out")"

# --- the package --------------------------------------------------------------------------------
# cpack's install step writes BUILD/install_manifest.txt: put back what was there.
manifest=$BUILD/install_manifest.txt
[ ! -e "$manifest" ] || cp -p "$manifest" "$work/manifest.saved"
cpack -G DEB --config "$BUILD/CPackConfig.cmake" -B "$work/deb" >"$work/cpack.out" 2>&1
cprc=$?
if [ -e "$work/manifest.saved" ]; then cp -p "$work/manifest.saved" "$manifest"; else rm -f "$manifest"; fi
[ "$cprc" = 0 ] || { cat "$work/cpack.out" >&2; fail "cpack -G DEB failed"; }
rm -rf "$work/deb/_CPack_Packages"
deb=$(ls "$work"/deb/placer_*.deb 2>/dev/null | head -1)
[ -n "$deb" ] || fail "cpack made no placer_*.deb"
say "$(basename "$deb"): $(stat -c %s "$deb") bytes in $(($(date +%s) - t0)) s"

# lintian: no error (E:); every tag it prints goes to the log
lintian --fail-on error -I "$deb" >"$work/lintian.out" 2>&1
lrc=$?
grep -v '^running with root privileges' "$work/lintian.out" | sed "s/^/$T: lintian: /"
! grep -q '^E:' "$work/lintian.out" || fail "lintian reports errors"
[ "$lrc" = 0 ] || fail "lintian exit $lrc"
say "lintian: $(grep -c '^E:' "$work/lintian.out") errors, $(grep -c '^W:' "$work/lintian.out") warnings"

version=$("$PLACER" --version | sed 's/^placer //')
[ "$(dpkg-deb -f "$deb" Package)" = placer ] || fail "Package is '$(dpkg-deb -f "$deb" Package)'"
[ "$(dpkg-deb -f "$deb" Version)" = "$version" ] || fail "Version $(dpkg-deb -f "$deb" Version), placer --version says $version"
depends=$(dpkg-deb -f "$deb" Depends)
# Depends names the package of every library the binary links
for lib in $(objdump -p "$PLACER" | awk '$1 == "NEEDED" { print $2 }'); do
  path=$(ldconfig -p | awk -v l="$lib" '$1 == l && /x86-64|x86_64|=>/ { print $NF; exit }')
  [ -n "$path" ] || fail "$lib: not found by ldconfig"
  # the file as dpkg knows it: the real path, or the SONAME link in /lib (merged /usr)
  pkg=$( (dpkg -S "$(readlink -f "$path")" || dpkg -S "$path") 2>/dev/null | head -1)
  pkg=${pkg%%:*}
  [ -n "$pkg" ] || fail "$lib ($path): no package owns it"
  case ", $depends," in *", $pkg "* | *", $pkg,"*) ;; *) fail "placer links $lib ($pkg), Depends says '$depends'" ;; esac
done
say "Depends: $depends"
"$PLACER" help --commands >"$work/commands" || fail "placer help --commands"

# --- in a clean container -----------------------------------------------------------------------
cat >"$work/in-container.sh" <<'EOF'
#!/bin/bash
# Run inside the container as root: /t is the test's directory (read-only).
set -u
fail() { echo "FAIL: $*"; exit 1; }
export LANG=C.UTF-8 MANWIDTH=100 MANPAGER=cat PAGER=cat
dpkg -i /t/deb/placer_*.deb >/tmp/dpkg.out 2>&1 || { cat /tmp/dpkg.out; fail "dpkg -i"; }
dpkg -s placer | grep -q '^Status: install ok installed' || fail "placer is not installed"
echo "ok dpkg -i: $(dpkg -s placer | sed -n 's/^Version: //p')"
[ "$(command -v placer)" = /usr/bin/placer ] || fail "placer is $(command -v placer)"
placer --version | grep -qx "placer $1" || fail "placer --version: $(placer --version)"
placer topo --json >/tmp/topo.json || fail "placer topo"
grep -q '"schema": 1' /tmp/topo.json || fail "placer topo --json: $(head -c 300 /tmp/topo.json)"
placer plan /usr/share/placer/profiles/unpinned.yaml >/tmp/plan.out 2>&1 || { cat /tmp/plan.out; fail "placer plan unpinned.yaml"; }
placer bench --print-default | cmp -s - /usr/share/placer/studies/default.yaml || fail "bench --print-default is not the shipped study"
echo "ok placer runs: topo, plan of a shipped profile, bench --print-default"

# placer watch's unit: shipped, not enabled, its ExecStart the installed placer with the options
# placer watch takes (--help lists them all)
unit=/usr/lib/systemd/system/placer-watch.service
[ -f "$unit" ] || fail "no $unit"
exec_start=$(sed -n 's/^ExecStart=//p' "$unit")
[ "$exec_start" = "/usr/bin/placer watch /etc/placer/profile.yaml" ] || fail "ExecStart=$exec_start"
grep -qx 'Restart=on-failure' "$unit" && grep -qx 'StandardOutput=journal' "$unit" || fail "$unit: $(cat "$unit")"
[ ! -e /etc/systemd/system/multi-user.target.wants/placer-watch.service ] || fail "the unit is enabled by the package"
placer watch --help | grep -q -- '--on-drift fix|report' || fail "placer watch --help"
echo "ok $unit: $exec_start"

# man: the page renders; every page without a groff warning
man placer-plan >/tmp/man.out 2>/tmp/man.err || { cat /tmp/man.err; fail "man placer-plan"; }
grep -q '^PLACER-PLAN(1)' /tmp/man.out && grep -q '^SYNOPSIS' /tmp/man.out && grep -q -- '--topology FILE.xml' /tmp/man.out ||
  { head -20 /tmp/man.out; fail "man placer-plan did not render its page"; }
echo "ok man placer-plan: $(wc -l </tmp/man.out) lines"
n=0
for page in /usr/share/man/man1/placer*.1.gz; do
  man --warnings -l -Tutf8 -Z "$page" 2>/tmp/warn >/dev/null || fail "man -l $page"
  [ ! -s /tmp/warn ] || { cat /tmp/warn; fail "groff warns about $page"; }
  n=$((n + 1))
done
# options: as man renders each command's OPTIONS section, and as --help lists them
for cmd in $(cat /t/commands); do
  # a tag is indented 7 columns, its text 14: only the tags
  man "placer-$cmd" 2>/dev/null | sed -n '/^OPTIONS/,/^EXIT STATUS/p' | grep -oE '^ {7}--[a-z-]+' | tr -d ' ' | sort >/tmp/man.opts
  placer "$cmd" --help | sed -n '/^options:/,/^$/p' | grep -o '^  --[a-z-]*' | tr -d ' ' | sort >/tmp/help.opts
  [ -s /tmp/help.opts ] && cmp -s /tmp/man.opts /tmp/help.opts ||
    fail "placer $cmd: man lists $(tr '\n' ' ' </tmp/man.opts), --help $(tr '\n' ' ' </tmp/help.opts)"
done
echo "ok man: $n pages render without warnings; each command's options agree with --help"

# bash completion: loaded on demand by bash-completion, then called as readline calls it
. /usr/share/bash-completion/bash_completion
complete -p placer >/dev/null 2>&1 && fail "placer's completion loaded before it was asked for"
_completion_loader placer
complete -p placer | grep -q -- '-F _placer placer$' || fail "no completion for placer: $(complete -p placer 2>&1)"
t() {
  COMP_WORDS=("$@")
  COMP_CWORD=$(($# - 1))
  COMP_LINE="$*" COMP_POINT=${#COMP_LINE}
  COMPREPLY=()
  _placer placer "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD - 1]}"
  printf '%s\n' "${COMPREPLY[@]}" | sort | tr '\n' ' ' | sed 's/ $//'
}
expect() {
  want=$1
  shift
  got=$(t "$@")
  [ "$got" = "$want" ] || fail "completion of '$*': '$got', want '$want'"
  echo "ok completion of '$*': $got"
}
expect "plan" placer pl
expect "--topology" placer plan --to
expect "hci-hdd hci-nvme" placer size --profile hci
expect "/usr/share/placer/profiles/demo-local.yaml" placer apply /usr/share/placer/profiles/dem
# every study the package ships (the default among them), as ls lists them
studies=$(printf '%s\n' /usr/share/placer/studies/*.yaml | sort | tr '\n' ' ' | sed 's/ $//')
case " $studies " in *" /usr/share/placer/studies/default.yaml "*) ;; *) fail "the package has no default study: $studies" ;; esac
expect "$studies" placer bench /usr/share/placer/studies/
expect "auto cgroupfs systemd" placer apply --backend ''
EOF

podman run --name "$name" --cgroup-parent="$parent" --network none -v "$work:/t:ro" "$image" \
  bash /t/in-container.sh "$version" >"$work/container.out" 2>&1
crc=$?
sed "s/^/$T: container: /" "$work/container.out"
[ "$crc" = 0 ] || fail "the checks in the container failed (exit $crc)"
say "PASS in $(($(date +%s) - t0)) s"
