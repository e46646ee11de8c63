"""Golden numbers of verl's losses: value and metrics from the numpy re-statement (verl-reference.py),
gradients from torch autograd over the same formulas written in torch as verl writes them (detach
where verl detaches). Writes loss-golden.json, which policy/losses/losses.golden.test.ts checks the
jax-js losses against through lossOnLeaves.

Run: /usr/bin/python3 testdata/loss-golden.py   (numpy and torch; Debian python3-numpy python3-torch)
"""
import importlib.util
import json
import os

import numpy as np
import torch

HERE = os.path.dirname(os.path.abspath(__file__))
_spec = importlib.util.spec_from_file_location("verl_reference", os.path.join(HERE, "verl-reference.py"))
ref = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(ref)
f32 = np.float32

OLD = ref.t([[-1.0, -1.0, -1.0, -1.0], [-0.5, -0.5, -0.5, -0.5]])
NEW = ref.t([[-0.7, -1.5, -1.1, -0.2], [-0.5, 1.0, -0.45, -2.0]])
ADV = ref.t([[1.0, 1.0, -1.0, -2.0], [0.5, -1.0, 2.0, -1.5]])
PM = ref.t([[1, 1, 1, 1], [1, 1, 1, 0]])
ISW = ref.t([[0.5, 1.5, 1.0, 1.0], [2.0, 1.0, 0.25, 1.0]])
KEYS = ref.t([[0.9, 0.1, 0.5, 0.3], [0.2, 0.8, 0.4, 0.05]])
ENT = ref.t([[0.3, 1.2, 2.0, 0.7], [1.5, 0.1, 0.9, 3.0]])
REF_LP = ref.t([[-1.2, -0.5, -1.0, -0.4], [-1.0, -3.0, -0.2, -0.9]])
VP = ref.t([[0.0, 1.0, 2.5, -1.0], [0.2, 0.9, 3.0, 0.0]])
RET = ref.t([[0.5, 0.5, 0.5, 0.5], [1.0, 1.0, 1.0, 1.0]])
VAL = ref.t([[0.1, 0.4, 1.0, -0.5], [0.0, 2.0, 1.1, 0.0]])


def T(x):
    return torch.tensor(np.asarray(x, dtype=f32))


def agg(lm, m, mode, lsf=None):
    """verl agg_loss without global batch info (the micro-batch's own counts)."""
    if mode == "token-mean":
        return (lm * m).sum() / m.sum()
    if mode in ("seq-mean-token-sum", "seq-mean-token-mean"):
        seq = (lm * m).sum(-1)
        cnt = m.sum(-1)
        if mode == "seq-mean-token-mean":
            seq = seq / (cnt + 1e-8)
        sm = (cnt > 0).float()
        return (seq * sm).sum() / sm.sum()
    return (lm * m).sum() / (m.shape[-1] if lsf is None else lsf)


def vanilla(old, lp, adv, m, mode, low, high, c=3.0, w=None):
    nk = torch.clamp(lp - old, -20, 20)
    r = torch.exp(nk)
    l1, l2 = -adv * r, -adv * torch.clamp(r, 1 - low, 1 + high)
    c1 = torch.maximum(l1, l2)
    pg = torch.where(adv < 0, torch.minimum(-adv * c, c1), c1)
    return agg(pg if w is None else pg * w, m, mode)


def gspo(old, lp, adv, m, low, high, w=None):
    n = torch.clamp(m.sum(-1), min=1)
    seq = ((lp - old) * m).sum(-1) / n
    log_s = torch.clamp(lp - lp.detach() + seq.detach()[:, None], max=10)
    s = torch.exp(log_s)
    pg = torch.maximum(-adv * s, -adv * torch.clamp(s, 1 - low, 1 + high))
    return agg(pg if w is None else pg * w, m, "seq-mean-token-mean")


def sapo(old, lp, adv, m, tau_pos, tau_neg, w=None):
    r = torch.exp(torch.clamp(lp - old, -20, 20))
    tau = torch.where(adv > 0, torch.tensor(tau_pos), torch.tensor(tau_neg))
    pg = -torch.sigmoid(tau * (r - 1)) * (4 / tau) * adv
    return agg(pg if w is None else pg * w, m, "seq-mean-token-mean")


