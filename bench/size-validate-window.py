#!/usr/bin/python3
"""One run of bench/size-validate.sh as a JSON line: IOPS and the OSDs' CPU over the same
window -- between fio's first status report (--status-interval=1) with I/O done and its
last one with more I/O done -- not the seconds of opening and closing the image, which
under a small CPU quota are many.

usage: size-validate-window.py FIO_OUTPUT RW QUOTA REPEAT CLK_TCK SAMPLES
SAMPLES: lines "epoch_ms osd_ticks" taken while fio ran."""
import json
import sys


def fio_documents(text):
    dec, docs, pos = json.JSONDecoder(), [], 0
    while True:
        while pos < len(text) and text[pos] != "{":
            pos += 1
        if pos >= len(text):
            return docs
        doc, pos = dec.raw_decode(text, pos)
        docs.append(doc)


def main():
    f, rw, quota, rep, hz, samples = sys.argv[1:]
    docs = fio_documents(open(f).read())
    key = "read" if rw.endswith("read") else "write"
    # the interim reports only: the final one is written after the image is closed
    status = [(d["timestamp_ms"], d["jobs"][0][key]["total_ios"]) for d in docs[:-1]]
    moving = [status[i] for i in range(len(status))
              if status[i][1] > 0 and (i == 0 or status[i][1] > status[i - 1][1])]
    if len(moving) < 2:
        sys.exit("size-validate: fewer than 2 fio status reports with I/O in " + f)
    (t0, n0), (t1, n1) = moving[0], moving[-1]
    pts = [tuple(map(int, l.split())) for l in open(samples) if len(l.split()) == 2]

    def ticks_at(t):  # linear between the samples around t
        if t <= pts[0][0]:
            return pts[0][1]
        for (a, ta), (b, tb) in zip(pts, pts[1:]):
            if a <= t <= b:
                return ta + (tb - ta) * ((t - a) / (b - a) if b > a else 0)
        return pts[-1][1]

    secs = (t1 - t0) / 1000
    cpu = (ticks_at(t1) - ticks_at(t0)) / int(hz)
    print(json.dumps({"workload": "4k-" + rw, "quota_cores": float(quota), "repeat": int(rep),
                      "iops": round((n1 - n0) / secs, 1), "total_ios": n1 - n0, "osd_cpu_s": round(cpu, 3),
                      "runtime_s": round(secs, 3), "fio_iops": round(docs[-1]["jobs"][0][key]["iops"], 1)}))


main()
