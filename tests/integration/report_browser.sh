#!/bin/sh
# placer report in a real browser: from recorded results directories
# (tests/fixtures/results/sweep-2osd, a real bench run with a neighbour sweep; quota-2osd,
# one with bench's quota sweep (split.svg); interrupted-early, a study stopped in its third
# run; tests/golden/bench/ab.json), `placer report`
# (--compare) writes report.html whose every
# reference (img src, href) is a file inside the results directory that exists and is
# not empty, every SVG is an <svg> document that gnuplot drew (paths, text), and
# headless Chromium renders the page to a PNG that is not blank (many colours, plenty of
# non-white pixels).  A results directory without summary.json is refused (exit 2).
# No root needed; skipped (77) without gnuplot or chromium.
set -u
PLACER=${PLACER_BIN:?PLACER_BIN not set}
DATA=${PLACER_TEST_DATA:?PLACER_TEST_DATA not set}
T=report_browser
. "${PLACER_SOURCE_DIR:?PLACER_SOURCE_DIR not set}/tests/integration/lib/common.sh"
command -v gnuplot >/dev/null 2>&1 || skip "gnuplot not installed (Debian: gnuplot-nox)"
CHROMIUM=$(command -v chromium || command -v chromium-browser || true)
[ -n "$CHROMIUM" ] || skip "chromium not installed"
PY=/usr/bin/python3
[ -x "$PY" ] || skip "python3 not installed"

t_begin
work=$T_WORK
cpid=""
# chromium's zygote and renderers are in its own process group
t_defer '[ -z "$cpid" ] || kill -9 -- "-$cpid" 2>/dev/null'

a=$work/sweep
b=$work/ab
q=$work/quota
mkdir -p "$a" "$b" "$q"
cp "$DATA/fixtures/results/sweep-2osd/summary.json" "$a/" || fail "no recorded sweep results"
cp "$DATA/golden/bench/ab.json" "$b/summary.json"
cp "$DATA/fixtures/results/quota-2osd/summary.json" "$q/" || fail "no recorded quota sweep results"
"$PLACER" report "$q" >/dev/null 2>"$work/err" || fail "report quota: $(cat "$work/err")"
grep -q 'src="report/split.svg"' "$q/report.html" || fail "a quota sweep's page has no split.svg"

# A study stopped in its third run (tests/fixtures/results/interrupted-early): no neighbour rate
# anywhere, yet the page is drawn (the sweep without its neighbour axis).
e=$work/early
mkdir "$e" && cp "$DATA/fixtures/results/interrupted-early/summary.json" "$e/"
"$PLACER" report "$e" >/dev/null 2>"$work/err" || fail "report of a study stopped early: $(cat "$work/err")"
grep -q 'src="report/sweep.svg"' "$e/report.html" && [ -s "$e/report/sweep.svg" ] || fail "a study stopped early: no sweep.svg"
! grep -q "x1y2" "$e/report/sweep.gp" || fail "a study stopped early: the sweep plots a neighbour axis without a point"

"$PLACER" report "$b" >"$work/out-b" 2>"$work/err" || fail "report ab: $(cat "$work/err")"
"$PLACER" report --compare "$b" "$a" >"$work/out" 2>"$work/err" || fail "report --compare: $(cat "$work/err")"
[ "$(cat "$work/out")" = "$a/report.html" ] || fail "printed '$(cat "$work/out")', not the page's path"

mkdir "$work/empty"
"$PLACER" report "$work/empty" >/dev/null 2>"$work/err"
rc=$?
[ "$rc" = 2 ] || fail "a directory without summary.json: exit $rc, expected 2"
grep -q "summary.json" "$work/err" || fail "the error does not name summary.json: $(cat "$work/err")"

# the references and the SVGs
for page in "$a/report.html" "$b/report.html" "$q/report.html"; do
  "$PY" - "$page" <<'EOF' || fail "references of $page"
import os, sys, xml.etree.ElementTree as ET
from html.parser import HTMLParser
page = sys.argv[1]
base = os.path.dirname(page)
refs = []
class P(HTMLParser):
    def handle_starttag(self, tag, attrs):
        for k, v in attrs:
            if k in ("src", "href"):
                refs.append(v)
