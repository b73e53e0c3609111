#!/usr/bin/env python3
"""placer export --format kubelet read back as YAML (the kubelet reads its config file as YAML) and checked
against the plan (`placer plan --json`) on every fixture with every profile, for every kubelet release
--target knows (issue #36, findings 1 and 2):
- reservedSystemCPUs is the host reserve and every role that is not a vm; the header's "Pods get CPUs X" is
  every usable CPU but those; from 1.32 on strict-cpu-reservation is set (else BestEffort and Burstable pods,
  KubeVirt's pooled guests among them, run on the OSDs' cores), and before 1.32 the header says so, naming
  reservedSystemCPUs;
- the CPU manager's options and feature gates per release: strict-cpu-reservation alpha in 1.32 (the gate
  CPUManagerPolicyAlphaOptions), beta from 1.33; prefer-align-cpus-by-uncorecache unknown before 1.32, alpha in
  1.32-1.33, beta from 1.34 (policy_options.go, KEP-4540, KEP-4800);
- the header names the state files to remove (the kubelet does not start on a changed policy);
- --merge KUBELET.yaml keeps every key placer does not own as it was, sets the plan's, and reservedMemory sums to
  systemReserved + kubeReserved + evictionHard's memory.available; keys that contradict the plan are refused
  with one line, exit 2 and nothing on stdout."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from exportlib import TESTS, cpus, fixtures, need, plan_and_export, quantity, run  # noqa: E402

yaml = need("yaml")

PROFILES = ["../profiles/hci-nvme.yaml", "../profiles/hci-hdd.yaml", "../profiles/demo-local.yaml",
            "profiles/export-hci.yaml", "profiles/export-proxmox.yaml"]
RELEASES = ["1.29", "1.30", "1.31", "1.32", "1.33", "1.34"]
KUBEADM = "fixtures/export/kubelet-kubeadm.yaml"


def version(release):
    return tuple(int(x) for x in release.split("."))


def header_cpus(text, before):
    line = next(li for li in text.splitlines() if before in li)
    return cpus(line.split(before, 1)[1].split(" ")[0].rstrip(":;,"))


def expect_options(plan, release, doc, where):
    opts = doc.get("cpuManagerPolicyOptions") or {}
    gates = doc.get("featureGates") or {}
    v = version(release)
    strict = v >= (1, 32)
    assert (opts.get("strict-cpu-reservation") == "true") == strict, f"{where}: strict-cpu-reservation"
    uncore = opts.get("prefer-align-cpus-by-uncorecache") == "true"
    if v < (1, 32):
        assert not uncore, f"{where}: prefer-align-cpus-by-uncorecache is unknown before 1.32"
    alpha = (strict and v < (1, 33)) or (uncore and v < (1, 34))
    assert gates.get("CPUManagerPolicyAlphaOptions") is (True if alpha else None), f"{where}: alpha gate {gates}"
    for value in opts.values():
        assert value in ("true", "false"), where
    return strict, uncore


def check(fixture, profile, release):
    plan, out = plan_and_export(fixture, profile, "--format", "kubelet", "--target", release)
    if plan is None:
        return 0
    where = f"{profile} on {fixture} for {release}"
    if out.returncode == 2:
        assert "pods would get no CPU" in out.stderr or "pins nothing" in out.stderr, f"{where}: {out.stderr}"
        return 0
    assert out.returncode == 0, f"{where}: {out.stderr}"
    doc = yaml.safe_load(out.stdout)
    assert f"(format kubelet, for kubelet {release})" in out.stdout.splitlines()[0], where
    insts = plan["instances"]
    kept = cpus(plan["reserved"]["cpus"])
    usable = kept | cpus(plan["free"]["cpus"])
    for i in insts:
        usable |= cpus(i["cpus"])
        if i["kind"] != "vm":
            kept |= cpus(i["cpus"])
    assert cpus(doc["reservedSystemCPUs"]) == kept, f"{where}: reservedSystemCPUs"
    strict, _ = expect_options(plan, release, doc, where)
    head = out.stdout.split("apiVersion:")[0]
    if strict:
        pods = header_cpus(head, "Pods (KubeVirt guests too) get CPUs ")
        assert "strict-cpu-reservation keeps BestEffort and Burstable pods off reservedSystemCPUs" in head, where
    else:
        pods = header_cpus(head, "Guaranteed pods with whole CPUs get CPUs ")
        shared = header_cpus(head, "also run on reservedSystemCPUs ")
        assert shared == kept, f"{where}: the header's reservedSystemCPUs"
        assert f"kubelet {release} has no strict-cpu-reservation" in head, where
    assert pods == usable - kept, f"{where}: the header's pods' CPUs {sorted(pods)} != {sorted(usable - kept)}"
    for state in ("/var/lib/kubelet/cpu_manager_state", "/var/lib/kubelet/memory_manager_state"):
        assert state in head, f"{where}: the runbook does not name {state}"
    total = sum(quantity(r["limits"]["memory"]) for r in doc["reservedMemory"])
    assert total == quantity(doc["systemReserved"]["memory"]) + (100 << 20), f"{where}: reservedMemory's sum"
    return 1


def check_merge(fixture, profile):
    out = run("export", "--format", "kubelet", "--merge", KUBEADM, "--topology", fixture, profile)
    where = f"--merge on {profile} on {fixture}"
    assert out.returncode == 0, f"{where}: {out.stderr}"
    with open(os.path.join(TESTS, KUBEADM)) as f:
        mine = yaml.safe_load(f)
    doc = yaml.safe_load(out.stdout)
    owned = {"cpuManagerPolicy", "cpuManagerPolicyOptions", "reservedSystemCPUs", "topologyManagerPolicy",
             "memoryManagerPolicy", "systemReserved", "reservedMemory", "featureGates"}
    for key, value in mine.items():
        if key not in owned:
            assert doc[key] == value, f"{where}: {key} changed"
    assert doc["cpuManagerPolicy"] == "static" and doc["memoryManagerPolicy"] == "Static", where
    assert doc["cpuManagerPolicyOptions"]["distribute-cpus-across-numa"] == "true", f"{where}: an option of mine lost"
    assert doc["cpuManagerPolicyOptions"]["strict-cpu-reservation"] == "true", where
    assert doc["systemReserved"]["cpu"] == "1", f"{where}: systemReserved.cpu lost"
    assert doc["featureGates"] == {"CPUManagerPolicyBetaOptions": True}, where
    fragment = yaml.safe_load(run("export", "--format", "kubelet", "--topology", fixture, profile).stdout)
    kept = quantity(fragment["systemReserved"]["memory"])
    assert quantity(doc["systemReserved"]["memory"]) == kept - (1 << 30), f"{where}: systemReserved minus mine"
    total = sum(quantity(r["limits"]["memory"]) for r in doc["reservedMemory"])
    assert total == quantity(doc["systemReserved"]["memory"]) + (1 << 30) + (500 << 20), f"{where}: the sum"
    assert total == kept + (500 << 20), where


REFUSED = [
    ("enforceNodeAllocatable: [pods, system-reserved]\nsystemReservedCgroup: /system.slice\n",
     "enforceNodeAllocatable enforces system-reserved"),
    ("featureGates: {CPUManagerPolicyBetaOptions: false}\n", "featureGates CPUManagerPolicyBetaOptions: false"),
    ("kubeReserved: {memory: 1Ti}\n", "kubeReserved memory 1Ti is more than the plan keeps from pods"),
    ("evictionHard: {memory.available: 5%}\n", "evictionHard memory.available '5%' is not a quantity of bytes"),
    ("cpuManagerPolicyOptions: {align-by-socket: \"true\"}\n", "align-by-socket"),
]


def check_refusals(tmp):
    base = "apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\n"
    args = ["--topology", "fixtures/crafted-hci-2s16c-8nvme.xml", "../profiles/hci-nvme.yaml"]
    cases = [(base + extra, says) for extra, says in REFUSED]
    bomb = "".join(f"{k}: &{k} [{', '.join([f'*{p}'] * 10)}]\n" for p, k in zip("abcd", "bcde"))
    cases += [("kind: Pod\n", "not a KubeletConfiguration"), (base + "a: [\n", ":4:1: "),
              (base + "---\nb: 1\n", "not one YAML mapping"),
              (base + "a: &a [x, x, x, x, x, x, x, x, x, x]\n" + bomb, "more than 100000 YAML nodes")]
    for text, says in cases:
        path = os.path.join(tmp, "k.yaml")
        with open(path, "w") as f:
            f.write(text)
        out = run("export", "--format", "kubelet", "--merge", path, *args)
        assert out.returncode == 2, f"{text!r}: exit {out.returncode}"
        assert out.stdout == "", text
        lines = out.stderr.splitlines()
        assert len(lines) == 1 and lines[0].startswith(f"placer: kubelet: --merge {path}") and says in lines[0], \
            f"{text!r}: {out.stderr}"
    out = run("export", "--format", "kubelet", "--target", "1.20", *args)
    assert out.returncode == 2 and out.stderr == \
        "placer: kubelet: --target 1.20: placer writes for kubelet 1.29, 1.30, 1.31, 1.32, 1.33, 1.34\n", out.stderr


def main():
    import tempfile
    checked = 0
    every_release = ("fixtures/crafted-hci-2s16c-8nvme.xml", "fixtures/crafted-epyc-1s4n-2l3x8c.xml",
                     "fixtures/mpibind-cts1-quartz-smt1.xml")
    for fixture in fixtures():
        for profile in PROFILES:
            for release in RELEASES if fixture in every_release else RELEASES[-1:]:
                checked += check(fixture, profile, release)
    assert checked >= 70, checked
    merged = 0
    for fixture in ("fixtures/crafted-hci-2s16c-8nvme.xml", "fixtures/crafted-epyc-1s4n-2l3x8c.xml"):
        for profile in ("../profiles/hci-nvme.yaml", "profiles/export-hci.yaml"):
            if run("plan", "--topology", fixture, profile).returncode == 0:
                check_merge(fixture, profile)
                merged += 1
    assert merged >= 3, merged
    with tempfile.TemporaryDirectory(prefix="placer-kubelet-") as tmp:
        check_refusals(tmp)
    print(f"kubelet configs read back and matched the plan: {checked} profile/fixture/release triples, "
          f"{merged} merged, {len(REFUSED) + 4} merges refused")


if __name__ == "__main__":
    main()
