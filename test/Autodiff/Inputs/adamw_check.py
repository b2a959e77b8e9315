"""The oracle of optimizer=adamw: K AdamW steps of examples/mlp_loss.mlir.

  adamw_check.py inputs DIR            writes x, y, w1, b1, w2, b2 (seeded)
                                       and the zero AdamW state as .npy
  adamw_check.py check DIR LOG K HYPER compares dtensor-run's step losses
                                       (LOG) and its --out DIR/out results
                                       with K steps of torch.optim.AdamW
                                       (numpy when torch is not importable)

HYPER is lr,beta1,beta2,eps,weight_decay. Prints one line
`adamw: PASS <oracle> max_rel_err=<e>` or FAIL (exit 1).
"""

import os
import re
import sys

import numpy as np

NAMES = ["w1", "b1", "w2", "b2"]
SHAPES = {"x": (8, 16), "y": (8, 4), "w1": (16, 32), "b1": (32,),
          "w2": (32, 4), "b2": (4,)}


def write_inputs(d):
    rng = np.random.default_rng(7)
    files = []
    for name in ["x", "y"] + NAMES:
        a = (rng.standard_normal(SHAPES[name]) * 0.5).astype(np.float32)
        np.save(os.path.join(d, name + ".npy"), a)
        files.append(name)
    # m of each parameter, v of each parameter, then the step count.
    for moment in ["exp_avg", "exp_avg_sq"]:
        for name in NAMES:
            np.save(os.path.join(d, f"{name}.{moment}.npy"),
                    np.zeros(SHAPES[name], np.float32))
            files.append(f"{name}.{moment}")
    np.save(os.path.join(d, "step.npy"), np.zeros((), np.float32))
    files.append("step")
    print(",".join(os.path.join(d, f + ".npy") for f in files))


def loss_and_grads_numpy(x, y, p):
    a1 = x @ p["w1"] + p["b1"]
    h = np.maximum(a1, 0.0)
    out = h @ p["w2"] + p["b2"]
    d = out - y
    loss = float((d * d).sum() / 32.0)
    dout = 2.0 * d / 32.0
    g = {"w2": h.T @ dout, "b2": dout.sum(0)}
    dh = dout @ p["w2"].T
    da1 = dh * (a1 > 0)
    g["w1"] = x.T @ da1
    g["b1"] = da1.sum(0)
    return loss, g


def run_numpy(x, y, p, k, h):
    lr, b1, b2, eps, wd = h
    m = {n: np.zeros_like(p[n]) for n in NAMES}
    v = {n: np.zeros_like(p[n]) for n in NAMES}
    losses = []
    for t in range(1, k + 1):
        loss, g = loss_and_grads_numpy(x, y, p)
        losses.append(loss)
        for n in NAMES:
            p[n] = p[n] * (1 - lr * wd)
            m[n] = m[n] + (1 - b1) * (g[n] - m[n])
            v[n] = b2 * v[n] + (1 - b2) * g[n] * g[n]
            step_size = lr / (1 - b1 ** t)
            denom = np.sqrt(v[n]) / np.sqrt(1 - b2 ** t) + eps
            p[n] = p[n] - step_size * m[n] / denom
    return losses, p, m, v


def run_torch(x, y, p, k, h):
    import torch
    lr, b1, b2, eps, wd = h
    tp = {n: torch.tensor(p[n], dtype=torch.float64, requires_grad=True)
          for n in NAMES}
    tx, ty = torch.tensor(x, dtype=torch.float64), torch.tensor(y, dtype=torch.float64)
    opt = torch.optim.AdamW([tp[n] for n in NAMES], lr=lr, betas=(b1, b2),
                            eps=eps, weight_decay=wd)
    losses = []
    for _ in range(k):
        opt.zero_grad()
        hid = torch.relu(tx @ tp["w1"] + tp["b1"])
        out = hid @ tp["w2"] + tp["b2"]
        loss = ((out - ty) ** 2).sum() / 32.0
        loss.backward()
        losses.append(float(loss.detach()))
        opt.step()
    st = [opt.state[tp[n]] for n in NAMES]
    return (losses, {n: tp[n].detach().numpy() for n in NAMES},
            {n: s["exp_avg"].numpy() for n, s in zip(NAMES, st)},
            {n: s["exp_avg_sq"].numpy() for n, s in zip(NAMES, st)})


def rel_err(a, b):
    a, b = np.asarray(a, np.float64), np.asarray(b, np.float64)
    scale = max(np.abs(b).max(), 1e-30)
    return float(np.abs(a - b).max() / scale)


def check(d, log, k, hyper):
    h = [float(v) for v in hyper.split(",")]
    ld = lambda n: np.load(os.path.join(d, n + ".npy")).astype(np.float64)
    x, y = ld("x"), ld("y")
    p = {n: ld(n) for n in NAMES}
    try:
        import torch  # noqa: F401
        oracle = "torch"
        losses, p2, m, v = run_torch(x, y, p, k, h)
    except ImportError:
        oracle = "numpy"
        losses, p2, m, v = run_numpy(x, y, p, k, h)
    got = [float(s) for s in re.findall(r"step \d+: loss=(\S+)", open(log).read())]
    if len(got) != k:
        print(f"adamw: FAIL {len(got)} step lines, expected {k}")
        return 1
    errs = [abs(a - b) / max(abs(b), 1e-30) for a, b in zip(got, losses)]
    out = lambda i: np.load(os.path.join(d, "out", f"result{i}.npy"))
    n = len(NAMES)
    for j, name in enumerate(NAMES):
        errs.append(rel_err(out(1 + j), p2[name]))
        errs.append(rel_err(out(1 + n + j), m[name]))
        errs.append(rel_err(out(1 + 2 * n + j), v[name]))
    errs.append(rel_err(out(1 + 3 * n), np.float64(k)))
    # The losses' own rounding is %.6g.
    worst = max(errs)
    ok = worst < 1e-4
    print(f"adamw: {'PASS' if ok else 'FAIL'} {oracle} max_rel_err={worst:.3g}")
    return 0 if ok else 1


if __name__ == "__main__":
    if sys.argv[1] == "inputs":
        write_inputs(sys.argv[2])
    else:
        sys.exit(check(sys.argv[2], sys.argv[3], int(sys.argv[4]), sys.argv[5]))