def cispo(old, lp, adv, m, low, high, mode, w=None):
    cr = torch.clamp(torch.exp(torch.clamp(lp - old, -20, 20)), 1 - low, 1 + high).detach()
    pg = -cr * adv * lp
    return agg(pg if w is None else pg * w, m, mode)


def geo_mean(old, lp, adv, m, low, high, w=None):
    nk = lp - old
    sg = torch.sign(adv)
    nkmin = sg * torch.minimum(sg * nk, sg * torch.clamp(nk, -low, high))
    n = m.sum(-1)
    ratio = torch.exp((nkmin * m).sum(-1) / (n + 1e-8))
    pg = -((adv * m).sum(-1) / (n + 1e-8)) * ratio
    if w is not None:
        pg = pg * torch.exp((torch.log(w + 1e-10) * m).sum(-1) / (n + 1e-8))
    return pg.mean()


def clip_cov(old, lp, adv, m, chosen, low, high, mode):
    r = torch.exp(lp - old)
    corr = torch.ones(lp.numel())
    corr[list(chosen)] = 0
    pg = torch.maximum(-adv * r, -adv * torch.clamp(r, 1 - low, 1 + high)) * corr.reshape(lp.shape)
    return agg(pg, m, mode)


def kl_cov(old, lp, adv, m, chosen, coef, mode):
    nk = lp - old
    sel = torch.zeros(lp.numel())
    sel[list(chosen)] = 1
    pg = -adv * torch.exp(nk) + coef * torch.abs(nk) * sel.reshape(lp.shape)
    return agg(pg, m, mode)


def bypass_loss(roll, lp, adv, m, mode, loss_type, rc):
    """The differentiable part of bypass mode; IS weights and the rejection mask come from numpy on detached values."""
    lr = np.asarray(lp.detach().numpy(), dtype=f32) - roll
    w = None
    if rc.get("rollout_is") is not None:
        w, _ = ref.is_weights(lr, PM, rc["rollout_is"], rc.get("rollout_is_threshold", 2.0), rc.get("rollout_is_batch_normalize", False))
    em = PM
    if rc.get("rollout_rs") is not None:
        opts = [o.strip() for o in rc["rollout_rs"].split(",")]
        specs = [x.strip() for x in str(rc["rollout_rs_threshold"]).split(",")]
        em, _ = ref.rejection(lr, PM, opts, specs * len(opts) if len(specs) == 1 else specs)
    if loss_type == "reinforce":
        pg = -T(adv) * lp
        return agg(pg if w is None else pg * T(w), T(em), mode)
    return vanilla(T(roll), lp, T(adv), T(em), mode, 0.2, 0.2)


def value_loss(vp, ret, val, m, cr, mode):
    vc = torch.maximum(torch.minimum(vp, val + cr), val - cr)
    return 0.5 * agg(torch.maximum((vp - ret) ** 2, (vc - ret) ** 2), m, mode)


def grad_of(fn, x):
    leaf = T(x).requires_grad_(True)
    loss = fn(leaf)
    loss.backward()
    return float(loss), [float(g) for g in leaf.grad.reshape(-1)]


def flat(x):
    return [float(v) for v in np.asarray(x, dtype=np.float64).reshape(-1)]


def pg_metrics(values):
    loss, clipfrac, kl, lower = (float(v) for v in values)
    return loss, {"actor/pg_clipfrac": clipfrac, "actor/ppo_kl": kl, "actor/pg_clipfrac_lower": lower}


def policy_case(spec, numpy_out, torch_fn, inputs=None):
    loss, metrics = numpy_out
    torch_loss, grad = grad_of(torch_fn, NEW)
    assert abs(torch_loss - loss) <= 1e-6 * max(1.0, abs(loss)), (spec, torch_loss, loss)
    return {"kind": "policy", "spec": spec, "inputs": inputs or {}, "loss": loss, "metrics": metrics, "dlogprobs": grad}


