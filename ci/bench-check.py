#!/usr/bin/python3
"""Check that a `placer bench` results directory is well-formed and complete.

usage: bench-check.py RESULTS_DIR [--placer BIN [--study STUDY.yaml]]
                      [--roles osd,mon,mgr,fio] [--allow-interrupted] [--min-runs N]

It checks what a study must have produced, never which variant won:
  - summary.json is format placer-bench-results version 1, not interrupted;
  - every (variant, condition, workload, repeat) of the study's shape is in runs[]
    exactly once, with I/O done (main metric > 0), a measured window, no failed fio
    job, and its raw fio JSON in the directory (parsed, no job error);
  - every cell of summary.cells has all its repeats done and a median;
  - under a neighbour condition: the neighbours' rate of every run > 0, a solo rate
    for every variant in every pass with runs (results written before summary.json
    recorded each variant's `set`: in the first pass), and the interference ratios present;
  - the roles named by --roles have CPU time > 0 in every run, peak RSS > 0 where a
    process was sampled, a memory locality (local_mem_share) in [0, 1] for every
    instance, 1.0 on a host with one NUMA node; per-core utilisation is there;
  - runs.csv has one row per run, the runs of summary.json; roles.csv, cores.csv,
    placement.csv are not empty; every row of the CSV files has the header's fields;
    report.txt starts with the title;
  - with --placer: every process in placement.csv of a pinned instance had exactly
    the cpus `placer plan --json PROFILE` gives it (Cpus_allowed_list), and those of
    unpinned instances had all of them; each variant planned with the changes of its
    profile summary.json records (study.variants[].set: its `set:` and a sweep step's,
    `placer plan --set`); for results written before it recorded them, --study gives
    the study file whose variants' `set:` to use (a variant a sweep made is then planned
    as its base: a quota or weight sweep keeps the cpus).
Exit 0 with one line "bench-check: OK: ..." or 1 listing every problem.
"""
import csv
import json
import os
import subprocess
import sys


def cpuset(text):
    out = set()
    for part in (text or "").split(","):
        part = part.strip()
        if not part:
            continue
        if "-" in part:
            a, b = part.split("-")
            out.update(range(int(a), int(b) + 1))
        else:
            out.add(int(part))
    return out


