"""One-vs-one with ivm's binary defaults, coupled as libsvm couples its pairs: the evidence
for trying one-vs-one multi-class (bench/RESULTS.md, "One-vs-one"). Not a product path.

    /usr/bin/python3 bench/ovo.py IVM BASE...

For each BASE (a libsvm file pair BASE.train, BASE.test, as bench/suite.sh writes them) it
trains `IVM train -quiet` (no other flag: the default search, one kernel per pair) on the
rows of every pair of classes, predicts every test row with each pair's model
(`predict -prob`), combines the pairwise probabilities r_ij by Wu, Lin and Weng's second
method (JMLR 2004; libsvm's -b 1) and prints the accuracy and log loss, with the training
CPU seconds of the pair models.
"""
import itertools
import os
import resource
import subprocess
import sys
import tempfile

import numpy as np


def labels(path):
    return np.array([float(l.split()[0]) for l in open(path) if l.strip()])


def couple(r):
    """Class probabilities from pairwise ones r[i, j] = p(i | i or j, x) (Wu-Lin-Weng 2)."""
    k = len(r)
    q = -r.T * r
    np.fill_diagonal(q, 0)
    np.fill_diagonal(q, (r ** 2).sum(0) - np.diag(r) ** 2)
    a = np.zeros((k + 1, k + 1))
    a[:k, :k], a[:k, k], a[k, :k] = q, 1, 1
    b = np.zeros(k + 1)
    b[k] = 1
    p = np.clip(np.linalg.solve(a, b)[:k], 1e-12, None)
    return p / p.sum()


def run(ivm, base, tmp):
    lines = [l for l in open(base + ".train").read().splitlines() if l.strip()]
    ytr, yte = labels(base + ".train"), labels(base + ".test")
    cls = np.unique(ytr)
    k = len(cls)
    r = np.full((len(yte), k, k), 0.5)
    cpu0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    for a, b in itertools.combinations(range(k), 2):
        with open(os.path.join(tmp, "p.train"), "w") as f:
            f.write("\n".join(l for l, y in zip(lines, ytr) if y in (cls[a], cls[b])) + "\n")
        subprocess.run([ivm, "train", "-quiet", os.path.join(tmp, "p.train"), os.path.join(tmp, "p.m")], check=True)
        subprocess.run([ivm, "predict", "-quiet", "-prob", base + ".test", os.path.join(tmp, "p.m"), os.path.join(tmp, "p.out")],
                       check=True, stderr=subprocess.DEVNULL)
        rows = [l.split() for l in open(os.path.join(tmp, "p.out"))]
        head = rows[0]
        col = {float(h[2:-1]): i for i, h in enumerate(head) if h.startswith("p(")}
        m = np.array([[float(v) for v in row] for row in rows[1:]])
        pa = m[:, col[cls[a]]]
        r[:, a, b], r[:, b, a] = pa, 1 - pa
    cpu1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    p = np.array([couple(np.clip(rn, 1e-7, 1 - 1e-7)) for rn in r])
    idx = np.searchsorted(cls, yte)
    acc = 100 * np.mean(p.argmax(1) == idx)
    ll = -np.mean(np.log(p[np.arange(len(yte)), idx]))
    cpu = (cpu1.ru_utime - cpu0.ru_utime) + (cpu1.ru_stime - cpu0.ru_stime)
    print("%s: one-vs-one acc %.2f logloss %.4f, %d pairs, %.2f CPU s (ivm processes)" % (base, acc, ll, k * (k - 1) // 2, cpu))


if __name__ == "__main__":
    with tempfile.TemporaryDirectory() as tmp:
        for base in sys.argv[2:]:
            run(sys.argv[1], base, tmp)
