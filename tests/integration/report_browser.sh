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
# The page opens with the answer (issue #28): its verdict table, read from the DOM that
# headless Chromium builds (--dump-dom), has every verdict of summary.json (summary.verdicts:
# cell, change, 95% CI, p, test, and "significant" in green or "inconclusive" in amber), before
# any plot; a sweep's balance point sentence and its plot come next; the text report is linked.
# The hand-built results of the issue's two studies (tests/fixtures/results/issue28-*: the
# 2-core default study, the 16-core cluster-none one) re-reported give no "physical limit" and
# no efficiency above 100% without the CPU model's label; the default study's page has the text
# report's "where the time went" (Ceph's counters, its ceph-counters.csv beside summary.json).
# No root needed; skipped (77) without gnuplot or chromium.
set -u
PLACER=${PLACER_BIN:?PLACER_BIN not set}
DATA=${PLACER_TEST_DATA:?PLACER_TEST_DATA not set}
T=report_browser
. "${PLACER_SOURCE_DIR:?PLACER_SOURCE_DIR not set}/tests/integration/lib/common.sh"
need_cmd gnuplot
CHROMIUM=$(command -v chromium || command -v chromium-browser || true)
[ -n "$CHROMIUM" ] || skip "chromium not installed (ci/install-deps.sh all)"
PY=/usr/bin/python3
need_cmd "$PY"

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

# the issue's two studies, re-reported: one denominator, a bound that bounds
for fx in issue28-default-2core issue28-none-16core; do
  mkdir "$work/$fx" && cp "$DATA/fixtures/results/$fx/summary.json" "$work/$fx/"
  [ ! -f "$DATA/fixtures/results/$fx/ceph-counters.csv" ] || cp "$DATA/fixtures/results/$fx/ceph-counters.csv" "$work/$fx/"
  "$PLACER" report "$work/$fx" >/dev/null 2>"$work/err" || fail "report $fx: $(cat "$work/err")"
  txt=$work/$fx/report/report.txt
  [ -s "$txt" ] || fail "$fx: no report/report.txt"
  ! grep -q "physical limit" "$txt" || fail "$fx: 'physical limit' in the report"
  ! grep -q "keeps [0-9]*% of solo" "$txt" || fail "$fx: a 'kept' against the variant's own solo rate, unnamed"
  # an efficiency above 100% only with the model's label
  ! grep -E "^  [^ ]+: (10[1-9]|1[1-9][0-9]|[2-9][0-9][0-9])% of the bound" "$txt" ||
    fail "$fx: an efficiency above 100% given as a share of the bound"
done
# where the time went, in the text report and on the page, the same lines
grep -q "^4K randwrite  neighbour  pinned          809      19.8   3.96     15.8" "$work/issue28-default-2core/report/report.txt" ||
  fail "2-core: where the time went: $(grep -A3 'Where the time went' "$work/issue28-default-2core/report/report.txt")"
grep -q '<pre id="where">' "$work/issue28-default-2core/report.html" || fail "2-core: no 'where the time went' on the page"
grep -q "osd.1 missing in 1 of 7 runs of pinned, neighbour, 4k-randwrite" "$work/issue28-default-2core/report.html" ||
  fail "2-core: the page does not say osd.1 was missing"
grep -q "fio-8: 79% of the bound (storage 0.81 + hog 0.59 = 1.40 of 1.76" "$work/issue28-none-16core/report/report.txt" ||
  fail "16-core: fio-8's efficiency: $(grep 'fio-8:' "$work/issue28-none-16core/report/report.txt")"
grep -q "of unpinned's solo rate fio-8 keeps 59%, unpinned 82%; of its own on its CPUs 104%" \
  "$work/issue28-none-16core/report/report.txt" || fail "16-core: the hog's kept fractions"

# the references and the SVGs
for page in "$a/report.html" "$b/report.html" "$q/report.html" "$work/issue28-default-2core/report.html"; do
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

