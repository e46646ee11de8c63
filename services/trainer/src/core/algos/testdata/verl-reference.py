"""Independent numpy re-statement of verl core_algos formulas (verl b178a3c), float32 like torch.

Used once to derive the literal expected numbers pasted into the *.test.ts files beside this
folder; torch is not available here, so each verl function is re-expressed formula by formula.
Run: /usr/bin/python3 testdata/verl-reference.py
"""
import numpy as np

f32 = np.float32


def t(x):
    return np.asarray(x, dtype=f32)


def masked_sum(v, m, axis=None):
    return (np.where(m != 0, v, f32(0)) * m).sum(axis=axis, dtype=f32)


def masked_mean(v, m, axis=None):
    return masked_sum(v, m, axis) / (m.sum(axis=axis, dtype=f32) + f32(1e-8))


def masked_var(v, m):
    mean = masked_mean(v, m)
    var = masked_mean((v - mean) ** 2, m)
    n = m.sum(dtype=f32)
    return var * (n / (n - 1))


def masked_whiten(v, m, shift_mean=True):
    mean, var = masked_mean(v, m), masked_var(v, m)
    w = (v - mean) * (f32(1) / np.sqrt(var + f32(1e-8)))
    return w if shift_mean else w + mean


def gae(r, v, m, gamma, lam):
    nv = np.zeros(r.shape[0], f32)
    lg = np.zeros(r.shape[0], f32)
    out = []
    for k in reversed(range(r.shape[1])):
        delta = r[:, k] + gamma * nv - v[:, k]
        lg_ = delta + gamma * lam * lg
        nv = v[:, k] * m[:, k] + (1 - m[:, k]) * nv
        lg = lg_ * m[:, k] + (1 - m[:, k]) * lg
        out.append(lg)
    adv = np.stack(out[::-1], axis=1).astype(f32)
    ret = adv + v
    return masked_whiten(adv, m), ret


def groups(index):
    g = {}
    for i, k in enumerate(index):
        g.setdefault(k, []).append(i)
    return g


def grpo(r, m, index, norm=True, eps=1e-6):
    s = r.sum(-1, dtype=f32)
    out = s.copy()
    for rows in groups(index).values():
        x = s[rows]
        mean, std = (f32(0), f32(1)) if len(rows) == 1 else (x.mean(dtype=f32), x.std(ddof=1, dtype=f32))
        for i in rows:
            out[i] = (s[i] - mean) / (std + f32(eps)) if norm else s[i] - mean
    return out[:, None] * m


def rloo(r, m, index):
    s = r.sum(-1, dtype=f32)
    out = s.copy()
    for rows in groups(index).values():
        n = len(rows)
        if n > 1:
            mean = s[rows].mean(dtype=f32)
            for i in rows:
                out[i] = s[i] * n / (n - 1) - mean * n / (n - 1)
    return out[:, None] * m


def rpp(r, m, gamma):
    ret = np.zeros_like(r)
    run = np.zeros(r.shape[0], f32)
    for k in reversed(range(r.shape[1])):
        run = r[:, k] + gamma * run
        ret[:, k] = run
        run = run * m[:, k]
    return masked_whiten(ret, m) * m, ret


def rpp_baseline(r, m, index):
    s = r.sum(-1, dtype=f32)
    out = s.copy()
    for rows in groups(index).values():
        mean = f32(0) if len(rows) == 1 else s[rows].mean(dtype=f32)
        for i in rows:
            out[i] = s[i] - mean
    tiled = np.tile(out[:, None], (1, r.shape[1])) * m
    return masked_whiten(tiled, m) * m


def remax(r, b, m):
    ret = np.flip(np.cumsum(np.flip(r * m, -1), -1, dtype=f32), -1)
    return ret - b[:, None] * m, ret


def opo(r, m, index):
    s = r.sum(-1, dtype=f32)
    ln = m.sum(-1, dtype=f32)
    out = s.copy()
    for rows in groups(index).values():
        bsl = f32(0) if len(rows) == 1 else (ln[rows] * s[rows]).sum(dtype=f32) / ln[rows].sum(dtype=f32)
        for i in rows:
            out[i] = s[i] - bsl
    return out[:, None] * m