def main():
    o, a, m, w = T(OLD), T(ADV), T(PM), T(ISW)
    isw = {"rollout_is_weights": flat(ISW)}
    cases = {}
    sym = {"clip_ratio_low": 0.2, "clip_ratio_high": 0.2}
    asym = {"clip_ratio_low": 0.2, "clip_ratio_high": 0.28}
    cases["pg_sym"] = policy_case({**sym, "loss_mode": "vanilla"}, pg_metrics(ref.policy_vanilla(OLD, NEW, ADV, PM)), lambda lp: vanilla(o, lp, a, m, "token-mean", 0.2, 0.2))
    cases["pg_asym"] = policy_case(
        {**asym, "loss_mode": "vanilla"},
        pg_metrics(ref.policy_vanilla(OLD, NEW, ADV, PM, low=0.2, high=0.28, c=3.0)),
        lambda lp: vanilla(o, lp, a, m, "token-mean", 0.2, 0.28),
    )
    cases["pg_seqmean"] = policy_case(
        {**asym, "loss_mode": "vanilla", "loss_agg_mode": "seq-mean-token-mean"},
        pg_metrics(ref.policy_vanilla(OLD, NEW, ADV, PM, mode="seq-mean-token-mean", low=0.2, high=0.28)),
        lambda lp: vanilla(o, lp, a, m, "seq-mean-token-mean", 0.2, 0.28),
    )
    cases["gspo"] = policy_case({**asym, "loss_mode": "gspo"}, pg_metrics(ref.pg_gspo(OLD, NEW, ADV, PM, low=0.2, high=0.28)), lambda lp: gspo(o, lp, a, m, 0.2, 0.28))
    cases["gspo_w"] = policy_case(
        {**asym, "loss_mode": "gspo"}, pg_metrics(ref.pg_gspo(OLD, NEW, ADV, PM, low=0.2, high=0.28, w=ISW)), lambda lp: gspo(o, lp, a, m, 0.2, 0.28, w), isw
    )
    cases["sapo"] = policy_case({"loss_mode": "sapo", "tau_pos": 1.0, "tau_neg": 1.05}, pg_metrics(ref.pg_sapo(OLD, NEW, ADV, PM)), lambda lp: sapo(o, lp, a, m, 1.0, 1.05))
    cases["sapo_tau"] = policy_case(
        {"loss_mode": "sapo", "tau_pos": 2.0, "tau_neg": 0.5},
        pg_metrics(ref.pg_sapo(OLD, NEW, ADV, PM, tau_pos=2.0, tau_neg=0.5, w=ISW)),
        lambda lp: sapo(o, lp, a, m, 2.0, 0.5, w),
        isw,
    )
    cases["cispo"] = policy_case(
        {**asym, "loss_mode": "cispo"}, pg_metrics(ref.pg_cispo(OLD, NEW, ADV, PM, low=0.2, high=0.28)), lambda lp: cispo(o, lp, a, m, 0.2, 0.28, "token-mean")
    )
    cases["cispo_seqsum"] = policy_case(
        {**asym, "loss_mode": "cispo", "loss_agg_mode": "seq-mean-token-sum"},
        pg_metrics(ref.pg_cispo(OLD, NEW, ADV, PM, low=0.2, high=0.28, mode="seq-mean-token-sum", w=ISW)),
        lambda lp: cispo(o, lp, a, m, 0.2, 0.28, "seq-mean-token-sum", w),
        isw,
    )
    cases["geo_mean"] = policy_case(
        {**asym, "loss_mode": "geo_mean"}, pg_metrics(ref.pg_geo_mean(OLD, NEW, ADV, PM, low=0.2, high=0.28)), lambda lp: geo_mean(o, lp, a, m, 0.2, 0.28)
    )
    cases["geo_mean_w"] = policy_case(
        {**asym, "loss_mode": "geo_mean"},
        pg_metrics(ref.pg_geo_mean(OLD, NEW, ADV, PM, low=0.2, high=0.28, w=ISW)),
        lambda lp: geo_mean(o, lp, a, m, 0.2, 0.28, w),
        isw,
    )
    cases["gpg_seqsum"] = policy_case(
        {"loss_mode": "gpg", "loss_agg_mode": "seq-mean-token-sum"},
        (float(ref.agg_loss(-ADV * NEW, PM, "seq-mean-token-sum")), {}),
        lambda lp: agg(-a * lp, m, "seq-mean-token-sum"),
    )
    cc = ref.pg_clip_cov(OLD, NEW, ADV, PM, KEYS, ratio_c=0.3, lb=-0.5, ub=0.5, low=0.2, high=0.28)
    cases["clip_cov"] = policy_case(
        {**asym, "loss_mode": "clip_cov", "clip_cov_ratio": 0.3, "clip_cov_lb": -0.5, "clip_cov_ub": 0.5},
        (float(cc[0]), {"actor/pg_clipfrac": float(cc[1]), "actor/ppo_kl": float(cc[2])}),
        lambda lp: clip_cov(o, lp, a, m, cc[3], 0.2, 0.28, "token-mean"),
        {"clip_cov_keys": flat(KEYS)},
    )
    cases["clip_cov"]["chosen"] = cc[3]
    kc = ref.pg_kl_cov(OLD, NEW, ADV, PM, ratio_k=0.3, coef=0.1)
    cases["kl_cov"] = policy_case(
        {"loss_mode": "kl_cov", "kl_cov_ratio": 0.3, "ppo_kl_coef": 0.1},
        (float(kc[0]), {"actor/ppo_kl": float(kc[1])}),
        lambda lp: kl_cov(o, lp, a, m, kc[2], 0.1, "token-mean"),
    )
    cases["kl_cov"]["chosen"] = kc[2]
    ks = ref.pg_kl_cov(OLD, NEW, ADV, PM, ratio_k=0.5, coef=1.0, mode="seq-mean-token-mean")
    cases["kl_cov_seqmean"] = policy_case(
        {"loss_mode": "kl_cov", "kl_cov_ratio": 0.5, "ppo_kl_coef": 1.0, "loss_agg_mode": "seq-mean-token-mean"},
        (float(ks[0]), {"actor/ppo_kl": float(ks[1])}),
        lambda lp: kl_cov(o, lp, a, m, ks[2], 1.0, "seq-mean-token-mean"),
    )
    bypass = json.load(open(os.path.join(HERE, "bypass-mode-expected.json")))
    bypass_cases = {
        "reinforce_token_is_rs": ("token-mean", "reinforce", {"rollout_is": "token", "rollout_is_threshold": 2.0, "rollout_rs": "token_k1,seq_mean_k3", "rollout_rs_threshold": "0.3_2.5,0.5"}),
        "ppo_clip_seq_is_norm": (
            "seq-mean-token-mean",
            "ppo_clip",
            {"rollout_is": "sequence", "rollout_is_threshold": 1.5, "rollout_is_batch_normalize": True, "rollout_rs": "seq_sum_k1,seq_max_k2,token_k3,seq_sum_k2", "rollout_rs_threshold": "3.0"},
        ),
        "reinforce_seq_is_norm": (
            "seq-mean-token-sum",
            "reinforce",
            {
                "rollout_is": "sequence",
                "rollout_is_threshold": 3.0,
                "rollout_is_batch_normalize": True,
                "rollout_rs": "seq_mean_k1,token_k2,seq_mean_k2,token_k1,seq_max_k3,seq_sum_k3,seq_mean_k3",
                "rollout_rs_threshold": "0.2_5,2,2,0.2_5,2,4,2",
            },
        ),
        "ppo_clip_token_is_norm": ("token-mean", "ppo_clip", {"rollout_is": "token", "rollout_is_threshold": 1.2, "rollout_is_batch_normalize": True}),
    }
    for name, (mode, loss_type, rc) in bypass_cases.items():
        expected = dict(bypass[name])
        loss = expected.pop("pg_loss")
        cases["bypass_" + name] = policy_case(
            {**sym, "loss_mode": "bypass_mode", "loss_agg_mode": mode, "rollout_correction": {**rc, "loss_type": loss_type}},
            (loss, expected),
            lambda lp, mode=mode, loss_type=loss_type, rc=rc: bypass_loss(OLD, lp, ADV, PM, mode, loss_type, rc),
        )
    vf, vf_clipfrac = ref.value_loss(VP, RET, VAL, PM, 0.5)
    vloss, vgrad = grad_of(lambda vp: value_loss(vp, T(RET), T(VAL), m, 0.5, "token-mean"), VP)
    assert abs(vloss - float(vf)) <= 1e-6
    cases["vf"] = {
        "kind": "value",
        "spec": {"cliprangeValue": 0.5, "lossAggMode": "token-mean"},
        "inputs": {"returns": flat(RET), "old_values": flat(VAL)},
        "loss": float(vf),
        "metrics": {"critic/vf_clipfrac": float(vf_clipfrac)},
        "dvalues": vgrad,
    }
    # The actor's entropy bonus and KL loss terms on the same batch (pg_asym plus -0.01 agg(entropy) + 0.05 agg(kl)).
    modes = ["token-mean", "seq-mean-token-sum", "seq-mean-token-mean", "seq-mean-token-sum-norm"]
    for kind, mode in zip(["kl", "abs", "mse", "low_var_kl", "low_var_kl+"], modes + ["token-mean"]):
        if True:
            pg = ref.policy_vanilla(OLD, NEW, ADV, PM, mode=mode, low=0.2, high=0.28)[0]
            ent = ref.agg_loss(ENT, PM, mode)
            # A "+" name is straight-through: the base estimator's value with k2's gradient.
            kl = ref.agg_loss(ref.kl_penalty(NEW, REF_LP, kind.rstrip("+")), PM, mode)
            e = T(ENT).requires_grad_(True)
            lp = T(NEW).requires_grad_(True)
            if kind in ("kl", "k1"):
                kt = lp - T(REF_LP)
            elif kind == "abs":
                kt = torch.abs(lp - T(REF_LP))
            elif kind == "mse":
                kt = 0.5 * (lp - T(REF_LP)) ** 2
            else:
                c = torch.clamp(T(REF_LP) - lp, -20, 20)
                kt = torch.clamp(torch.exp(c) - c - 1, -10, 10)
            if kind.endswith("+"):
                k2 = 0.5 * (lp - T(REF_LP)) ** 2
                kt = k2 - k2.detach() + kt.detach()
            total = vanilla(o, lp, a, m, mode, 0.2, 0.28) - 0.01 * agg(e, m, mode) + 0.05 * agg(kt, m, mode)
            total.backward()
            want = float(pg) - 0.01 * float(ent) + 0.05 * float(kl)
            assert abs(float(total) - want) <= 1e-6 * max(1.0, abs(want)), (kind, mode)
            cases["actor_%s_%s" % (kind, mode)] = {
                "kind": "policy",
                "spec": {**asym, "loss_mode": "vanilla", "loss_agg_mode": mode, "entropy_coeff": 0.01, "use_kl_loss": True, "kl_loss_coef": 0.05, "kl_loss_type": kind},
                "inputs": {"ref_logprobs": flat(REF_LP)},
                "loss": want,
                "metrics": {"actor/pg_loss": float(pg), "actor/entropy": float(ent), "actor/kl_loss": float(kl)},
                "dlogprobs": [float(g) for g in lp.grad.reshape(-1)],
                "dentropy": [float(g) for g in e.grad.reshape(-1)],
            }
    # agg_loss on its own (the agg_* lines of verl-reference.py): row 2 fully masked; loss_scale_factor 10 is
    # the one global batch setting the worker's aggregation takes (the others are verl's multi-rank path).
    lm = ref.t([[1.0, 2.0, 3.0, 4.0], [5.0, 6.0, 7.0, 8.0], [9.0, 10.0, 11.0, 12.0]])
    am = ref.t([[1, 1, 0, 0], [1, 1, 1, 1], [0, 0, 0, 0]])
    for mode, lsf in [(mo, None) for mo in modes] + [("seq-mean-token-sum-norm", 10)]:
        want = float(ref.agg_loss(lm, am, mode, lsf=lsf))
        got, grad = grad_of(lambda x, mode=mode, lsf=lsf: agg(x, T(am), mode, lsf), lm)
        assert abs(got - want) <= 1e-6 * max(1.0, abs(want)), (mode, got, want)
        cases["agg_%s%s" % (mode, "" if lsf is None else "_lsf%d" % lsf)] = {
            "kind": "aggregate",
            "spec": {"loss_agg_mode": mode, "loss_scale_factor": 4 if lsf is None else lsf},
            "rows": 3,
            "cols": 4,
            "loss_mat": flat(lm),
            "mask": flat(am),
            "loss": want,
            "metrics": {},
            "dlogprobs": grad,
        }
    out = {
        "fixture": {"rows": 2, "cols": 4, "old_logprobs": flat(OLD), "logprobs": flat(NEW), "advantages": flat(ADV), "response_mask": flat(PM), "entropy": flat(ENT), "values": flat(VP)},
        "cases": cases,
    }
    with open(os.path.join(HERE, "loss-golden.json"), "w") as fh:
        json.dump(out, fh, indent=1, sort_keys=True)
    print("%d cases written to loss-golden.json" % len(cases))


if __name__ == "__main__":
    main()
