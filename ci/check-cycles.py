#!/usr/bin/python3
"""No call cycle between C files: no file calls into one that (directly or through others) calls
back into it.  The call graph is read from the built object files (nm: the functions each file
defines, T, and the symbols it uses, U); a reference to a data symbol, such as an ops table, is
not a call.  Prints each cycle as a strongly connected component; exit 1 when there is one.

  ci/check-cycles.py BUILD_DIR      (after ci/build.sh; ci/test.sh runs it)
"""
import collections
import glob
import os
import subprocess
import sys


def main():
    build = sys.argv[1] if len(sys.argv) > 1 else "build"
    objs = glob.glob(os.path.join(build, "CMakeFiles", "placer_core.dir", "placer", "**", "*.o"), recursive=True)
    objs += glob.glob(os.path.join(build, "CMakeFiles", "placer.dir", "placer", "**", "*.o"), recursive=True)
    if not objs:
        print(f"check-cycles: no object files under {build}: build first", file=sys.stderr)
        return 2
    defined, used = {}, collections.defaultdict(set)
    # One nm for every object (-A: each line starts with "FILE.o:"): one nm per object was 220
    # processes, 12 s here (35 s beside the background image builds of a fresh run).
    out = subprocess.run(["nm", "-A"] + objs, capture_output=True, text=True, check=True).stdout
    for line in out.splitlines():
        path, sep, rest = line.partition(".o:")
        if not sep:
            continue
        name = "placer/" + path.split(os.sep + "placer" + os.sep, 1)[1]
        f = rest.split()
        if len(f) == 3 and f[1] == "T":
            defined[f[2]] = name
        elif len(f) == 2 and f[0] == "U":
            used[name].add(f[1])
    calls = collections.defaultdict(set)
    for f, syms in used.items():
        for s in syms:
            if s in defined and defined[s] != f:
                calls[f].add(defined[s])
    # Tarjan's strongly connected components, iteratively
    index, low, stack, on, cycles, counter = {}, {}, [], set(), [], [0]
    for root in sorted(calls):
        if root in index:
            continue
        work = [(root, iter(sorted(calls[root])))]
        index[root] = low[root] = counter[0]; counter[0] += 1; stack.append(root); on.add(root)
        while work:
            v, it = work[-1]
            w = next(it, None)
            if w is not None:
                if w not in index:
                    index[w] = low[w] = counter[0]; counter[0] += 1; stack.append(w); on.add(w)
                    work.append((w, iter(sorted(calls[w]))))
                elif w in on:
                    low[v] = min(low[v], index[w])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                comp = []
                while True:
                    w = stack.pop(); on.discard(w); comp.append(w)
                    if w == v:
                        break
                if len(comp) > 1:
                    cycles.append(sorted(comp))
    for comp in cycles:
        edges = [f"{a} -> {b}" for a in comp for b in sorted(calls[a]) if b in comp]
        print(f"check-cycles: a call cycle between {', '.join(comp)}: {'; '.join(edges)}", file=sys.stderr)
    if cycles:
        return 1
    print(f"check-cycles: {len(used)} files, no call cycle between them")
    return 0


if __name__ == "__main__":
    sys.exit(main())