def gpg(r, m, index, f_norm=1.0):
    s = r.sum(-1, dtype=f32)
    alpha = f32(len(s) / max(np.count_nonzero(s), 1))
    out = s.copy()
    for rows in groups(index).values():
        mean = f32(0) if len(rows) == 1 else s[rows].mean(dtype=f32)
        for i in rows:
            out[i] = alpha * (s[i] - mean) / f32(f_norm)
    return out[:, None] * m


def kl_penalty(lp, ref, kind):
    if kind in ("kl", "k1"):
        return lp - ref
    if kind == "abs":
        return np.abs(lp - ref)
    if kind in ("mse", "k2"):
        return f32(0.5) * (lp - ref) ** 2
    kl = np.clip(ref - lp, -20, 20)
    return np.clip(np.exp(kl) - kl - 1, -10, 10)


def agg_loss(lm, mask, mode, dp=1, ntok=None, gbs=None, lsf=None):
    if mode == "token-mean":
        return masked_sum(lm, mask) / (mask.sum(dtype=f32) if ntok is None else f32(ntok)) * dp
    if mode in ("seq-mean-token-sum", "seq-mean-token-mean"):
        seq = (lm * mask).sum(-1, dtype=f32)
        cnt = mask.sum(-1, dtype=f32)
        if mode == "seq-mean-token-mean":
            seq = seq / (cnt + f32(1e-8))
        sm = (cnt > 0).astype(f32)
        return masked_sum(seq, sm) / (sm.sum(dtype=f32) if gbs is None else f32(gbs)) * dp
    return (lm * mask).sum(dtype=f32) / f32(mask.shape[-1] if lsf is None else lsf)


def policy_vanilla(old, lp, adv, m, mode="token-mean", clip=0.2, low=None, high=None, c=3.0):
    low = clip if low is None else low
    high = clip if high is None else high
    nk = np.clip(lp - old, -20, 20)
    ratio = np.exp(nk)
    ppo_kl = masked_mean(-nk, m)
    l1 = -adv * ratio
    l2 = -adv * np.clip(ratio, 1 - low, 1 + high)
    c1 = np.maximum(l1, l2)
    clipfrac = masked_mean((l2 > l1).astype(f32), m)
    l3 = -adv * f32(c)
    c2 = np.minimum(l3, c1)
    lower = masked_mean((c1 > l3).astype(f32) * (adv < 0).astype(f32), m)
    pg = np.where(adv < 0, c2, c1)
    return agg_loss(pg, m, mode), clipfrac, ppo_kl, lower


def value_loss(vp, ret, val, m, cr, mode="token-mean"):
    vc = np.maximum(np.minimum(vp, val + cr), val - cr)
    a = (vp - ret) ** 2
    b = (vc - ret) ** 2
    return f32(0.5) * agg_loss(np.maximum(a, b), m, mode), masked_mean((b > a).astype(f32), m)


def show(name, x):
    x = np.asarray(x, dtype=np.float64)
    print(name, "=", np.array2string(x.reshape(-1), precision=8, separator=", ", max_line_width=200))