P().feed(open(page, encoding="utf-8").read())
svgs = [r for r in refs if r.endswith(".svg")]
if len(svgs) < 5:
    sys.exit("only %d SVG plots: %s" % (len(svgs), refs))
for r in refs:
    if "://" in r or r.startswith("/"):
        sys.exit("reference outside the results directory: " + r)
    path = os.path.normpath(os.path.join(base, r))
    if not path.startswith(base + os.sep):
        sys.exit("reference escapes the directory: " + r)
    if not os.path.isfile(path) or os.path.getsize(path) == 0:
        sys.exit("broken or empty reference: " + r)
    if r.endswith(".svg"):
        root = ET.parse(path).getroot()
        if not root.tag.endswith("svg"):
            sys.exit(r + ": not an SVG document")
        paths = sum(1 for e in root.iter() if e.tag.endswith("path"))
        texts = sum(1 for e in root.iter() if e.tag.endswith("text"))
        if paths < 5 or texts < 5:
            sys.exit("%s: %d paths, %d texts: nothing drawn?" % (r, paths, texts))
print("%s: %d references, %d SVGs, all there" % (os.path.basename(os.path.dirname(page)), len(refs), len(svgs)))
EOF
done
grep -q "balance point" "$a/report.html" || fail "the sweep plot's caption is missing"
grep -q "Compared with" "$a/report.html" || fail "no comparison section"

# the browser
png=$work/page.png
setsid "$CHROMIUM" --headless --no-sandbox --disable-gpu --hide-scrollbars --user-data-dir="$work/chromium" \
  --window-size=1100,4000 --screenshot="$png" "file://$a/report.html" >"$work/chromium.log" 2>&1 &
cpid=$!
i=0
while kill -0 "$cpid" 2>/dev/null && [ $i -lt 120 ]; do sleep 0.5; i=$((i + 1)); done
kill -0 "$cpid" 2>/dev/null && fail "chromium did not finish in 60 s"
wait "$cpid"
crc=$?
cpid=""
[ "$crc" = 0 ] || fail "chromium exit $crc: $(tail -5 "$work/chromium.log")"
"$PY" - "$png" <<'EOF' || fail "screenshot"
import struct, sys, zlib
data = open(sys.argv[1], "rb").read()
if data[:8] != b"\x89PNG\r\n\x1a\n":
    sys.exit("not a PNG")
pos, idat, w, h = 8, b"", 0, 0
while pos < len(data):
    n, kind = struct.unpack(">I4s", data[pos:pos + 8])
    chunk = data[pos + 8:pos + 8 + n]
    if kind == b"IHDR":
        w, h, depth, ctype = struct.unpack(">IIBB", chunk[:10])
        if depth != 8 or ctype not in (2, 6):
            sys.exit("unexpected PNG format %d/%d" % (depth, ctype))
        bpp = 3 if ctype == 2 else 4
    elif kind == b"IDAT":
        idat += chunk
    pos += 12 + n
raw = zlib.decompress(idat)
stride = w * bpp
prev = bytearray(stride)
colours, nonwhite, total = set(), 0, 0
off = 0
for y in range(h):
    f = raw[off]; line = bytearray(raw[off + 1:off + 1 + stride]); off += 1 + stride
    for x in range(stride):
        a = line[x - bpp] if x >= bpp else 0
        b = prev[x]; c = prev[x - bpp] if x >= bpp else 0
        if f == 1: line[x] = (line[x] + a) & 255
        elif f == 2: line[x] = (line[x] + b) & 255
        elif f == 3: line[x] = (line[x] + (a + b) // 2) & 255
        elif f == 4:
            p = a + b - c; pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
            line[x] = (line[x] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
    prev = line
    if y % 4 == 0:
        for x in range(0, w, 4):
            px = bytes(line[x * bpp:x * bpp + 3])
            colours.add(px); total += 1
            nonwhite += px != b"\xff\xff\xff"
share = nonwhite / total
print("screenshot %dx%d: %d colours, %.1f%% not white" % (w, h, len(colours), 100 * share))
if len(colours) < 20 or share < 0.05:
    sys.exit("the page looks blank")
EOF
say "PASS"
