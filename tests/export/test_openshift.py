#!/usr/bin/env python3
"""placer export --format openshift (issue #36, Deliver: a PerformanceProfile) read back as YAML against the plan
(`placer plan --json`) on every fixture with every profile, and against the rules the Node Tuning Operator's
webhook applies (performanceprofile_validation.go): spec.cpu.reserved is the host reserve, spec.cpu.isolated every
CPU an instance holds alone, neither empty and the two apart; one nodeSelector key of the form domain/role;
metadata.name a DNS label; the Topology Manager policy single-numa-node exactly when every guest lies on one node.
A plan without a reserve or without exclusive CPUs is refused with one line, exit 2."""
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from exportlib import cpus, every_pair, need, plan_and_export  # noqa: E402

yaml = need("yaml")

PROFILES = ["../profiles/hci-nvme.yaml", "../profiles/hci-hdd.yaml", "../profiles/demo-local.yaml",
            "profiles/export-hci.yaml", "profiles/export-proxmox.yaml"]


def check(fixture, profile):
    plan, out = plan_and_export(fixture, profile, "--format", "openshift")
    if plan is None:
        return 0
    where = f"{profile} on {fixture}"
    isolated = set().union(*[cpus(i["cpus"]) for i in plan["instances"] if i["exclusive"]])
    reserved = cpus(plan["reserved"]["cpus"])
    if not reserved or not isolated:
        assert out.returncode == 2 and out.stdout == "" and len(out.stderr.splitlines()) == 1, where
        return 0
    assert out.returncode == 0, f"{where}: {out.stderr}"
    doc = yaml.safe_load(out.stdout)
    assert doc["apiVersion"] == "performance.openshift.io/v2" and doc["kind"] == "PerformanceProfile", where
    assert re.fullmatch(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?", doc["metadata"]["name"]), where
    spec = doc["spec"]
    assert isinstance(spec["cpu"]["reserved"], str) and isinstance(spec["cpu"]["isolated"], str), where
    assert cpus(spec["cpu"]["reserved"]) == reserved, f"{where}: reserved"
    assert cpus(spec["cpu"]["isolated"]) == isolated, f"{where}: isolated"
    assert not reserved & isolated, where
    (key, value), = spec["nodeSelector"].items()
    assert re.fullmatch(r"[a-z0-9.-]+/[A-Za-z0-9._-]+", key) and value == "", f"{where}: nodeSelector {key}"
    vms = [i for i in plan["instances"] if i["kind"] == "vm"]
    one_node = bool(vms) and all(i["numa_node"] is not None and i["numa_node"] >= 0 for i in vms)
    assert spec["numa"]["topologyPolicy"] == ("single-numa-node" if one_node else "best-effort"), where
    assert f"# reserved, {plan['reserved']['cpus']}:" in out.stdout, f"{where}: the header's reserved CPUs"
    return 1


def main():
    every_pair(check, PROFILES, "PerformanceProfiles read back and matched the plan")


if __name__ == "__main__":
    main()
