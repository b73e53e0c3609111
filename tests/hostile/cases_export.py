"""The hostile cases of `placer export`'s command line (issue #35 F6, F7,
F18, F19; issue #36 item 12): --map files that are no file, too large, hold
a NUL or are long, --out directories with symbolic links planted in them, a
manifest placer did not write, a full disk half-way, an option given twice;
and the stale units of an earlier, larger export removed, nothing else."""
import os

from cases import MIB, case

HCI_XML = "{data}/fixtures/crafted-hci-2s16c-8nvme.xml"
HCI = "{data}/../profiles/hci-nvme.yaml"
EXPORT = ["placer", "export", "--topology", HCI_XML]
MANIFEST = ".placer-export.systemd"
UNITS = ["ceph-osd@%d.service.d" % i for i in range(8)] + ["ceph-mds@a.service.d"]


def export_case(name, setup, args, rc, stderr, **kw):
    case("export-" + name, setup, EXPORT + args + [HCI], rc, stderr, **kw)


def map_file(text, rel="map.txt"):
    return lambda ws: ws.write(rel, text)


MAP = ["--format", "ceph", "--map", "{w}/map.txt"]

# ---- --map: what is no map, or could not be one ----------------------------------------------------
export_case("map-dev-zero", lambda ws: ws.symlink("/dev/zero", "map.txt"), MAP, 2,
            r"--map '.*/map\.txt': a character device, not a regular file", mem_mib=32)
export_case("map-directory", lambda ws: os.mkdir(ws.path("map.txt")), MAP, 2,
            r"--map '.*/map\.txt': a directory, not a regular file")
export_case("map-fifo", lambda ws: ws.fifo("map.txt"), MAP, 2, r"--map '.*/map\.txt': a FIFO, not a regular file",
            timeout=10)
export_case("map-too-large", lambda ws: ws.sparse("map.txt", 40 * MIB), MAP, 2,
            r"--map '.*/map\.txt': larger than 32 MiB", mem_mib=32)
# a NUL ended the line where C reads it: osd.0 became Ceph's osd.99
export_case("map-nul", map_file(b"osd.0=99\x00 and whatever follows\n"), MAP, 2,
            r"map\.txt:1: a NUL byte in the line")
export_case("map-control", map_file("osd.0=5\x1b[2J\n"), MAP, 2, r"map\.txt:1: a control character in the line")
export_case("map-twice", map_file("osd.0=5\n# again\nosd.0=6\n"), MAP, 2, r"map\.txt:3: 'osd\.0' is mapped twice")
# 200,000 lines: quadratic, this took about a minute; linear, a fraction of a second
export_case("map-200k-lines", map_file("".join("x.%d=%d\n" % (i, i) for i in range(200000))), MAP, 2,
            r"map\.txt:1: no instance 'x\.0' in the plan of profile 'hci-nvme'", timeout=8)
export_case("map-200k-twice-at-end", map_file("".join("x.%d=%d\n" % (i, i) for i in range(200000)) + "x.7=1\n"), MAP,
            2, r"map\.txt:200001: 'x\.7' is mapped twice", timeout=8)

# ---- the command line ----------------------------------------------------------------------------
export_case("format-twice", lambda ws: None, ["--format", "nova", "--format", "ceph"], 2,
            r"placer export: --format given twice \('nova' and 'ceph'\): give it once")
export_case("out-twice", lambda ws: (os.mkdir(ws.path("a")), os.mkdir(ws.path("b"))),
            ["--format", "nova", "--out", "{w}/a", "--out", "{w}/b"], 2, r"--out given twice")
export_case("dry-run-without-out", lambda ws: None, ["--format", "nova", "--dry-run"], 2,
            r"--dry-run goes with --out")

# ---- --out: symbolic links, what placer did not write ---------------------------------------------


def out_with_link(ws):
    """out/ceph-osd@0.service.d a link to a directory of someone else's."""
    os.mkdir(ws.path("out"))
    ws.decoy("elsewhere/50-placer.conf")
    ws.symlink("{w}/elsewhere", "out/ceph-osd@0.service.d")


