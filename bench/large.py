"""Helper of bench/large.sh (Debian's python3 with scikit-learn).

  large.py split SRC.csv OUTDIR NAME NTRAIN NTEST  random split (seed 0), target last, no header
  large.py base OUTDIR NAME TASK                    constant, linear and HGB: one line each
  large.py score OUTDIR NAME TASK PROBS             ivm's `predict -prob` output scored
"""
import resource, sys
import numpy as np


def cpu():
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def load(d, name, part):
    a = np.loadtxt("%s/%s.%s.csv" % (d, name, part), delimiter=",", ndmin=2)
    return a[:, :-1], a[:, -1]


def split(src, d, name, ntrain, ntest):
    a = np.genfromtxt(src, delimiter=",", skip_header=1)
    a = a[~np.isnan(a).any(axis=1)]
    p = np.random.RandomState(0).permutation(len(a))
    ntrain = min(int(ntrain), len(a) - 1)
    parts = {"train": a[p[:ntrain]], "test": a[p[ntrain:ntrain + int(ntest)]]}
    for part, rows in parts.items():
        rows = np.column_stack([rows[:, 1:], rows[:, 0]])
        np.savetxt("%s/%s.%s.csv" % (d, name, part), rows, delimiter=",", fmt="%.10g")


def nlpd(r, v):
    return np.mean(0.5 * np.log(2 * np.pi * v) + 0.5 * r * r / v)


def classif(name, yt, classes, P, t):
    idx = np.searchsorted(classes, yt)
    P = np.clip(P, 1e-15, 1)
    acc = np.mean(classes[P.argmax(1)] == yt)
    ll = -np.mean(np.log(P[np.arange(len(yt)), idx]))
    print("%s acc %.4f logloss %.4f cpu %.2f" % (name, acc, ll, t))


def regress(name, yt, mu, var, t):
    r = yt - mu
    cover = np.mean(np.abs(r) <= 1.959964 * np.sqrt(var))
    print("%s mse %.5f nlpd %.4f cover %.4f cpu %.2f" % (name, np.mean(r * r), nlpd(r, var), cover, t))


def base(d, name, task):
    from sklearn.ensemble import HistGradientBoostingClassifier as HGBC
    from sklearn.ensemble import HistGradientBoostingRegressor as HGBR
    from sklearn.linear_model import LogisticRegression, Ridge
    from sklearn.preprocessing import StandardScaler
    X, y = load(d, name, "train")
    Xt, yt = load(d, name, "test")
    sc = StandardScaler().fit(X)
    if task == "class":
        classes = np.unique(y)
        freq = np.array([(np.sum(y == c) + 1) / (len(y) + len(classes)) for c in classes])
        classif("constant", yt, classes, np.tile(freq, (len(yt), 1)), 0)
        for nm, m, a, b in (("linear", LogisticRegression(max_iter=3000), sc.transform(X), sc.transform(Xt)),
                            ("hgb", HGBC(random_state=0), X, Xt)):
            t = cpu()
            m.fit(a, y)
            P = m.predict_proba(b)
            classif(nm, yt, m.classes_, P, cpu() - t)
        return
    regress("constant", yt, np.full(len(yt), y.mean()), np.full(len(yt), y.var()), 0)
    for nm, m, a, b in (("linear", Ridge(), sc.transform(X), sc.transform(Xt)),
                        ("hgb", HGBR(random_state=0), X, Xt)):
        t = cpu()
        m.fit(a, y)
        mu = m.predict(b)
        v = np.var(y - m.predict(a))  # the training residuals' variance as the error bar
        regress(nm, yt, mu, np.full(len(yt), v), cpu() - t)


def score(d, name, task, probs):
    _, yt = load(d, name, "test")
    a = np.loadtxt(probs, skiprows=1, ndmin=2)
    if task == "class":
        X, y = load(d, name, "train")
        classif("ivm", yt, np.unique(y), a[:, 1:1 + len(np.unique(y))], 0)
    else:
        regress("ivm", yt, a[:, 0], a[:, 1], 0)


if __name__ == "__main__":
    cmd = sys.argv[1]
    if cmd == "split":
        split(*sys.argv[2:7])
    elif cmd == "base":
        base(*sys.argv[2:5])
    elif cmd == "score":
        score(*sys.argv[2:6])