if __name__ == "__main__":
    # --- shared fixtures (same literals appear in the TS tests) ---
    r = t([[0.0, 0.0, 1.0, 0.0], [0.2, 0.0, 0.5, 0.0], [0.0, 1.0, 0.0, 0.0]])
    m = t([[1, 1, 1, 0], [1, 1, 1, 1], [1, 1, 0, 0]])
    v = t([[0.5, 0.6, 0.7, 9.0], [0.1, -0.2, 0.3, 0.4], [1.0, 0.5, -3.0, 2.0]])
    show("masked_var_r", masked_var(r, m))
    show("masked_whiten_r", masked_whiten(r, m))
    show("masked_whiten_r_noshift", masked_whiten(r, m, shift_mean=False))
    a, rt = gae(r, v, m, f32(0.9), f32(0.8))
    show("gae_adv", a)
    show("gae_ret", rt)
    a, rt = rpp(r, m, f32(0.9))
    show("rpp_adv", a)
    show("rpp_ret", rt)
    idx = ["a", "a", "b"]
    rg = t([[1.0, 0.5, 0.0], [2.0, 1.0, 0.0], [0.5, 0.2, 0.0], [1.5, 0.8, 0.0]])
    mg = t([[1, 1, 0], [1, 1, 1], [1, 0, 0], [1, 1, 1]])
    ig = [0, 0, 1, 1]
    show("grpo_cfg", grpo(rg, np.ones_like(rg), ig))
    show("grpo_mask", grpo(rg, mg, ig))
    show("grpo_single", grpo(rg, mg, [0, 0, 1, 2]))
    show("drgrpo_mask", grpo(rg, mg, ig, norm=False))
    ig3 = [7, 7, 7, 9]
    show("rloo_3_1", rloo(rg, mg, ig3))
    show("rppb_3_1", rpp_baseline(rg, mg, ig3))
    show("opo_3_1", opo(rg, mg, ig3))
    show("gpg_3_1", gpg(t([[1.0, 0.0], [0.0, 0.0], [0.0, 0.0], [2.0, 0.0]]), t([[1, 1]] * 4), ig3))
    a, rt = remax(r, t([0.5, 1.0, 0.0]), m)
    show("remax_adv", a)
    show("remax_ret", rt)
    lp = t([-1.0, -0.5, -2.0, -0.1, -30.0, -0.3])
    ref = t([-1.2, -0.5, -1.0, -0.4, -1.0, -30.0])
    for k in ["kl", "abs", "mse", "low_var_kl"]:
        show("kl_" + k, kl_penalty(lp, ref, k))
    lm = t([[1.0, 2.0, 3.0, 4.0], [5.0, 6.0, 7.0, 8.0], [9.0, 10.0, 11.0, 12.0]])
    am = t([[1, 1, 0, 0], [1, 1, 1, 1], [0, 0, 0, 0]])
    for mode in ["token-mean", "seq-mean-token-sum", "seq-mean-token-mean", "seq-mean-token-sum-norm"]:
        show("agg_" + mode, agg_loss(lm, am, mode))
        show("agg_global_" + mode, agg_loss(lm, am, mode, dp=2, ntok=10, gbs=5, lsf=10))
    old = t([[-1.0, -1.0, -1.0, -1.0], [-0.5, -0.5, -0.5, -0.5]])
    new = t([[-0.7, -1.5, -1.1, -0.2], [-0.5, 1.0, -0.45, -2.0]])
    adv = t([[1.0, 1.0, -1.0, -2.0], [0.5, -1.0, 2.0, -1.5]])
    pm = t([[1, 1, 1, 1], [1, 1, 1, 0]])
    show("pg_sym", policy_vanilla(old, new, adv, pm))
    show("pg_asym", policy_vanilla(old, new, adv, pm, low=0.2, high=0.28, c=3.0))
    show("pg_seqmean", policy_vanilla(old, new, adv, pm, mode="seq-mean-token-mean", low=0.2, high=0.28))
    vp = t([[0.0, 1.0, 2.5, -1.0], [0.2, 0.9, 3.0, 0.0]])
    ret = t([[0.5, 0.5, 0.5, 0.5], [1.0, 1.0, 1.0, 1.0]])
    val = t([[0.1, 0.4, 1.0, -0.5], [0.0, 2.0, 1.1, 0.0]])
    show("vf", value_loss(vp, ret, val, pm, 0.5))
    # apply_kl_penalty, kl_penalty="kl", beta = 0.001
    olp = t([[-1.0, -0.5, -2.0, -9.0], [-0.3, -0.3, -0.1, -0.2]])
    rlp = t([[-1.5, -0.5, -1.0, 0.0], [-0.2, -0.6, -0.1, -0.9]])
    km = t([[1, 1, 1, 0], [1, 1, 1, 1]])
    sc = t([[0.0, 0.0, 1.0, 0.0], [0.0, 0.0, 0.0, 0.5]])
    kld = kl_penalty(olp, rlp, "kl") * km
    show("kl_reward_rewards", sc - f32(0.001) * kld)
    show("kl_reward_current_kl", masked_mean(kld, km, axis=-1).mean(dtype=f32))
