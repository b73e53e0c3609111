#!/bin/sh
# ci/install-deps.sh installs openssh-server (for fleet_ansible.sh) without leaving an sshd running,
# checked on a fresh install in a throwaway container: a copy-on-write overlay of this machine's
# root (--rootfs /:O: its packages, apt lists and cache) in its own network and PID namespaces
# (--network none), where openssh-server is purged first and its .deb comes from the apt cache.
# The container has no init: /sbin/runlevel in its overlay answers "N 2", as on a booted sysvinit
# machine, so that the package's postinst (invoke-rc.d ssh start) behaves as it would there.
#   - control: a plain `apt-get install openssh-server` there starts sshd, listening on 0.0.0.0:22
#     in the container (so this test can see a started sshd);
#   - purged again, then `sh ci/install-deps.sh all`: openssh-server is installed,
#     /etc/ssh/sshd_not_to_be_run is in place, no sshd process runs and nothing listens, on any
#     address; `invoke-rc.d ssh restart` (what an upgrade runs) and /etc/init.d/ssh start still
#     start none; a second install-deps is silent and changes nothing.
# This machine itself is never touched: when its apt cache lacks the .deb, `apt-get download` fetches
# it into the test's scratch directory and the container copies it into its own overlay's cache.
# Cleanup (also on failure): the container and its overlay removed.
set -u
SRC=${PLACER_SOURCE_DIR:?PLACER_SOURCE_DIR not set}
T=fleet_ssh_deps
. "$SRC/tests/integration/lib/common.sh"
need_root
need_cmd podman apt-get dpkg-query ss
dpkg-query -W -f '${Status}' openssh-server 2>/dev/null | grep -q "install ok installed" ||
  skip "openssh-server is not installed here (sh ci/install-deps.sh all)"
export CONTAINERS_CONF="$SRC/containers/containers.conf"
name=$T_TAG
t_begin
work=$T_WORK
t_defer t_remove_groups # podman's groups under --cgroup-parent=/$name, after the container
t_defer 'podman rm -f -t 0 "$name" >/dev/null 2>&1; ! podman container exists "$name" 2>/dev/null || { echo "$T: container $name left behind" >&2; rc=1; }'

# The .deb of the installed version, for the offline installs in the container.
ver=$(dpkg-query -W -f '${Version}' openssh-server)
mkdir "$work/debs"
if ! ls /var/cache/apt/archives/openssh-server_*"${ver#*:}"_*.deb >/dev/null 2>&1; then
  (cd "$work/debs" && apt-get download "openssh-server=$ver") >"$work/download.out" 2>&1 ||
    { cat "$work/download.out"; fail "cannot download openssh-server's .deb"; }
fi

podman run -d --name "$name" --cgroup-parent="/$name" --network none -v "$SRC/ci:/t/ci:ro" -v "$work/debs:/t/debs:ro" --rootfs /:O \
  sleep 3600 >/dev/null 2>"$work/run.err" || fail "podman run: $(cat "$work/run.err")"
# in the container: sh -c SCRIPT
inside() { podman exec "$name" sh -c "$1"; }
# a .deb downloaded here goes into the container's own apt cache (its overlay), not this machine's
inside 'cp /t/debs/*.deb /var/cache/apt/archives/ 2>/dev/null; true' || fail "copy the downloaded .deb"
# sshd processes (pid and command) and TCP listeners in the container; a zombie (an sshd that
# ended, waiting for the container's PID 1, sleep, to reap it) neither runs nor listens
sshd_procs() { inside 'for p in /proc/[0-9]*; do grep -q "^State:[[:space:]]*Z" $p/status 2>/dev/null && continue; case "$(cat $p/comm 2>/dev/null)" in sshd) echo "${p#/proc/} $(tr "\0" " " <$p/cmdline)";; esac; done'; }
listeners() { inside 'ss -Hltn'; }
purge() {
  inside 'dpkg --purge openssh-server >/tmp/purge.out 2>&1' || { inside 'cat /tmp/purge.out'; fail "dpkg --purge openssh-server"; }
  [ -z "$(sshd_procs)" ] || fail "an sshd still runs after the purge: $(sshd_procs)"
  inside 'rm -f /etc/ssh/sshd_not_to_be_run; ! test -e /usr/sbin/sshd' || fail "/usr/sbin/sshd left after the purge"
}

# A fresh Debian 12 has no policy-rc.d (this machine's forbids every start); a booted one has a runlevel.
inside 'rm -f /usr/sbin/policy-rc.d && printf "#!/bin/sh\necho N 2\n" >/sbin/runlevel && chmod +x /sbin/runlevel' ||
  fail "could not prepare the container"
[ -z "$(listeners)" ] || fail "something listens in a container with no network: $(listeners)"

# --- control: a plain install starts sshd -------------------------------------------------------
purge
inside 'DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends openssh-server >/tmp/plain.out 2>&1' ||
  { inside 'cat /tmp/plain.out'; fail "plain apt-get install openssh-server"; }
i=0
while ! listeners | grep -q ':22 '; do
  i=$((i + 1))
  [ $i -lt 50 ] || { inside 'tail -5 /tmp/plain.out'; fail "control: a plain install started no sshd here: this test could not see one"; }
  sleep 0.1
done
say "control: a plain install started sshd: $(sshd_procs | head -1), listening on $(listeners | awk '{print $4}' | tr '\n' ' ')"
purge

# --- install-deps --------------------------------------------------------------------------------
inside 'sh /t/ci/install-deps.sh all >/tmp/deps.out 2>&1' || { inside 'cat /tmp/deps.out'; fail "install-deps.sh all failed"; }
inside 'dpkg-query -W -f "\${Status}" openssh-server | grep -q "install ok installed" && test -x /usr/sbin/sshd' ||
  fail "install-deps did not install openssh-server"
inside 'test -e /etc/ssh/sshd_not_to_be_run' || fail "install-deps left no /etc/ssh/sshd_not_to_be_run"
sleep 1 # a daemon started in the background would be up by now (the control's was, within 0.1 s)
[ -z "$(sshd_procs)" ] || fail "an sshd runs after install-deps: $(sshd_procs)"
[ -z "$(listeners)" ] || fail "something listens after install-deps: $(listeners)"
# What an upgrade's postinst and a boot would run.
inside 'invoke-rc.d ssh restart >/tmp/restart.out 2>&1; /etc/init.d/ssh start >>/tmp/restart.out 2>&1; true'
sleep 1
[ -z "$(sshd_procs)" ] && [ -z "$(listeners)" ] ||
  { inside 'cat /tmp/restart.out'; fail "invoke-rc.d ssh restart or /etc/init.d/ssh start started sshd: $(sshd_procs)"; }
inside 'sh /t/ci/install-deps.sh all >/tmp/deps2.out 2>&1 && test ! -s /tmp/deps2.out' ||
  { inside 'cat /tmp/deps2.out'; fail "a second install-deps was not silent"; }
say "install-deps: openssh-server installed, sshd_not_to_be_run in place, no sshd and no listener (also after invoke-rc.d ssh restart and /etc/init.d/ssh start: $(inside 'tail -1 /tmp/restart.out'))"
say "OK"