# the page opens with the answer: its verdict table as Chromium's DOM has it, against summary.json
dom() { # PAGE OUT: the DOM headless Chromium builds of PAGE
  setsid "$CHROMIUM" --headless --no-sandbox --disable-gpu --user-data-dir="$work/chromium-dom" --dump-dom \
    "file://$1" >"$2" 2>"$work/chromium-dom.log" &
  cpid=$!
  _i=0
  while kill -0 "$cpid" 2>/dev/null && [ $_i -lt 120 ]; do sleep 0.5; _i=$((_i + 1)); done
  kill -0 "$cpid" 2>/dev/null && fail "chromium --dump-dom did not finish in 60 s"
  wait "$cpid" || fail "chromium --dump-dom exit $?: $(tail -3 "$work/chromium-dom.log")"
  cpid=""
}
for fx in issue28-default-2core issue28-none-16core; do
  dom "$work/$fx/report.html" "$work/$fx.dom"
  "$PY" - "$work/$fx.dom" "$work/$fx/summary.json" <<'EOF' || fail "$fx: the verdict table"
import json, math, sys
from html.parser import HTMLParser
dom, summary = open(sys.argv[1], encoding="utf-8").read(), json.load(open(sys.argv[2]))


class Table(HTMLParser):
    """The rows of table#verdict, and the style of each verdict cell."""

    def __init__(self):
        super().__init__()
        self.rows, self.row, self.cell, self.inside, self.styles = [], None, None, False, []

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "table" and a.get("id") == "verdict":
            self.inside = True
        elif self.inside and tag == "tr":
            self.row = []
        elif self.inside and tag == "td" and self.row is not None:
            self.cell = ""
            if a.get("class") == "verdict":
                self.styles.append(a.get("style", ""))

    def handle_endtag(self, tag):
        if tag == "table" and self.inside:
            self.inside = False
        elif self.inside and tag == "td" and self.cell is not None:
            self.row.append(self.cell.strip())
            self.cell = None
        elif self.inside and tag == "tr" and self.row:
            self.rows.append(self.row)
            self.row = None

    def handle_data(self, data):
        if self.cell is not None:
            self.cell += data


t = Table()
t.feed(dom)


def c_round(x):  # C's round(): half away from zero
    return math.copysign(math.floor(abs(x) + 0.5), x)


def change(x):
    tenths = c_round(x * 1000.0)
    return "%+.1f%%" % (0.0 if tenths == 0 else tenths / 10.0)


def p_text(p):
    return "<0.001" if p < 0.001 else "%.3f" % p if p < 0.1 else "%.2f" % p


base, want = summary["variants"][0], []
for v in summary["summary"]["verdicts"]:
    metric = "IOPS" if v["metric"] == "main" else summary["neighbour"]["name"] + " rate"
    ci = "[%s, %s]" % (change(v["ci95_low"]), change(v["ci95_high"])) if v["ci95_low"] is not None else "-"
    want.append([v["variant"] + " vs " + base, v["condition"], v["workload"], metric, change(v["change"]), ci,
                 p_text(v["p_value"]), v["test"], "significant" if v["significant"] else "inconclusive"])
if not want or t.rows != want:
    sys.exit("the page's verdict table\n  %s\nis not summary.json's\n  %s" % (t.rows, want))
for row, style in zip(t.rows, t.styles):
    colour = "#c6efce" if row[-1] == "significant" else "#ffeb9c"
    if len(t.styles) != len(t.rows) or colour not in style:
        sys.exit("%s: '%s' without its colour (%s)" % (row[0], row[-1], style))
# the answer first: the table, then the balance point and its plot, then the other plots
i_table, i_fig = dom.find('id="verdict"'), dom.find("<figure")
if not 0 <= i_table < i_fig:
    sys.exit("the verdict table is not before the plots")
if summary.get("split"):
    i_bal, i_split, i_inter = dom.find('id="balance"'), dom.find("report/split.svg"), dom.find("interference-storage")
    if not i_table < i_bal < i_split < i_inter:
        sys.exit("the balance point and its plot do not come right after the verdict table")
if 'href="report/report.txt"' not in dom:
    sys.exit("the text report is not linked")
print("%s: %d verdict rows as summary.json has them, in words and colours, before the plots" %
      (sys.argv[2].split("/")[-2], len(t.rows)))
EOF
done
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
