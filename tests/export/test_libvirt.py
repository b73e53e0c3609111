#!/usr/bin/env python3
"""placer export --format libvirt --merge DOMAIN.xml (issue #36, finding 11): the whole domain,
validated by libvirt's own schema (virt-xml-validate, libvirt's RNG), read back with ElementTree:
- every element and attribute placer does not own is as it was: <vcpu>'s count and current,
  <cputune>'s shares, period, quota and iothreadpin, <numatune>'s memnode, the devices, ...;
- placer's: <vcpu placement='static' cpuset=the instance's CPUs>, a vcpupin for every vCPU the
  domain has (not only the planned count) on the PU the plan gives it, the emulator on the host
  reserve (pinned vCPUs) or the instance's CPUs, <numatune><memory mode='strict' nodeset=its nodes>;
- an IOThread without an iothreadpin gets one on the emulator's CPUs (libvirt would run it on
  <vcpu cpuset>, beside the vCPUs);
- a domain without <vcpu>/<cputune>/<numatune> gets them; what contradicts the plan (an IOThread
  pinned on another role's CPUs, a guest node's memory on another host node), a DOCTYPE, another
  root, a domain that is no vm instance's, a bad vCPU count and broken XML are refused with one
  line, exit 2, nothing on stdout."""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from exportlib import TESTS, cpus, run  # noqa: E402

if shutil.which("virt-xml-validate") is None:
    print("virt-xml-validate missing (libvirt-clients: sh ci/install-deps.sh all)")
    sys.exit(77)

FIXTURE = "fixtures/crafted-hci-2s16c-8nvme.xml"
PROFILE = "profiles/export-hci.yaml"
DOMAIN = "fixtures/export/libvirt-pinned-0.xml"
OWNED = {"vcpu", "cputune", "numatune"}


def merged(path, extra=()):
    out = run("export", "--format", "libvirt", "--merge", path, *extra, "--topology", FIXTURE, PROFILE)
    return out


def merged_valid(root, tmp, inst, plan, vcpus):
    """The domain ROOT (an ElementTree element) through --merge: libvirt's schema takes it, and it is ROOT with
    the placement of INST (its VCPUS vCPUs)."""
    path = os.path.join(tmp, root.find("name").text + ".xml")
    ET.ElementTree(root).write(path)
    out = merged(path)
    assert out.returncode == 0, out.stderr
    validate(out.stdout, tmp)
    check_domain(root, ET.fromstring(out.stdout.split("-->", 2)[2]), inst, plan, vcpus)


def validate(text, tmp):
    path = os.path.join(tmp, "merged.xml")
    with open(path, "w") as f:
        f.write(text)
    r = subprocess.run(["virt-xml-validate", path, "domain"], capture_output=True, text=True)
    assert r.returncode == 0, f"virt-xml-validate: {r.stdout}{r.stderr}\n{text}"


def same(a, b):
    """Equal elements, whatever the whitespace between them (libxml2 indents its own way)."""
    def norm(e):
        return (e.tag, sorted(e.attrib.items()), (e.text or "").strip(), [norm(c) for c in e])
    return norm(a) == norm(b)


def check_domain(mine, got, inst, plan, vcpus):
    where = inst["name"]
    for before in mine:
        if before.tag in OWNED:
            continue
        after = got.find(before.tag)
        assert after is not None and same(after, before), f"{where}: <{before.tag}> changed"
    vcpu = got.find("vcpu")
    assert vcpu.get("placement") == "static" and cpus(vcpu.get("cpuset")) == cpus(inst["cpus"]), where
    assert int(vcpu.text) == vcpus, f"{where}: the vCPU count {vcpu.text}, the domain's is {vcpus}"
    old_vcpu = mine.find("vcpu")
    if old_vcpu is not None and old_vcpu.get("current"):
        assert vcpu.get("current") == old_vcpu.get("current"), f"{where}: <vcpu current> lost"
    pus = sorted(cpus(inst["cpus"]))
    pins = {int(p.get("vcpu")): p.get("cpuset") for p in got.findall("cputune/vcpupin")}
    if inst["pin_vcpus"]:
        assert pins == {k: str(pus[k % len(pus)]) for k in range(vcpus)}, f"{where}: vcpupin {pins}"
    else:
        assert pins == {}, where
    emulator = cpus(got.find("cputune/emulatorpin").get("cpuset"))
    want = cpus(plan["reserved"]["cpus"]) if inst["pin_vcpus"] and plan["reserved"]["cpus"] else cpus(inst["cpus"])
    assert emulator == want, f"{where}: emulatorpin"
    assert len(got.findall("cputune/emulatorpin")) == 1, where
    memory = got.findall("numatune/memory")
    assert len(memory) == 1 and memory[0].get("mode") == "strict" and \
        cpus(memory[0].get("nodeset")) == cpus(inst["mems"]), f"{where}: numatune memory"
    pinned_io = {p.get("iothread") for p in mine.findall("cputune/iothreadpin")}
    io = int(mine.findtext("iothreads") or 0)
    for pin in got.findall("cputune/iothreadpin"):
        if pin.get("iothread") not in pinned_io:
            assert cpus(pin.get("cpuset")) == want, f"{where}: IOThread {pin.get('iothread')} not on the emulator's"
    assert len(got.findall("cputune/iothreadpin")) == max(io, len(pinned_io)), f"{where}: an IOThread unpinned"
    got_kept = [p for p in got.findall("cputune/iothreadpin") if p.get("iothread") in pinned_io]
    assert len(got_kept) == len(pinned_io) and all(
        same(a, b) for a, b in zip(got_kept, mine.findall("cputune/iothreadpin"))), f"{where}: an iothreadpin changed"
    for tag in ("cputune/shares", "cputune/period", "cputune/quota", "numatune/memnode"):
        old = mine.findall(tag)
        new = got.findall(tag)
        assert len(new) == len(old) and all(same(a, b) for a, b in zip(new, old)), f"{where}: {tag}"


