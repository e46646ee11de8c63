"""Independent numpy re-statement of verl core_algos formulas (verl b178a3c), float32 like torch.

Derives the literal expected numbers pasted into the *.test.ts files of core/algos and its
subfolders (verl itself is not installed, so each verl function is re-expressed formula by formula);
loss-golden.py imports the loss functions to write loss-golden.json.
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


# --- policy loss modes (core_algos @register_policy_loss) ---

def rowsum(x):
    return x.sum(-1, dtype=f32)


def pg_gspo(old, lp, adv, m, low=0.2, high=0.2, w=None):
    nk = lp - old
    n = np.maximum(rowsum(m), f32(1))
    seq = rowsum(nk * m) / n
    s = np.exp(np.minimum(seq[:, None] + np.zeros_like(lp), f32(10)))
    l1 = -adv * s
    l2 = -adv * np.clip(s, f32(1 - low), f32(1 + high))
    pg = np.maximum(l1, l2)
    if w is not None:
        pg = pg * w
    return agg_loss(pg, m, "seq-mean-token-mean"), masked_mean((l2 > l1).astype(f32), m), masked_mean(-nk, m), f32(0)


def pg_sapo(old, lp, adv, m, tau_pos=1.0, tau_neg=1.05, w=None):
    nk = np.clip(lp - old, -20, 20)
    r = np.exp(nk)
    tau = np.where(adv > 0, f32(tau_pos), f32(tau_neg)).astype(f32)
    gate = f32(1) / (f32(1) + np.exp(-tau * (r - f32(1)))) * (f32(4) / tau)
    pg = -gate * adv
    if w is not None:
        pg = pg * w
    return agg_loss(pg, m, "seq-mean-token-mean"), f32(0), masked_mean(-nk, m), f32(0)


def pg_cispo(old, lp, adv, m, low=0.2, high=0.2, mode="token-mean", w=None):
    nk = np.clip(lp - old, -20, 20)
    r = np.exp(nk)
    cr = np.clip(r, f32(1 - low), f32(1 + high))
    pg = -cr * adv * lp
    if w is not None:
        pg = pg * w
    return agg_loss(pg, m, mode), masked_mean((r != cr).astype(f32), m), masked_mean(-nk, m), f32(0)


def pg_geo_mean(old, lp, adv, m, low=0.2, high=0.2, w=None):
    nk = lp - old
    sg = np.sign(adv)
    nkc = np.clip(nk, f32(-low), f32(high))
    nkmin = sg * np.minimum(sg * nk, sg * nkc)
    n = rowsum(m)
    ratio = np.exp(rowsum(nkmin * m) / (n + f32(1e-8)))
    a = rowsum(adv * m) / (n + f32(1e-8))
    pg = -a * ratio
    if w is not None:
        pg = pg * np.exp(rowsum(np.log(w + f32(1e-10)) * m) / (n + f32(1e-8)))
    clipped = nk != nkc
    return (pg.mean(dtype=f32), masked_mean((clipped & (adv > 0)).astype(f32), m), masked_mean(-nk, m),
            masked_mean((clipped & (adv < 0)).astype(f32), m))


def pg_clip_cov(old, lp, adv, m, keys, ratio_c=0.0002, lb=1.0, ub=5.0, low=0.2, high=0.2, mode="token-mean"):
    # verl draws torch.randperm over the candidates; here the candidates with the smallest keys win
    nk = lp - old
    r = np.exp(nk)
    l1 = -adv * r
    l2 = -adv * np.clip(r, f32(1 - low), f32(1 + high))
    by_origin = (l2 > l1) & (m > 0)
    cov = (adv - masked_mean(adv, m)) * (lp - masked_mean(lp, m))
    cov[m == 0] = -np.inf
    cov[by_origin] = -np.inf
    num = max(int(ratio_c * float(m.sum(dtype=f32))), 1)
    cand = np.flatnonzero(((cov < ub) & (cov > lb) & (m > 0)).reshape(-1))
    chosen = sorted(cand, key=lambda i: (keys.reshape(-1)[i], i))[:num]
    corr = np.ones(lp.size, f32)
    corr[list(chosen)] = 0
    corr = corr.reshape(lp.shape)
    pg = np.maximum(l1, l2) * corr
    return agg_loss(pg, m, mode), masked_mean((corr == 0).astype(f32), m), masked_mean(-nk, m), sorted(int(i) for i in chosen)


def pg_kl_cov(old, lp, adv, m, ratio_k=0.0002, coef=1.0, mode="token-mean"):
    nk = lp - old
    r = np.exp(nk)
    pg = -adv * r
    valid = np.flatnonzero((m > 0).reshape(-1))
    av = adv.reshape(-1)[valid]
    lv = lp.reshape(-1)[valid]
    chosen = []
    if len(valid) > 0:
        cov = (av - av.mean(dtype=f32)) * (lv - lv.mean(dtype=f32))
        k = max(1, int(len(cov) * ratio_k))
        # distinct covariances here, so any top-k rule picks the same set
        chosen = sorted(int(valid[j]) for j in np.argsort(-cov, kind="stable")[:k])
        flat = pg.reshape(-1)
        flat[chosen] = (-adv * r + f32(coef) * np.abs(nk)).reshape(-1)[chosen]
        pg = flat.reshape(lp.shape)
    return agg_loss(pg, m, mode), masked_mean(np.abs(nk), m), chosen


def pg_reinforce(roll, lp, adv, m, mode, w=None):
    pg = -adv * lp if w is None else -adv * lp * w
    return agg_loss(pg, m, mode), masked_mean(-(lp - roll), m)


def is_weights(lr, m, level, thr, normalize=False):
    met = {}
    if level == "token":
        lrm = lr
        wts = np.exp(np.clip(lr, -20, 20))
    else:
        lrm = masked_sum(lr, m, axis=-1)[:, None]
        wts = np.exp(np.clip(lrm, -20, 20)) + np.zeros_like(lr)
    wts = (wts * m).astype(f32)
    lo = 1.0 / thr
    met["rollout_is_mean"] = masked_mean(wts, m)
    if level == "sequence":
        met["rollout_is_max"] = np.exp(min(lrm.max(), f32(20)))
        met["rollout_is_min"] = np.exp(lrm.min())
        met["rollout_is_ratio_fraction_high"] = (lrm > np.log(f32(thr))).astype(f32).mean()
        met["rollout_is_ratio_fraction_low"] = (lrm < np.log(f32(lo))).astype(f32).mean()
    else:
        met["rollout_is_ratio_fraction_high"] = masked_mean((wts > thr).astype(f32), m)
        met["rollout_is_ratio_fraction_low"] = masked_mean((wts < lo).astype(f32), m)
        met["rollout_is_max"] = wts[m != 0].max()
        met["rollout_is_min"] = wts[m != 0].min()
    b = np.clip(wts, f32(lo), f32(thr))
    bm = masked_mean(b, m)
    met["rollout_is_std"] = np.sqrt(max(masked_mean(b * b, m) - bm * bm, 0)) if m.sum() > 1 else 0.0
    met["rollout_is_eff_sample_size"] = 1.0 / masked_mean((b / (bm + f32(1e-8))) ** 2, m)
    sm = masked_mean(wts, m, axis=-1)
    met["rollout_is_seq_mean"] = sm.mean()
    met["rollout_is_seq_std"] = sm.std(ddof=1) if sm.size > 1 else 0.0
    met["rollout_is_seq_max"] = sm.max()
    met["rollout_is_seq_min"] = sm.min()
    met["rollout_is_seq_max_deviation"] = np.abs(sm - 1).max()
    met["rollout_is_seq_fraction_high"] = (sm > thr).astype(f32).mean()
    met["rollout_is_seq_fraction_low"] = (sm < lo).astype(f32).mean()
    wts = np.minimum(wts, f32(thr))
    if normalize:
        if level == "token":
            mean = masked_mean(wts, m)
        else:
            sw = masked_mean(wts, m, axis=-1)
            sv = (m.sum(-1) > 0).astype(f32)
            mean = (sw * sv).sum() / max(sv.sum(), 1e-8)
        if mean > 1e-8:
            wts = wts / mean
            met["rollout_is_batch_norm_factor"] = mean
        else:
            met["rollout_is_batch_norm_factor"] = 1.0
    return wts, met


def rs_metrics(name, stat, m, seq_valid, level, per_seq, thr, thr_lo, apply_lo):
    p = "rollout_rs_" + name
    met = {}
    sv = per_seq if per_seq is not None else masked_mean(stat, m, axis=-1)
    v = sv[seq_valid]
    met[p + "_mean"] = masked_mean(stat, m)
    if level == "sequence" and v.size > 0:
        met[p + "_max"], met[p + "_min"] = v.max(), v.min()
        met[p + "_fraction_high"] = (v > thr).astype(f32).mean()
        met[p + "_fraction_low"] = (v < thr_lo).astype(f32).mean() if apply_lo else 0.0
    else:
        met[p + "_max"], met[p + "_min"] = stat[m != 0].max(), stat[m != 0].min()
        met[p + "_fraction_high"] = masked_mean((stat > thr).astype(f32), m)
        met[p + "_fraction_low"] = masked_mean((stat < thr_lo).astype(f32), m) if apply_lo else 0.0
    if m.sum() > 1:
        b = np.clip(stat, f32(thr_lo if apply_lo else 0.0), f32(thr))
        bm = masked_mean(b, m)
        met[p + "_std"] = np.sqrt(max(masked_mean(b * b, m) - bm * bm, 0))
    else:
        met[p + "_std"] = 0.0
    met[p + "_seq_mean"] = v.mean()
    met[p + "_seq_std"] = v.std(ddof=1) if v.size > 1 else 0.0
    met[p + "_seq_max"], met[p + "_seq_min"] = v.max(), v.min()
    met[p + "_seq_max_deviation"] = np.abs(v).max()
    met[p + "_seq_fraction_high"] = (v > thr).astype(f32).mean()
    if apply_lo:
        met[p + "_seq_fraction_low"] = (v < thr_lo).astype(f32).mean()
    return met


def rejection(lr, m, options, specs):
    import math
    x = np.clip(lr, -20, 20)
    stats = {"k1": -x, "k2": f32(0.5) * x ** 2, "k3": np.exp(x) - f32(1) - x}
    seq_valid = m.sum(-1) > 0
    mb = m != 0
    comb = np.ones_like(m)
    met = {}
    for opt, spec in zip(options, specs):
        kind = opt[-2:]
        k1 = kind == "k1"
        if k1:
            lo_s, up_s = spec.split("_") if "_" in spec else (str(1.0 / float(spec)), spec)
            lo, up = math.log(float(lo_s)), math.log(float(up_s))
        else:
            lo, up = 0.0, float(spec)
        tok = stats[kind]
        if opt.startswith("token"):
            level, per_seq, stat = "token", None, tok
        else:
            level = "sequence"
            if opt.startswith("seq_sum"):
                per_seq = masked_sum(tok, m, axis=-1)
            elif opt.startswith("seq_mean"):
                per_seq = masked_mean(tok, m, axis=-1)
            else:
                mx = np.where(mb, tok, -np.inf).max(-1)
                per_seq = np.where(mx == -np.inf, f32(0), mx).astype(f32)
            stat = per_seq[:, None] + np.zeros_like(tok)
        keep = ((stat >= lo) & (stat <= up)) if k1 else (stat <= up)
        comb = comb * keep.astype(f32)
        met.update(rs_metrics(opt, stat, m, seq_valid, level, per_seq, up, lo, k1))
        met["rollout_rs_%s_masked_fraction" % opt] = masked_mean(1 - keep.astype(f32), m)
        seq_keep = (~((~keep) & mb)).all(-1)
        met["rollout_rs_%s_seq_masked_fraction" % opt] = ((1 - seq_keep.astype(f32)) * seq_valid).sum() / seq_valid.sum()
    met["rollout_rs_masked_fraction"] = masked_mean(1 - comb, m)
    met["rollout_rs_seq_masked_fraction"] = ((~((comb > 0.5) & mb)) & mb).any(-1).astype(f32).mean()
    return (m * comb).astype(f32), met


def offpolicy(lp, roll, m):
    met = {}
    mt = masked_mean(lp, m, axis=-1)
    mr = masked_mean(roll, m, axis=-1)
    lr = lp - roll
    met["training_ppl"] = np.exp(-mt).mean()
    met["training_log_ppl"] = (-mt).mean()
    met["kl"] = masked_mean(roll - lp, m)
    met["k3_kl"] = masked_mean(np.exp(lr) - lr - 1, m)
    met["rollout_ppl"] = np.exp(-mr).mean()
    met["rollout_log_ppl"] = (-mr).mean()
    d = mr - mt
    met["log_ppl_diff"] = d.mean()
    met["log_ppl_abs_diff"] = np.abs(d).mean()
    met["log_ppl_diff_max"] = d.max()
    met["log_ppl_diff_min"] = d.min()
    met["ppl_ratio"] = np.exp(d).mean()
    met["chi2_token"] = masked_mean(np.exp(np.clip(lr, -20, 20)) ** 2, m) - 1
    met["chi2_seq"] = np.exp(2 * np.clip(masked_sum(lr, m, axis=-1), -20, 20)).mean() - 1
    return met


def bypass(roll, lp, adv, m, mode, loss_type, rc):
    lr = lp - roll
    met = {}
    w = None
    if rc.get("rollout_is") is not None:
        w, im = is_weights(lr, m, rc["rollout_is"], rc.get("rollout_is_threshold", 2.0), rc.get("rollout_is_batch_normalize", False))
        met.update(im)
    em = m
    if rc.get("rollout_rs") is not None:
        opts = [o.strip() for o in rc["rollout_rs"].split(",")]
        specs = [x.strip() for x in str(rc["rollout_rs_threshold"]).split(",")]
        specs = specs * len(opts) if len(specs) == 1 else specs
        em, rm = rejection(lr, m, opts, specs)
        met.update(rm)
    met.update(offpolicy(lp, roll, m))
    out = {"rollout_corr/" + k: float(v) for k, v in met.items()}
    if loss_type == "reinforce":
        loss, kl = pg_reinforce(roll, lp, adv, em, mode, w)
        out["actor/ppo_kl"] = float(kl)
    else:
        loss, cf, kl, lower = policy_vanilla(roll, lp, adv, em, mode)
        out.update({"actor/pg_clipfrac": float(cf), "actor/ppo_kl": float(kl), "actor/pg_clipfrac_lower": float(lower)})
    out["pg_loss"] = float(loss)
    return out


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

    # --- policy loss modes: same old/new/adv/pm as pg_* above ---
    show("gspo", pg_gspo(old, new, adv, pm, low=0.2, high=0.28))
    isw = t([[0.5, 1.5, 1.0, 1.0], [2.0, 1.0, 0.25, 1.0]])
    show("gspo_w", pg_gspo(old, new, adv, pm, low=0.2, high=0.28, w=isw))
    show("sapo", pg_sapo(old, new, adv, pm))
    show("sapo_tau", pg_sapo(old, new, adv, pm, tau_pos=2.0, tau_neg=0.5, w=isw))
    show("cispo", pg_cispo(old, new, adv, pm, low=0.2, high=0.28))
    show("cispo_seqsum", pg_cispo(old, new, adv, pm, low=0.2, high=0.28, mode="seq-mean-token-sum", w=isw))
    show("geo_mean", pg_geo_mean(old, new, adv, pm, low=0.2, high=0.28))
    show("geo_mean_w", pg_geo_mean(old, new, adv, pm, low=0.2, high=0.28, w=isw))
    keys = t([[0.9, 0.1, 0.5, 0.3], [0.2, 0.8, 0.4, 0.05]])
    cc = pg_clip_cov(old, new, adv, pm, keys, ratio_c=0.3, lb=-0.5, ub=0.5, low=0.2, high=0.28)
    show("clip_cov", cc[:3])
    print("clip_cov_chosen =", cc[3])
    kc = pg_kl_cov(old, new, adv, pm, ratio_k=0.3, coef=0.1)
    show("kl_cov", kc[:2])
    print("kl_cov_chosen =", kc[2])
    show("kl_cov_seqmean", pg_kl_cov(old, new, adv, pm, ratio_k=0.5, coef=1.0, mode="seq-mean-token-mean")[:2])
    import json
    cases = {
        "reinforce_token_is_rs": bypass(old, new, adv, pm, "token-mean", "reinforce",
                                        {"rollout_is": "token", "rollout_is_threshold": 2.0, "rollout_rs": "token_k1,seq_mean_k3", "rollout_rs_threshold": "0.3_2.5,0.5"}),
        "ppo_clip_seq_is_norm": bypass(old, new, adv, pm, "seq-mean-token-mean", "ppo_clip",
                                       {"rollout_is": "sequence", "rollout_is_threshold": 1.5, "rollout_is_batch_normalize": True,
                                        "rollout_rs": "seq_sum_k1,seq_max_k2,token_k3,seq_sum_k2", "rollout_rs_threshold": "3.0"}),
        "reinforce_seq_is_norm": bypass(old, new, adv, pm, "seq-mean-token-sum", "reinforce",
                                        {"rollout_is": "sequence", "rollout_is_threshold": 3.0, "rollout_is_batch_normalize": True,
                                         "rollout_rs": "seq_mean_k1,token_k2,seq_mean_k2,token_k1,seq_max_k3,seq_sum_k3,seq_mean_k3", "rollout_rs_threshold": "0.2_5,2,2,0.2_5,2,4,2"}),
        "ppo_clip_token_is_norm": bypass(old, new, adv, pm, "token-mean", "ppo_clip",
                                         {"rollout_is": "token", "rollout_is_threshold": 1.2, "rollout_is_batch_normalize": True}),
    }
    with open(__file__.replace("verl-reference.py", "bypass-mode-expected.json"), "w") as fh:
        json.dump(cases, fh, indent=1, sort_keys=True)
    print("bypass_mode cases written to bypass-mode-expected.json")