SYSTEMD_OUT = ["--format", "systemd", "--out", "{w}/out"]
export_case("out-symlinked-unit-d", out_with_link, SYSTEMD_OUT, 2,
            r"--out .*/out: ceph-osd@0\.service\.d is a symbolic link \(placer writes through none\), not a directory")
export_case("out-symlinked-file", lambda ws: (ws.decoy("secret"), ws.symlink("{w}/secret", "out/nova.conf")),
            ["--format", "nova", "--out", "{w}/out"], 2,
            r"--out .*/out: nova\.conf is a symbolic link \(placer writes through none\), not a file placer replaces")
export_case("out-is-symlink", lambda ws: (os.mkdir(ws.path("real")), ws.symlink("{w}/real", "out")), SYSTEMD_OUT,
            2, r"--out .*/out: a symbolic link \(placer writes through none: name the directory itself\)")
export_case("out-manifest-forged", lambda ws: (ws.decoy("out/ceph.conf"),
                                               ws.write("out/.placer-export.nova", "wrote ceph.conf\nwrote ../x\n")),
            ["--format", "nova", "--out", "{w}/out"], 2,
            r"--out .*/out: \.placer-export\.nova:2: not a line placer writes")
export_case("out-manifest-symlink", lambda ws: (ws.decoy("secret"), ws.symlink("{w}/secret", "out/.placer-export.nova")),
            ["--format", "nova", "--out", "{w}/out"], 2, r"\.placer-export\.nova is a symbolic link")


def earlier_export(ws, *extra):
    """out/ as an export with osd.7 in another unit left it (a map that names it), and files
    of the user's beside placer's."""
    os.mkdir(ws.path("out"))
    ws.write("map.txt", "osd.7=other@7.service\n")
    ws.run_placer("export", "--topology", HCI_XML, "--format", "systemd", "--out", "{w}/out", "--map", "{w}/map.txt",
                  *extra, HCI)
    ws.decoy("out/ceph.conf")
    ws.decoy("out/other@7.service.d/10-mine.conf")


def stale_removed(ws, rc, out, err):
    listing = sorted(os.listdir(ws.path("out")))
    want = sorted(UNITS + ["ceph.conf", "other@7.service.d", MANIFEST])
    if listing != want:
        return "out/ holds %s, expected %s" % (listing, want)
    if os.listdir(ws.path("out/other@7.service.d")) != ["10-mine.conf"]:
        return "out/other@7.service.d holds %s" % os.listdir(ws.path("out/other@7.service.d"))
    for rel in ("out/ceph.conf", "out/other@7.service.d/10-mine.conf"):
        with open(ws.path(rel), "rb") as f:
            if not f.read().startswith(b"precious data\n"):
                return rel + " changed"
    lines = out.decode().splitlines()
    if lines != ["wrote ceph-osd@7.service.d/50-placer.conf", "removed other@7.service.d/50-placer.conf"]:
        return "stdout %r" % lines
    with open(ws.path("out/" + MANIFEST)) as f:
        if "other@7" in f.read():
            return "the manifest still lists other@7.service.d"


# an earlier, larger set: its unit osd.7 no longer has is removed, nothing of the user's
export_case("out-stale-unit", earlier_export, SYSTEMD_OUT, 0, r"note: vm\.2: no systemd service known", lines=3,
            changes=("out",), check=stale_removed)


def full_disk(ws):
    """A file size limit (ulimit -f 1: 512 bytes) that every drop-in fits in, the manifest,
    written last, not: placer stops half-way, as on a full disk."""
    earlier_export(ws)
    ws.write("run.sh", "trap '' XFSZ\nulimit -f 1\nexec \"$@\"\n")


case("export-out-full-disk", full_disk, ["/bin/sh", "{w}/run.sh"] + EXPORT + SYSTEMD_OUT + [HCI], 4,
     r"--out .*/out: write \.placer-export\.systemd: File too large")
