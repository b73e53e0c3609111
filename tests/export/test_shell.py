#!/usr/bin/env python3
"""Every script placer export writes (virsh, proxmox, ceph; irqbalance's environment file) on every fixture with
every profile, read by the shell's own parser (`sh -n`, dash as Debian's /bin/sh) and by shellcheck (-s sh, warnings
and errors; the environment file's variables are for irqbalance, not the file itself: SC2034 left out there):
placer's own shell code (the functions of virsh's and ceph's scripts) included."""
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from exportlib import fixtures, run  # noqa: E402

PROFILES = ["../profiles/hci-nvme.yaml", "../profiles/hci-hdd.yaml", "../profiles/demo-local.yaml",
            "profiles/export-hci.yaml", "profiles/export-proxmox.yaml"]
FORMATS = {"virsh": "virsh.sh", "proxmox": "proxmox.sh", "ceph": "ceph-config.sh", "irqbalance": "irqbalance.env"}


def main():
    if shutil.which("shellcheck") is None:
        print("shellcheck missing (apt-get install shellcheck)")
        sys.exit(77)
    with tempfile.TemporaryDirectory(prefix="placer-shell-") as tmp:
        files = []
        some = [f for f in fixtures() if any(k in f for k in ("crafted", "corona", "24em64t", "quartz"))]
        for n, fixture in enumerate(some):
            for p, profile in enumerate(PROFILES):
                for fmt, unit in FORMATS.items():
                    out_dir = os.path.join(tmp, f"{n}-{p}-{fmt}")
                    os.mkdir(out_dir)
                    r = run("export", "--format", fmt, "--topology", fixture, "--out", out_dir, profile)
                    if r.returncode != 0:
                        continue
                    path = os.path.join(out_dir, unit)
                    assert os.path.exists(path), f"{fmt} on {fixture} with {profile}: no {unit}"
                    s = subprocess.run(["sh", "-n", path], capture_output=True, text=True)
                    assert s.returncode == 0, f"sh -n {fmt} on {fixture} with {profile}: {s.stderr}"
                    files.append(path)
        assert len(files) >= 40, len(files)
        scripts = [f for f in files if not f.endswith(".env")]
        envs = [f for f in files if f.endswith(".env")]
        for args, group in ((["-S", "warning"], scripts), (["-S", "warning", "-e", "SC2034"], envs)):
            s = subprocess.run(["shellcheck", "-s", "sh", *args, *group], capture_output=True, text=True)
            assert s.returncode == 0, s.stdout[-4000:]
    print(f"{len(files)} scripts parse with sh -n and pass shellcheck")


if __name__ == "__main__":
    main()
