#!/bin/sh
# Check that every #include "..." in placer/ points down the layers (or stays
# inside its own module): lib <- core <- bench <- cli, and inside the core
# the order below.  Modules of the same rank must not include each other
# (launch and apply in particular).  A file that is in no module fails too:
# add new files to the table.  docs/ARCHITECTURE.md explains the layers.
# Usage: sh ci/check-layers.sh   (from anywhere; exit 1 on a violation)
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root/placer"

# module and rank of a file, by its path relative to placer/
module_of() {
  case $1 in
  lib/*) echo "lib 0" ;;
  topology*) echo "topology 1" ;;
  irq.c | irq.h) echo "topology 1" ;; # the node's interrupts (sysfs, /proc/irq): part of the node
  proc.c | proc-tree.c | proc.h) echo "proc 1" ;; # /proc facts of one process and its tree: lib only
  numa-locality.*) echo "numa-locality 1" ;; # memory locality from numa_maps, libnuma: lib only
  role.c | role.h) echo "role 1" ;;     # role and match kinds, shared by profile and plan
  runspec.c | runspec.h) echo "runspec 1" ;; # what profile-run and launch share
  profile*) echo "profile 2" ;;
  plan* | planner.c) echo "plan 3" ;;
  cgroup*) echo "cgroup 4" ;;
  systemd-unit.c | systemd-unit.h) echo "systemd 4" ;; # systemd units as text (pure)
  cephconf.c | cephconf.h) echo "cephconf 4" ;; # a Ceph daemon's own affinity settings
  procmatch.c | procmatch.h) echo "procmatch 4" ;; # finds an instance's processes
  vcpu.c | vcpu.h) echo "vcpu 5" ;;     # qemu vCPU threads over QMP
  placement.c | placement.h) echo "placement 5" ;; # instance groups: shared by apply, run, exec, bench
  state.c | state.h) echo "state 5" ;;  # apply's recorded state (state.json, journal)
  export*) echo "export 5" ;;           # the plan for libvirt, Nova, Proxmox, kubelet, Ceph, systemd...
  launch* | podman-argv.* | vm.c | vm.h | runstate.* | run-roles.*) echo "launch 6" ;; # run-roles: placer_run()
  apply*) echo "apply 6" ;; # apply-backend.c and its backends: apply-cgroupfs*, apply-systemd*
  results/*) echo "results 7" ;; # a study's results: summary.json, statistics, compare (no runner)
  size/*) echo "size 8" ;;       # sizing from results: how many OSDs and VMs a node takes
  report/*) echo "report 9" ;;   # the text and HTML reports of results and sizing
  bench/*) echo "bench 10" ;;    # the runner: clusters, passes, fio, neighbours
  cli/*) echo "cli 11" ;;
  *) echo "? -1" ;;
  esac
}

fail=0
files=$(find . -name '*.[ch]' | sed 's|^\./||' | sort)
for f in $files; do
  set -- $(module_of "$f")
  mod=$1 rank=$2
  if [ "$mod" = "?" ]; then
    echo "check-layers: placer/$f is in no module (add it to ci/check-layers.sh)" >&2
    fail=1
    continue
  fi
  # "x.h" is relative to placer/ (the include root), or to the file's own folder
  incs=$(sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p' "$f")
  for inc in $incs; do
    target=$inc
    if [ ! -e "$target" ] && [ -e "$(dirname "$f")/$inc" ]; then
      target=$(dirname "$f")/$inc
      target=${target#./}
    fi
    if [ ! -e "$target" ]; then
      echo "check-layers: placer/$f: #include \"$inc\": no such file under placer/" >&2
      fail=1
      continue
    fi
    set -- $(module_of "$target")
    tmod=$1 trank=$2
    [ "$tmod" = "$mod" ] && continue
    if [ "$trank" -ge "$rank" ]; then
      echo "check-layers: placer/$f ($mod, rank $rank) includes \"$inc\" ($tmod, rank $trank): points up or sideways" >&2
      fail=1
    fi
  done
done
[ $fail = 0 ] && echo "check-layers: $(echo "$files" | wc -l) files, every #include points down"
exit $fail
