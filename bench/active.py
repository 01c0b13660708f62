# Helper of bench/active.sh; run with Debian's /usr/bin/python3 (stdlib and numpy only).
#
#   isolation TRAIN PICKS    how isolated the rows each strategy added are: a training row's
#                            isolation is its mean Euclidean distance to its 10 nearest other
#                            training rows, inputs standardised (zero mean, unit variance over
#                            the training file); printed per strategy and range of labels, the
#                            mean percentile of the rows added (50 for rows drawn at random)
#                            and the share among the 10 % most isolated rows (10 % at random)
import sys

import numpy as np


def read_libsvm(path):
    rows, y, dim = [], [], 0
    for line in open(path):
        t = line.split()
        if not t:
            continue
        y.append(float(t[0]))
        r = {int(k): float(v) for k, v in (a.split(":") for a in t[1:])}
        dim = max([dim] + list(r))
        rows.append(r)
    x = np.zeros((len(rows), dim))
    for i, r in enumerate(rows):
        for k, v in r.items():
            x[i, k - 1] = v
    return x, np.array(y)


def isolation_percentiles(x):
    sd = x.std(0)
    z = (x - x.mean(0)) / np.where(sd > 0, sd, 1)
    sq = (z ** 2).sum(1)
    iso = np.zeros(len(z))
    for lo in range(0, len(z), 500):
        d = sq[lo:lo + 500, None] + sq[None, :] - 2 * z[lo:lo + 500] @ z.T
        d = np.sqrt(np.maximum(d, 0))
        d.sort(1)
        iso[lo:lo + 500] = d[:, 1:11].mean(1)
    return 100 * iso.argsort().argsort() / len(z)


def isolation(train, picks):
    x, _ = read_libsvm(train)
    pct = isolation_percentiles(x)
    lines = [l.rstrip("\n").split("\t") for l in open(picks) if not l.startswith("#")]
    head, rows = lines[0], lines[1:]
    col = {name: i for i, name in enumerate(head)}
    strategies = list(dict.fromkeys(r[col["strategy"]] for r in rows))
    print("strategy  labels    rows  isolation percentile  share in the 10 % most isolated")
    for s in strategies:
        for lo, hi in [(20, 60), (60, 150), (150, 300)]:
            p = np.array([pct[int(r[col["row"]])] for r in rows
                          if r[col["strategy"]] == s and lo <= int(r[col["after"]]) < hi])
            if len(p):
                print("%-9s %3d-%-3d %6d  %20.0f  %30.0f %%" % (s, lo, hi, len(p), p.mean(),
                                                            100 * np.mean(p >= 90)))


if __name__ == "__main__":
    if len(sys.argv) != 4 or sys.argv[1] != "isolation":
        sys.exit("usage: active.py isolation TRAIN PICKS")
    isolation(sys.argv[2], sys.argv[3])