def main(argv):
    args = argv[1:]
    if not args or args[0].startswith("-"):
        print(__doc__, file=sys.stderr)
        return 2
    out = args.pop(0)
    placer = None
    study = None
    roles = []
    allow_interrupted = False
    while args:
        a = args.pop(0)
        if a == "--placer":
            placer = args.pop(0)
        elif a == "--study":
            study = args.pop(0)
        elif a == "--roles":
            roles = [r for r in args.pop(0).split(",") if r]
        elif a == "--allow-interrupted":
            allow_interrupted = True
        else:
            print(f"bench-check: unknown argument {a}", file=sys.stderr)
            return 2

    problems = []
    host_nodes = len([d for d in os.listdir("/sys/devices/system/node")
                      if d.startswith("node") and d[4:].isdigit()])

    def bad(msg):
        problems.append(msg)

    try:
        with open(os.path.join(out, "summary.json")) as f:
            s = json.load(f)
    except (OSError, ValueError) as e:
        print(f"bench-check: FAIL: summary.json: {e}", file=sys.stderr)
        return 1
    if s.get("format") != "placer-bench-results" or s.get("version") != 1:
        bad(f"summary.json: format/version {s.get('format')}/{s.get('version')}")
    if s.get("interrupted") and not allow_interrupted:
        bad("summary.json: the study was interrupted")
    variants = s.get("variants") or []
    workloads = [w["name"] for w in s.get("workloads") or []]
    patterns = {w["name"]: w.get("pattern", "") for w in s.get("workloads") or []}
    # a workload's operations: a block one's reads and writes, a metadata one's creates, stats and deletes
    metadata = {w["name"] for w in s.get("workloads") or [] if w.get("kind") == "metadata"}
    conditions = {c["name"]: c["neighbour_level"] for c in s.get("conditions") or []}
    repeats = s.get("repeats") or 0
    if not variants or not workloads or not conditions or repeats < 1:
        bad("summary.json: empty study shape")

    seen = {}
    for r in s.get("runs") or []:
        key = (r.get("variant"), r.get("condition"), r.get("workload"), r.get("repeat"))
        seen[key] = seen.get(key, 0) + 1
        where = "run %s/%s/%s/r%s" % key
        if r.get("fio_failed_jobs"):
            bad(f"{where}: {r['fio_failed_jobs']} fio job(s) failed")
        d = r.get("duration_s")
        if not isinstance(d, (int, float)) or d <= 0:
            bad(f"{where}: no measured window (duration_s {d})")
        pat = patterns.get(r.get("workload"), "")
        sides = ["read"] if "read" in pat and "write" not in pat and pat != "rw" else \
            ["write"] if "write" in pat and "read" not in pat else ["read", "write"]
        if r.get("workload") in metadata:
            for op in ("create", "stat", "delete"):
                if not ((r.get(op) or {}).get("total_ios") or 0) > 0:
                    bad(f"{where}: fio did no {op}")
        elif sum((r.get(side) or {}).get("total_ios") or 0 for side in sides) <= 0:
            bad(f"{where}: fio did no {'/'.join(sides)} I/O")
        fj = r.get("fio_json")
        if not fj:
            bad(f"{where}: no raw fio JSON")
        else:
            try:
                with open(os.path.join(out, fj)) as f:
                    text = f.read()
                raw = json.loads(text[text.index("{"):])
                errs = [j.get("error") for j in raw.get("jobs", []) if j.get("error")]
                if errs:
                    bad(f"{where}: {fj}: job errors {errs}")
            except (OSError, ValueError) as e:
                bad(f"{where}: {fj}: {e}")
        level = conditions.get(r.get("condition"), 0)
        rate = r.get("neighbour_rate")
        if level and not (isinstance(rate, (int, float)) and rate > 0):
            bad(f"{where}: no neighbour work rate ({rate})")
        by_role = {}
        for u in r.get("roles") or []:
            by_role.setdefault(u["role"], []).append(u)
        for role in roles:
            us = by_role.get(role)
            if not us:
                bad(f"{where}: no CPU sample of role {role}")
            elif sum(u.get("cpu_ns") or 0 for u in us) <= 0:
                bad(f"{where}: role {role} used no CPU")
            for u in us or []:
                share = u.get("local_mem_share")
                if not (isinstance(share, (int, float)) and 0 <= share <= 1):
                    bad(f"{where}: {u['instance']}: no memory locality ({share})")
                elif host_nodes == 1 and share != 1:
                    bad(f"{where}: {u['instance']}: memory locality {share} on a 1-node host")
        if not r.get("cpu_busy"):
            bad(f"{where}: no per-core utilisation")
    for v in variants:
        for c in conditions:
            for w in workloads:
                for k in range(repeats):
                    n = seen.get((v, c, w, k), 0)
                    if n != 1:
                        bad(f"run {v}/{c}/{w}/r{k}: present {n} times")
    expected = len(variants) * len(conditions) * len(workloads) * repeats

    cells = (s.get("summary") or {}).get("cells") or []
    if len(cells) != len(variants) * len(conditions) * len(workloads):
        bad(f"summary.cells: {len(cells)} cells")
    for cell in cells:
        where = f"cell {cell.get('variant')}/{cell.get('condition')}/{cell.get('workload')}"
        if cell.get("repeats_done") != repeats:
            bad(f"{where}: {cell.get('repeats_done')} of {repeats} repeats done")
        if (cell.get("main") or {}).get("median") is None:
            bad(f"{where}: no median")
        if conditions.get(cell.get("condition")) and cell.get("neighbours_with_storage_vs_solo") is None:
            bad(f"{where}: no interference ratio")
    # The neighbours' solo rate: a solo run in every pass that has runs next to them (the
    # denominator of that pass's shares).  Results written before every pass measured one
    # (their study.variants record no `set`) have the first pass's only.
    solo = {(x["variant"], x["condition"], x["repeat"]) for x in s.get("solo") or []
            if (x.get("neighbour_rate") or 0) > 0}
    per_pass = all("set" in v for v in (s.get("study") or {}).get("variants") or [{}])
    for v in variants:
        for c, level in conditions.items():
            if not level:
                continue
            passes = sorted({k for (rv, rc, _, k) in seen if rv == v and rc == c}) if per_pass else [0]
            for k in passes:
                if (v, c, k) not in solo:
                    bad(f"no solo rate of the neighbours for {v}/{c} in pass {k}")

    def rows(name):
        try:
            with open(os.path.join(out, name), newline="") as f:
                table = list(csv.reader(f))
        except OSError as e:
            bad(f"{name}: {e}")
            return []
        if not table:
            bad(f"{name}: no header")
            return []
        header = table[0]
        for n, row in enumerate(table[1:], 2):
            if len(row) != len(header):  # a row cut short (a full disk) or two run together
                bad(f"{name}:{n}: {len(row)} fields, the header has {len(header)}")
        return [dict(zip(header, row)) for row in table[1:]]

    run_rows = rows("runs.csv")
    if len(run_rows) != expected:
        bad(f"runs.csv: not {expected} rows")
    in_csv = sorted((r.get("variant"), r.get("repeat"), r.get("condition"), r.get("workload")) for r in run_rows)
    in_json = sorted((r.get("variant"), str(r.get("repeat")), r.get("condition"), r.get("workload"))
                     for r in s.get("runs") or [])
    if in_csv != in_json:
        bad(f"runs.csv: its runs are not summary.json's ({len(in_csv)} rows, {len(in_json)} runs)")
    for name in ("roles.csv", "cores.csv", "placement.csv"):
        if not rows(name):
            bad(f"{name}: empty")
    for name in ("threads.csv", "solo.csv"):
        rows(name)
    try:
        with open(os.path.join(out, "report.txt")) as f:
            first = f.readline()
        if not first.startswith("placer bench: " + (s.get("title") or "")):
            bad(f"report.txt: first line {first!r}")
    except OSError as e:
        bad(f"report.txt: {e}")

    checked = 0
    if placer:
        recorded = (s.get("study") or {}).get("variants") or []
        profiles = {v["name"]: v["profile"] for v in recorded}
        # each variant's changes of its profile as bench planned it (a sweep step's too);
        # results written before summary.json recorded them: the study file's set:, if given
        sets = {v["name"]: [a for kv in v["set"] for a in ("--set", kv)] for v in recorded if "set" in v}
        if study and not sets:
            import yaml
            with open(study) as f:
                for v in yaml.safe_load(f).get("variants") or []:
                    sets[v["name"]] = [a for kv in v.get("set") or [] for a in ("--set", kv)]
        plans = {}
        for v, path in profiles.items():
            p = subprocess.run([placer, "plan", "--json", *sets.get(v, []), path], capture_output=True, text=True)
            if p.returncode != 0:
                bad(f"placer plan {path}: {p.stderr.strip()}")
                continue
            plans[v] = {i["name"]: i for i in json.loads(p.stdout)["instances"]}
        for row in rows("placement.csv"):
            inst = plans.get(row["variant"], {}).get(row["instance"])
            if inst is None:
                bad(f"placement.csv: {row['variant']}/{row['instance']} not in the plan")
                continue
            want = cpuset(inst["cpus"])
            have = cpuset(row["cpus_allowed"])
            if not row["cpus_allowed"]:
                bad(f"placement.csv: {row['variant']}/r{row['repeat']} {row['process']}: not read")
            elif have != want:
                bad(f"placement.csv: {row['variant']}/r{row['repeat']} {row['process']} (pid {row['pid']}) "
                    f"ran on cpus {row['cpus_allowed']}, plan says {inst['cpus']}")
            checked += 1
    if problems:
        for p in problems:
            print(f"bench-check: {p}", file=sys.stderr)
        print(f"bench-check: FAIL: {len(problems)} problem(s) in {out}", file=sys.stderr)
        return 1
    print(f"bench-check: OK: {len(variants)} variants x {len(conditions)} conditions x {len(workloads)} workloads "
          f"x {repeats} repeats = {expected} runs, all measured"
          + (f"; {checked} processes where their plan put them" if placer else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
