"""Which indices torch.topk(largest=True) returns on the CPU when values tie (verl kl_cov's selection).

Needs torch (Debian: apt-get install python3-torch, 1.13 CPU; its TopKImpl matches torch 2.x).
The printed index sets are pasted into policy-loss/torch-topk.test.ts and policy-loss/kl-cov.test.ts.
Run: /usr/bin/python3 testdata/torch-topk-reference.py
"""
import torch


def topk_set(values, k):
    return sorted(torch.topk(torch.tensor(values, dtype=torch.float32), k, largest=True).indices.tolist())


if __name__ == "__main__":
    # kl_cov with equal covariances: adv [1,1,1,-1,-1,-1], logp [-.5,-.5,-.5,-1.5,-1.5,-1.5], ratio 0.34
    adv = torch.tensor([1, 1, 1, -1, -1, -1.0])
    lp = torch.tensor([-0.5, -0.5, -0.5, -1.5, -1.5, -1.5])
    cov = (adv - adv.mean()) * (lp - lp.mean())
    print("kl_cov_ties =", sorted(torch.topk(cov, max(1, int(6 * 0.34))).indices.tolist()))
    # std::nth_element path (k * 64 > n)
    print("nth_5_5_7 =", topk_set([5, 5, 7], 2))
    print("nth_ties =", topk_set([1, 3, 3, 2, 3, 0, 3, 1], 3))
    # std::partial_sort path (k * 64 <= n): 130 values in {0, 1, 2}, k = 2
    vals = [float((i * 7) % 3) for i in range(130)]
    print("partial_130 =", topk_set(vals, 2))
    vals = [float((i * 5) % 4) for i in range(200)]
    print("partial_200_k3 =", topk_set(vals, 3))
    print("nan_first =", topk_set([1.0, float("nan"), 2.0], 1))
