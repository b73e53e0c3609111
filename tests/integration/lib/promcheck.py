"""Read a page of metrics in Prometheus's text format (0.0.4) strictly, as the
watcher's tests need (tests/integration/watch_storm.sh):

    promcheck.py FILE [QUERY...]

The page is parsed twice: by Prometheus's own Python client
(prometheus_client.parser, what a Python scraper uses), and line by line here,
failing on what a lenient parser lets through: a blank or unterminated line, a
family's HELP or TYPE missing, repeated or after its samples, a sample of no
declared family, a label value with an escape the format does not have, a
repeated series, a negative counter, histogram buckets out of order, not
cumulative, or without le="+Inf" equal to _count.  Each QUERY,
'NAME{label="value",...}' (the labels given must match, others may be there:
the sum over the series that match), prints its value on a line; a query that
matches nothing fails.  Exit 0, or 1 with one line on stderr."""
import math
import re
import sys

from prometheus_client.parser import text_string_to_metric_families

NAME = r"[a-zA-Z_:][a-zA-Z0-9_:]*"
LABEL = r"[a-zA-Z_][a-zA-Z0-9_]*"
VALUE = r'"(?:[^"\\\n]|\\[\\"n])*"'
SAMPLE = re.compile(
    r"^(%s)(?:\{((?:%s=%s)(?:,%s=%s)*)?\})? (\S+)$" % (NAME, LABEL, VALUE, LABEL, VALUE))
LABEL_PAIR = re.compile(r"(%s)=(%s)" % (LABEL, VALUE))
TYPES = ("counter", "gauge", "histogram", "summary", "untyped")


def fail(msg):
    sys.stderr.write("promcheck: %s\n" % msg)
    sys.exit(1)


def unescape(quoted):
    body = quoted[1:-1]
    return re.sub(r"\\(.)", lambda m: "\n" if m.group(1) == "n" else m.group(1), body)


def parse_float(text, where):
    if text in ("+Inf", "Inf"):
        return math.inf
    if text == "-Inf":
        return -math.inf
    if text == "NaN":
        return math.nan
    try:
        return float(text)
    except ValueError:
        fail("%s: value %r is not a float" % (where, text))


def strict(text):
    """[(name, {labels}, value)] after every check."""
    if not text.endswith("\n"):
        fail("the page does not end with a newline")
    families = {}  # name -> {"type":, "help":, "samples": bool}
    current = None
    samples = []
    seen = set()
    for number, line in enumerate(text[:-1].split("\n"), 1):
        where = "line %d" % number
        if line == "":
            fail("%s: blank line" % where)
        if line.startswith("#"):
            m = re.match(r"^# (HELP|TYPE) (%s) (.*)$" % NAME, line)
            if not m:
                fail("%s: a comment that is neither HELP nor TYPE: %r" % (where, line))
            kind, name, rest = m.groups()
            fam = families.setdefault(name, {"type": None, "help": None, "samples": False})
            if fam["samples"]:
                fail("%s: %s of %s after its samples" % (where, kind, name))
            key = kind.lower()
            if fam[key] is not None:
                fail("%s: a second %s of %s" % (where, kind, name))
            if kind == "TYPE" and rest not in TYPES:
                fail("%s: type %r" % (where, rest))
            if kind == "HELP" and re.search(r"\\[^\\n]", rest):
                fail("%s: HELP holds an escape other than \\\\ and \\n" % where)
            fam[key] = rest
            current = name
            continue
        m = SAMPLE.match(line)
        if not m:
            fail("%s: not a sample line: %r" % (where, line))
        name, labels_text, value_text = m.group(1), m.group(2) or "", m.group(3)
        labels = {}
        for lm in LABEL_PAIR.finditer(labels_text):
            if lm.group(1) in labels:
                fail("%s: label %s twice" % (where, lm.group(1)))
            labels[lm.group(1)] = unescape(lm.group(2))
        family = current
        fam = families.get(family)
        if fam is None or fam["type"] is None or fam["help"] is None:
            fail("%s: %s has no HELP and TYPE before it" % (where, name))
        suffixes = ("_bucket", "_sum", "_count") if fam["type"] == "histogram" else ("",)
        if not any(name == family + s for s in suffixes):
            fail("%s: sample %s in family %s (%s)" % (where, name, family, fam["type"]))
        if fam["type"] == "histogram" and name.endswith("_bucket") and "le" not in labels:
            fail("%s: a bucket without le" % where)
        value = parse_float(value_text, where)
        if fam["type"] == "counter" and not value >= 0:
            fail("%s: counter %s is %s" % (where, name, value_text))
        series = (name, tuple(sorted(labels.items())))
        if series in seen:
            fail("%s: series %s%s twice" % (where, name, labels))
        seen.add(series)
        fam["samples"] = True
        samples.append((name, labels, value, family))
    check_histograms(samples, families)
    return samples


def check_histograms(samples, families):
    for family, fam in families.items():
        if fam["type"] != "histogram":
            continue
        groups = {}
        for name, labels, value, fam_name in samples:
            if fam_name != family:
                continue
            rest = tuple(sorted((k, v) for k, v in labels.items() if k != "le"))
            g = groups.setdefault(rest, {"buckets": [], "sum": None, "count": None})
            if name.endswith("_bucket"):
                g["buckets"].append((parse_float(labels["le"], family), value))
            elif name.endswith("_sum"):
                g["sum"] = value
            else:
                g["count"] = value
        for rest, g in groups.items():
            les = [le for le, _ in g["buckets"]]
            if les != sorted(les) or len(set(les)) != len(les):
                fail("%s%s: buckets not in ascending le" % (family, dict(rest)))
            counts = [c for _, c in g["buckets"]]
            if counts != sorted(counts):
                fail("%s%s: buckets not cumulative: %s" % (family, dict(rest), counts))
            if not les or les[-1] != math.inf:
                fail("%s%s: no le=\"+Inf\" bucket last" % (family, dict(rest)))
            if g["sum"] is None or g["count"] is None or counts[-1] != g["count"]:
                fail("%s%s: +Inf bucket %s against _count %s" % (family, dict(rest), counts[-1], g["count"]))


def query(samples, text):
    m = re.match(r"^(%s)(?:\{(.*)\})?$" % NAME, text)
    if not m:
        fail("query %r" % text)
    want = {k: unescape(v) for k, v in LABEL_PAIR.findall(m.group(2) or "")}
    hits = [v for name, labels, v, _ in samples
            if name == m.group(1) and all(labels.get(k) == v for k, v in want.items())]
    if not hits:
        fail("no sample matches %s" % text)
    return sum(hits)


def main():
    if len(sys.argv) < 2:
        fail("usage: promcheck.py FILE [QUERY...]")
    with open(sys.argv[1], encoding="utf-8") as f:
        text = f.read()
    samples = strict(text)
    # The client's own parser must read the same page, every sample of it.
    parsed = 0
    try:
        for family in text_string_to_metric_families(text):
            parsed += len(family.samples)
    except Exception as e:  # the client raises ValueError and others
        fail("prometheus_client refuses the page: %s" % e)
    if parsed != len(samples):
        fail("prometheus_client read %d samples, the strict reading %d" % (parsed, len(samples)))
    for q in sys.argv[2:]:
        v = query(samples, q)
        print(int(v) if v == int(v) else v)


if __name__ == "__main__":
    main()
