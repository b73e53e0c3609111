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

# module and rank of a file, by its path relative to placer/: sets m_mod and m_rank (no subshell:
# one fork per file and include made this check take 5 s)
module_of() {
  case $1 in
  lib/*) m_mod=lib m_rank=0 ;;
  topology/*) m_mod=topology m_rank=1 ;; # the node: hwloc, its devices and NICs, its interrupts (irq.c)
  proc.c | proc-tree.c | proc.h) m_mod=proc m_rank=1 ;; # /proc facts of one process and its tree: lib only
  numa-locality.*) m_mod=numa-locality m_rank=1 ;; # memory locality from numa_maps, libnuma: lib only
  role.c | role.h) m_mod=role m_rank=1 ;;     # role and match kinds, shared by profile and plan
  runspec.c | runspec.h) m_mod=runspec m_rank=1 ;; # what profile-run and launch share
  profile/*) m_mod=profile m_rank=2 ;;
  plan/*) m_mod=plan m_rank=3 ;;
  cgroup/*) m_mod=cgroup m_rank=4 ;;
  systemd-unit.c | systemd-unit.h) m_mod=systemd m_rank=4 ;; # systemd units as text (pure)
  cephconf.c | cephconf.h) m_mod=cephconf m_rank=4 ;; # a Ceph daemon's own affinity settings
  ceph-admin.c | ceph-admin.h) m_mod=ceph-admin m_rank=4 ;; # a Ceph daemon's admin socket (status, bench)
  procmatch.c | procmatch.h) m_mod=procmatch m_rank=4 ;; # finds an instance's processes
  vcpu.c | vcpu.h) m_mod=vcpu m_rank=5 ;;     # qemu vCPU threads over QMP
  placement*) m_mod=placement m_rank=5 ;; # the model of a placed instance and its writers: apply, run, exec, bench
  state*) m_mod=state m_rank=5 ;; # apply's state files, one module: state.json, systemd.json, irq.json, the journal
  export/*) m_mod=export m_rank=5 ;;           # the plan for libvirt, Nova, Proxmox, kubelet, Ceph, systemd...
  launch* | podman-argv.* | vm.c | vm.h | runstate.* | run-roles.*) m_mod=launch m_rank=6 ;; # run-roles: placer_run()
  apply/*) m_mod=apply m_rank=6 ;; # apply-backend.c and its backends: apply-cgroupfs*, apply-systemd*
  watch/*) m_mod=watch m_rank=7 ;;     # placer watch's core: process events, matching, metrics, the loop
  results/*) m_mod=results m_rank=7 ;; # a study's results: summary.json, statistics, compare (no runner)
  size/*) m_mod=size m_rank=8 ;;       # sizing from results: how many OSDs and VMs a node takes
  report/*) m_mod=report m_rank=9 ;;   # the text and HTML reports of results and sizing
  bench/*) m_mod=bench m_rank=10 ;;    # the runner: clusters, passes, fio, neighbours
  cli/*) m_mod=cli m_rank=11 ;;
  *) m_mod=? m_rank=-1 ;;
  esac
}

fail=0
files=$(find . -name '*.[ch]' | sed 's|^\./||' | sort)
for f in $files; do
  module_of "$f"
  mod=$m_mod rank=$m_rank
  if [ "$mod" = "?" ]; then
    echo "check-layers: placer/$f is in no module (add it to ci/check-layers.sh)" >&2
    fail=1
    continue
  fi
  # "x.h" is relative to placer/ (the include root), or to the file's own folder
  case $f in */*) dir=${f%/*} ;; *) dir=. ;; esac
  incs=$(sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p' "$f")
  for inc in $incs; do
    target=$inc
    if [ ! -e "$target" ] && [ -e "$dir/$inc" ]; then
      target=$dir/$inc
      target=${target#./}
    fi
    if [ ! -e "$target" ]; then
      echo "check-layers: placer/$f: #include \"$inc\": no such file under placer/" >&2
      fail=1
      continue
    fi
    module_of "$target"
    tmod=$m_mod trank=$m_rank
    [ "$tmod" = "$mod" ] && continue
    if [ "$trank" -ge "$rank" ]; then
      echo "check-layers: placer/$f ($mod, rank $rank) includes \"$inc\" ($tmod, rank $trank): points up or sideways" >&2
      fail=1
    fi
  done
done
[ $fail = 0 ] && echo "check-layers: $(echo "$files" | wc -l) files, every #include points down"
exit $fail