def main():
    plan = json.loads(run("plan", "--json", "--topology", FIXTURE, PROFILE).stdout)
    insts = {i["name"]: i for i in plan["instances"]}
    with tempfile.TemporaryDirectory(prefix="placer-libvirt-") as tmp:
        # the fixture as it is, and a bare domain (no vcpu, cputune, numatune) for a pooled guest
        out = merged(DOMAIN)
        assert out.returncode == 0, out.stderr
        validate(out.stdout, tmp)
        mine = ET.parse(os.path.join(TESTS, DOMAIN)).getroot()
        check_domain(mine, ET.fromstring(out.stdout.split("-->", 2)[2]), insts["pinned.0"], plan, 4)
        # an IOThread without an iothreadpin gets one, on the emulator's CPUs
        unpinned = ET.fromstring(open(os.path.join(TESTS, DOMAIN)).read().split("-->", 1)[1])
        unpinned.find("cputune").remove(unpinned.find("cputune/iothreadpin"))
        merged_valid(unpinned, tmp, insts["pinned.0"], plan, 4)
        bare = ET.fromstring(open(os.path.join(TESTS, DOMAIN)).read().split("-->", 1)[1])
        bare.find("name").text = "vm-2"
        for tag in OWNED:
            bare.remove(bare.find(tag))
        bare.remove(bare.find("iothreads"))
        bare.find("cpu").remove(bare.find("cpu/numa"))
        bare.find("devices/disk/driver").attrib.pop("iothread")
        merged_valid(bare, tmp, insts["vm.2"], plan, 2)
        # refused: one line, exit 2, nothing on stdout
        text = open(os.path.join(TESTS, DOMAIN)).read()
        cases = [
            (text.replace("iothread='1' cpuset='38'", "iothread='1' cpuset='2'"),
             "<iothreadpin cpuset='2'> puts an IOThread outside the guest's CPUs and its emulator's (0-1,32-33,38-39)"),
            (text.replace("cellid='0' mode='strict' nodeset='1'", "cellid='0' mode='strict' nodeset='0'"),
             "<memnode nodeset='0'> binds a guest node's memory outside the plan's NUMA node(s) 1"),
            ("<!DOCTYPE domain [<!ENTITY x SYSTEM 'file:///etc/passwd'>]>\n" + text.split("-->", 1)[1],
             "a DOCTYPE"),
            ("<network><name>pinned-0</name></network>\n", "not a libvirt domain (its root element is <network>)"),
            (text.replace("<name>pinned-0</name>", "<name>other</name>"),
             "domain 'other' is no vm instance's of the plan (its qemu_name match, or --map INSTANCE=other)"),
            (text.replace(">4</vcpu>", ">four</vcpu>"), "<vcpu>four</vcpu> is not a count of vCPUs"),
            (text.replace("</domain>", ""), ": "),
        ]
        for i, (bad, says) in enumerate(cases):
            path = os.path.join(tmp, f"bad{i}.xml")
            with open(path, "w") as f:
                f.write(bad)
            out = merged(path)
            lines = out.stderr.splitlines()
            assert out.returncode == 2 and out.stdout == "", f"case {i}: exit {out.returncode}"
            assert len(lines) == 1 and lines[0].startswith(f"placer: libvirt: --merge {path}") and says in lines[0], \
                f"case {i}: {out.stderr}"
        # --map names the domain of an instance too
        mapped = os.path.join(tmp, "map")
        with open(mapped, "w") as f:
            f.write("pinned.1=vm-2\nvm.2=elsewhere\n")
        out = merged(os.path.join(tmp, "vm-2.xml"), ("--map", mapped))
        assert out.returncode == 0, out.stderr
        assert "<!-- pinned.1 (role pinned): domain 'vm-2'" in out.stdout, out.stdout
        check_domain(bare, ET.fromstring(out.stdout.split("-->", 2)[2]), insts["pinned.1"], plan, 2)
    print(f"libvirt --merge: 4 domains merged and valid, {len(cases)} refused")


if __name__ == "__main__":
    main()
