#!/usr/bin/env python3
"""placer export --format tuned (issue #36, finding 3) read back with configparser (tuned reads profiles with
configobj: the same sections and key=value lines) against the plan (`placer plan --json`) on every fixture with
every profile that isolates something:
- a child of cpu-partitioning (include=cpu-partitioning) whose isolated_cores are exactly the OSDs' exclusive
  CPUs and the pinned guests' (no_balance_cores the latter);
- the header's housekeeping CPUs are every usable CPU but those, and name who holds them;
- [scheduler] keeps placer's IRQ steering (irq_process=false) and Ceph's and qemu's threads (ps_blacklist,
  cpu-partitioning's own list kept, since a child's option replaces the parent's);
- [irqbalance] banned_cpus is the list --format irqbalance writes (every CPU a role holds);
- a drop-in per isolated OSD with its CPUs as CPUAffinity= (every service starts on the housekeeping CPUs)."""
import configparser
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from exportlib import cpus, every_pair, plan_and_export, run  # noqa: E402

PROFILES = ["../profiles/hci-nvme.yaml", "../profiles/hci-hdd.yaml", "profiles/export-hci.yaml",
            "profiles/export-proxmox.yaml"]
PARENT = ".*pmd.*;.*PMD.*;^DPDK;.*qemu-kvm.*;^contrail-vroute$;^lcore-slave-.*;^rte_mp_handle$;^rte_mp_async$;" \
         "^eal-intr-thread$"


def units(stdout):
    """The units of several on stdout, split at their "==> NAME <==" lines."""
    if not stdout.startswith("==> "):
        return {"": stdout}
    out, name = {}, None
    for line in stdout.splitlines(keepends=True):
        if line.startswith("==> ") and line.rstrip().endswith(" <=="):
            name = line[4:-5].strip()
            out[name] = ""
        else:
            out[name] += line
    return {k: v[:-1] if v.endswith("\n\n") else v for k, v in out.items()}


def check(fixture, profile):
    plan, out = plan_and_export(fixture, profile, "--format", "tuned")
    if plan is None:
        return 0
    where = f"{profile} on {fixture}"
    if out.returncode == 2:
        assert "isolates no CPU" in out.stderr or "pins nothing" in out.stderr, f"{where}: {out.stderr}"
        return 0
    assert out.returncode == 0, f"{where}: {out.stderr}"
    got = units(out.stdout)
    name = f"placer-{plan['profile']}/tuned.conf"
    conf = configparser.ConfigParser(interpolation=None, strict=True)
    conf.read_string(got[name])
    insts = plan["instances"]
    isolated, no_balance, usable, held = set(), set(), cpus(plan["reserved"]["cpus"]), set()
    usable |= cpus(plan["free"]["cpus"])
    for i in insts:
        usable |= cpus(i["cpus"])
        held |= cpus(i["cpus"])
        if i["exclusive"] and (i["kind"] == "ceph-osd" or (i["kind"] == "vm" and i["pin_vcpus"])):
            isolated |= cpus(i["cpus"])
            if i["kind"] == "vm":
                no_balance |= cpus(i["cpus"])
    assert conf.get("main", "include") == "cpu-partitioning", where
    assert cpus(conf.get("variables", "isolated_cores")) == isolated, f"{where}: isolated_cores"
    assert cpus(conf.get("variables", "no_balance_cores", fallback="")) == no_balance, f"{where}: no_balance_cores"
    assert conf.get("scheduler", "irq_process") == "false", where
    blacklist = conf.get("scheduler", "ps_blacklist")
    assert blacklist.startswith(PARENT + ";") and "^ceph-osd$" in blacklist.split(";"), f"{where}: ps_blacklist"
    irqbalance = run("export", "--format", "irqbalance", "--topology", fixture, profile)
    banned = next(li for li in irqbalance.stdout.splitlines() if li.startswith("IRQBALANCE_BANNED_CPULIST="))
    assert cpus(conf.get("irqbalance", "banned_cpus")) == cpus(banned.split("=", 1)[1]), f"{where}: banned_cpus"
    head = next(li for li in got[name].splitlines() if "run on the CPUs it does not isolate, " in li)
    housekeeping = cpus(head.split("run on the CPUs it does not isolate, ")[1].split(":")[0])
    assert housekeeping == usable - isolated, f"{where}: the header's housekeeping CPUs"
    if plan["reserved"]["cpus"]:
        assert "those of the host reserve" in head, where
    dropins = 0
    for i in insts:
        if i["kind"] == "ceph-osd" and i["exclusive"] and i["match"]["kind"] == "ceph_id":
            unit = f"ceph-osd@{i['match']['value']}.service.d/51-placer-tuned.conf"
            d = configparser.ConfigParser(interpolation=None, strict=True)
            d.optionxform = str
            d.read_string(got[unit])
            assert cpus(d.get("Service", "CPUAffinity")) == cpus(i["cpus"]), f"{where}: {unit}"
            dropins += 1
    assert len(got) == 1 + dropins, f"{where}: units {sorted(got)}"
    return 1


def main():
    every_pair(check, PROFILES, "tuned child profiles read back and matched the plan")


if __name__ == "__main__":
    main()
