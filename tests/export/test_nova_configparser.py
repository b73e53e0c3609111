#!/usr/bin/env python3
"""placer export --format nova, read back the way OpenStack reads nova.conf
(Python's configparser), against the plan (`placer plan --json`) on every
fixture with every profile that has VMs: cpu_shared_set is the vm pools,
cpu_dedicated_set the vm instances with CPUs of their own, neither touches
the host reserve or a Ceph daemon, reserved_host_memory_mb is the host
reserve + every other role's memory + each guest's overhead, cpu_allocation_ratio
lets Placement give the pools exactly the vCPUs the plan puts there and
ram_allocation_ratio overcommits nothing (issue #36, finding 8), and each vm role has
its flavor's extra specs."""
import configparser
import json
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from exportlib import TESTS, cpus, every_pair, need, run, size  # noqa: E402

yaml = need("yaml")

PROFILES = ["../profiles/hci-nvme.yaml", "../profiles/hci-hdd.yaml", "profiles/export-hci.yaml",
            "profiles/export-proxmox.yaml"]


def check(fixture, profile_path):
    plan_run = run("plan", "--json", "--topology", fixture, profile_path)
    if plan_run.returncode == 3:
        return False
    assert plan_run.returncode == 0, plan_run.stderr
    plan = json.loads(plan_run.stdout)
    with open(os.path.join(TESTS, profile_path)) as f:
        roles = {r["name"]: r for r in yaml.safe_load(f)["roles"]}
    out = run("export", "--format", "nova", "--topology", fixture, profile_path)
    assert out.returncode == 0, f"{profile_path} on {fixture}: {out.stderr}"
    conf = configparser.ConfigParser(interpolation=None, strict=True)
    conf.read_string(out.stdout)
    insts = plan["instances"]
    vms = [i for i in insts if i["kind"] == "vm"]
    shared = set().union(*[cpus(i["cpus"]) for i in vms if not i["exclusive"]])
    dedicated = set().union(*[cpus(i["cpus"]) for i in vms if i["exclusive"]])
    got_shared = cpus(conf.get("compute", "cpu_shared_set", fallback=""))
    got_dedicated = cpus(conf.get("compute", "cpu_dedicated_set", fallback=""))
    where = f"{profile_path} on {fixture}"
    assert got_shared == shared, f"{where}: cpu_shared_set {got_shared} != {shared}"
    assert got_dedicated == dedicated, f"{where}: cpu_dedicated_set"
    assert not (got_shared & got_dedicated), where
    kept = cpus(plan["reserved"]["cpus"])
    for i in insts:
        if i["kind"].startswith("ceph-"):
            kept |= cpus(i["cpus"])
    assert not ((got_shared | got_dedicated) & kept), f"{where}: guests on Ceph's or the host's CPUs"
    want = plan["reserved"]["memory_bytes"]
    for i in insts:
        if i["kind"] == "vm":
            want += size(roles[i["role"]].get("memory_overhead", 0))
        elif i["memory_bytes"] is not None:
            want += i["memory_bytes"]
    mib = -(-want // (1 << 20))
    assert conf.getint("DEFAULT", "reserved_host_memory_mb") == mib, f"{where}: reserved_host_memory_mb"
    # the allocation ratios: Placement's int(PUs x ratio) is exactly the pools' vCPUs (role cpu.threads or
    # run.vm.vcpus each), memory not overcommitted; the options Nova refuses beside the sets named
    assert conf.getfloat("DEFAULT", "ram_allocation_ratio") == 1.0, where
    assert "# Remove vcpu_pin_set and reserved_host_cpus from your nova.conf" in out.stdout, where
    assert not conf.has_option("DEFAULT", "vcpu_pin_set") and not conf.has_option("DEFAULT", "reserved_host_cpus")
    pooled = [i for i in vms if not i["exclusive"]]
    if pooled:
        vcpus = 0
        for i in pooled:
            role = roles[i["role"]]
            vcpus += (role.get("run") or {}).get("vm", {}).get("vcpus") or role["cpu"]["threads"]
        ratio = conf.getfloat("DEFAULT", "cpu_allocation_ratio")
        assert int(len(shared) * ratio) == vcpus, f"{where}: {len(shared)} x {ratio} is not {vcpus} vCPUs"
        assert int(len(shared) * (ratio - 0.0001)) < vcpus, f"{where}: the ratio is not rounded up to 4 decimals"
    else:
        assert not conf.has_option("DEFAULT", "cpu_allocation_ratio"), where
    for role in {i["role"] for i in vms}:
        first = next(i for i in vms if i["role"] == role)
        nodes = max(len(cpus(i["mems"])) for i in vms if i["role"] == role)
        policy = "dedicated" if first["exclusive"] else "shared"
        spec = f"--property hw:cpu_policy={policy} --property hw:numa_nodes={nodes}"
        assert re.search(rf"^# role {role}: .*\n#   openstack flavor set FLAVOR {re.escape(spec)}", out.stdout, re.M), \
            f"{where}: flavor of role {role}"
    return True


def main():
    every_pair(check, PROFILES, "nova.conf parsed back and matched the plan")


if __name__ == "__main__":
    main()
