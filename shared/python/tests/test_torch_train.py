"""The PyTorch engine's training side (rl_torch_engine.training/engine/checkpoint):
one update from leaf gradients equals a plain-torch reference of the same loss
(each pair unpadded, the loss in one graph, AdamW and clipping by their
formulas); clipping and skipped steps; exact resume through the optimizer
state file; save() directories; gradient checkpointing; the serve loop's
training ops. Skipped without torch."""

import math
import os
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from test_torch_engine import PACKAGE_ROOT, random_tensors, tiny_config, write_model_dir

try:
    import torch
except ImportError:
    torch = None

PAIRS = [([3, 40, 15, 9, 26], [5, 35, 8, 9]), ([27, 1, 8], [2, 8, 18, 28, 1, 8]), ([7], [1]), ([4, 4, 2, 9, 11, 12, 13], [])]
OPTIM = {"lr": 1e-4, "betas": [0.9, 0.95], "eps": 1e-8, "weight_decay": 0.1, "max_grad_norm": 1.0}


def advantages(pairs):
    g = torch.Generator().manual_seed(3)
    return [torch.randn(len(r), generator=g) for _, r in pairs]


def leaf_loss(logprobs, entropies, adv):
    """A token-mean policy-gradient loss with an entropy bonus, over flat per-token leaves."""
    return -(adv * logprobs).mean() - 0.01 * entropies.mean()


def leaf_grads(out, adv):
    """What the TypeScript side sends back: d(loss)/d(leaf), from the leaves' values alone."""
    lp = out["logprobs"].clone().requires_grad_(True)
    ent = out["entropies"].clone().requires_grad_(True)
    leaf_loss(lp, ent, adv).backward()
    return {"logprobs": lp.grad, "entropies": ent.grad}


def reference_step(model, pairs, adv, optim, step=1, state=None):
    """Plain torch: each pair run alone through the model, the loss over its response positions, the global
    norm and clipping of clip_grad_norm_, and AdamW's update by its formula. Returns (norm, new weights, state)."""
    params = dict(model.named_parameters())
    lps, ents = [], []
    for prompt, response in pairs:
        if not response:
            continue
        ids = torch.tensor([list(prompt) + list(response)])
        hidden = model.model(ids, torch.ones_like(ids), torch.arange(ids.shape[1])[None])
        logits = model.logits(hidden[0, len(prompt) - 1 : -1])
        logp = torch.log_softmax(logits, -1)
        lps.append(logp.gather(-1, torch.tensor(response)[:, None])[:, 0])
        ents.append(-(logp.exp() * logp).sum(-1))
    leaf_loss(torch.cat(lps), torch.cat(ents), adv).backward()
    grads = {n: p.grad.detach().clone() for n, p in params.items()}
    norm = math.sqrt(sum(float((g.double() ** 2).sum()) for g in grads.values()))
    clip = min(1.0, optim["max_grad_norm"] / (norm + 1e-6))
    (b1, b2), lr, eps, wd = optim["betas"], optim["lr"], optim["eps"], optim["weight_decay"]
    state = state or {n: (torch.zeros_like(g), torch.zeros_like(g)) for n, g in grads.items()}
    out, new_state = {}, {}
    for n, p in params.items():
        g = grads[n] * clip
        m = b1 * state[n][0] + (1 - b1) * g
        v = b2 * state[n][1] + (1 - b2) * g * g
        update = (m / (1 - b1**step)) / ((v / (1 - b2**step)).sqrt() + eps)
        out[n] = p.detach() * (1 - lr * wd) - lr * update
        new_state[n] = (m, v)
    return norm, out, new_state


@unittest.skipIf(torch is None, "torch not installed")
class TorchTrainTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory(prefix="rl-torch-train-")
        self.addCleanup(self.tmp.cleanup)
        self.cfg = tiny_config("Qwen3ForCausalLM", attention_bias=True, tie_word_embeddings=False)
        self.dir = os.path.join(self.tmp.name, "model")
        write_model_dir(self.dir, self.cfg, random_tensors(self.cfg, seed=4))

    def engine(self, directory=None, **open_args):
        from rl_torch_engine.engine import Engine

        engine = Engine(torch.device("cpu"))
        engine.handle({"op": "open", "model": directory or self.dir, "train": True, "optimizer": OPTIM, **open_args}, {})
        return engine

    @staticmethod
    def pair_tensors(pairs):
        return {
            "prompt_lengths": torch.tensor([len(p) for p, _ in pairs], dtype=torch.int32),
            "response_lengths": torch.tensor([len(r) for _, r in pairs], dtype=torch.int32),
            "ids": torch.tensor([t for p, r in pairs for t in list(p) + list(r)], dtype=torch.int32),
        }

    def update(self, engine, pairs=PAIRS, lr=None):
        _, out = engine.handle({"op": "forward"}, self.pair_tensors(pairs))
        engine.handle({"op": "backward"}, leaf_grads(out, torch.cat(advantages(pairs))))
        header, tensors = engine.handle({"op": "step", **({} if lr is None else {"lr": lr})}, {})
        return header, float(tensors["grad_norm"][0])

    def test_one_update_equals_the_plain_torch_reference(self):
        from rl_torch_engine import load_model_dir

        for max_tokens in (16384, 8):  # one padded block, and micro-batches
            with self.subTest(max_tokens=max_tokens):
                engine = self.engine(max_tokens=max_tokens)
                header, norm = self.update(engine)
                ref_norm, ref_weights, _ = reference_step(load_model_dir(self.dir), PAIRS, torch.cat(advantages(PAIRS)), OPTIM)
                self.assertEqual((header["skipped"], header["step"]), (False, 1))
                self.assertGreater(ref_norm, OPTIM["max_grad_norm"])  # the step clipped
                self.assertAlmostEqual(norm, ref_norm, delta=1e-5 * ref_norm)
                worst = max(float((p.detach() - ref_weights[n]).abs().max()) for n, p in engine.model.named_parameters())
                self.assertLess(worst, 1e-6)
                moved = max(float((p.detach() - q).abs().max()) for (n, p), q in zip(engine.model.named_parameters(), load_model_dir(self.dir).parameters()))
                self.assertGreater(moved, 5e-5)  # the weights did move, by about lr

    def test_lr_override_and_no_clipping(self):
        from rl_torch_engine import load_model_dir

        optim = {**OPTIM, "max_grad_norm": 0, "lr": 5e-4}
        engine = self.engine(optimizer=optim)
        header, norm = self.update(engine, lr=2e-4)
        _, ref_weights, _ = reference_step(load_model_dir(self.dir), PAIRS, torch.cat(advantages(PAIRS)), {**optim, "max_grad_norm": math.inf, "lr": 2e-4})
        worst = max(float((p.detach() - ref_weights[n]).abs().max()) for n, p in engine.model.named_parameters())
        self.assertLess(worst, 1e-6)

    def test_a_gradient_that_is_not_finite_skips_the_step(self):
        engine = self.engine()
        before = {n: p.detach().clone() for n, p in engine.model.named_parameters()}
        _, out = engine.handle({"op": "forward"}, self.pair_tensors(PAIRS))
        grads = leaf_grads(out, torch.cat(advantages(PAIRS)))
        grads["logprobs"][2] = math.nan
        engine.handle({"op": "backward"}, grads)
        header, tensors = engine.handle({"op": "step"}, {})
        self.assertEqual((header["skipped"], header["step"]), (True, 0))
        self.assertTrue(math.isnan(float(tensors["grad_norm"][0])))
        for n, p in engine.model.named_parameters():
            self.assertTrue(torch.equal(p.detach(), before[n]), n)
        with self.assertRaisesRegex(ValueError, "step: no gradients accumulated"):
            engine.handle({"op": "step"}, {})
        header, _ = self.update(engine)  # the next step runs as the first
        self.assertEqual((header["skipped"], header["step"]), (False, 1))

    def test_accumulating_two_halves_equals_one_batch(self):
        whole, halves = self.engine(), self.engine()
        self.update(whole)
        adv = advantages(PAIRS)
        for part in (slice(0, 2), slice(2, 4)):
            _, out = halves.handle({"op": "forward"}, self.pair_tensors(PAIRS[part]))
            # The token-mean over the whole batch, split: each half's share of the sum.
            n = sum(len(r) for _, r in PAIRS)
            lp = out["logprobs"].clone().requires_grad_(True)
            ent = out["entropies"].clone().requires_grad_(True)
            (-(torch.cat(adv[part]) * lp).sum() / n - 0.01 * ent.sum() / n).backward()
            halves.handle({"op": "backward"}, {"logprobs": lp.grad, "entropies": ent.grad})
        halves.handle({"op": "step"}, {})
        for (n, p), q in zip(whole.model.named_parameters(), halves.model.parameters()):
            self.assertLess(float((p - q).abs().max()), 1e-6, n)

    def test_optimizer_state_resumes_exactly(self):
        from rl_torch_engine import load_model_dir
        from rl_torch_engine.safetensors import decode_safetensors

        straight = self.engine()
        for _ in range(3):
            self.update(straight)
        first = self.engine()
        self.update(first)
        self.update(first)
        saved = os.path.join(self.tmp.name, "step2")
        first.handle({"op": "save", "path": saved, "version": "v2"}, {})
        header, tensors = first.handle({"op": "save_optimizer"}, {})
        self.assertEqual(header["step"], 2)
        raw = tensors["state"]
        state, metadata = decode_safetensors(raw, "state")
        self.assertEqual(metadata, {"format": "rl-policy-adamw", "step": "2"})
        self.assertEqual(sorted(state), sorted(f"{k}.{n}" for k in "mv" for n, _ in straight.model.named_parameters()))
        resumed = self.engine(saved)
        header, _ = resumed.handle({"op": "load_optimizer"}, {"state": torch.frombuffer(bytearray(raw), dtype=torch.uint8)})
        self.assertEqual(header["step"], 2)
        header, _ = self.update(resumed)
        self.assertEqual(header["step"], 3)
        for (n, p), q in zip(straight.model.named_parameters(), resumed.model.parameters()):
            self.assertTrue(torch.equal(p, q), n)
        # The state file written again is the same bytes (nothing lost or reordered in the round trip).
        path = os.path.join(self.tmp.name, "adam.safetensors")
        resumed.handle({"op": "save_optimizer", "path": path}, {})
        _, again = straight.handle({"op": "save_optimizer"}, {})
        with open(path, "rb") as f:
            self.assertEqual(f.read(), again["state"])
        self.assertTrue(all(torch.equal(a, b) for a, b in zip(load_model_dir(saved).parameters(), first.model.parameters())))

    def test_refusals_of_the_optimizer_state(self):
        from rl_torch_engine.checkpoint import encode_adam_state
        from rl_torch_engine.config import ConfigError

        engine = self.engine()
        trainer = engine.trainer
        other_cfg = tiny_config("Qwen3ForCausalLM")  # no biases, tied head
        other = os.path.join(self.tmp.name, "other")
        write_model_dir(other, other_cfg, random_tensors(other_cfg, seed=1))
        smaller = self.engine(other).trainer
        for source, into, message in [
            (smaller, engine, "optimizer state: m.model.layers.0.self_attn.q_proj.bias: is missing or has the wrong shape"),
            (trainer, self.engine(other), "optimizer state: m.lm_head.weight: a tensor the model does not have"),
        ]:
            raw = encode_adam_state(source.params, source.optimizer, 0)
            with self.subTest(message), self.assertRaisesRegex(ConfigError, message):
                into.handle({"op": "load_optimizer"}, {"state": torch.frombuffer(bytearray(raw), dtype=torch.uint8)})
        with self.assertRaisesRegex(ValueError, "give a path or the state"):
            engine.handle({"op": "load_optimizer"}, {})

    def test_saved_directory_reloads_to_the_same_tensors(self):
        from rl_torch_engine import load_model_dir
        from rl_torch_engine.safetensors import decode_safetensors

        engine = self.engine()
        with open(os.path.join(self.dir, "tokenizer.json"), "w") as f:
            f.write("{}")
        self.update(engine)
        target = os.path.join(self.tmp.name, "saved")
        engine.handle({"op": "save", "path": target, "version": "v1"}, {})
        self.assertEqual(sorted(os.listdir(target)), ["config.json", "model.safetensors", "tokenizer.json"])
        reloaded = load_model_dir(target)
        names = [n for n, _ in engine.model.named_parameters()]
        self.assertEqual([n for n, _ in reloaded.named_parameters()], names)
        for (n, p), q in zip(engine.model.named_parameters(), reloaded.parameters()):
            self.assertTrue(torch.equal(p, q), n)
        _, tensors = engine.handle({"op": "weights"}, {})
        with open(os.path.join(target, "model.safetensors"), "rb") as f:
            self.assertEqual(f.read(), tensors["safetensors"])
        weights, metadata = decode_safetensors(tensors["safetensors"], "weights")
        self.assertEqual((sorted(weights), metadata), (sorted(names), {"format": "pt"}))
        with self.assertRaisesRegex(ValueError, "exists and is not a model directory"):
            engine.handle({"op": "save", "path": os.path.join(self.tmp.name)}, {})

    def test_gradient_checkpointing_gives_the_same_gradients(self):
        plain, checkpointed = self.engine(), self.engine(gradient_checkpointing=True)
        for engine in (plain, checkpointed):
            _, out = engine.handle({"op": "forward"}, self.pair_tensors(PAIRS))
            engine.handle({"op": "backward"}, leaf_grads(out, torch.cat(advantages(PAIRS))))
        for (n, p), q in zip(plain.model.named_parameters(), checkpointed.model.parameters()):
            self.assertIsNotNone(p.grad, n)
            self.assertLess(float((p.grad - q.grad).abs().max()), 1e-7, n)

    def test_critic_values_and_their_gradient(self):
        from rl_torch_engine import load_model_dir

        cfg = tiny_config("Qwen3ForTokenClassification", num_labels=1)
        critic_dir = os.path.join(self.tmp.name, "critic")
        write_model_dir(critic_dir, cfg, random_tensors(cfg, seed=6))
        engine = self.engine(critic_dir)
        _, out = engine.handle({"op": "forward"}, self.pair_tensors(PAIRS))
        self.assertEqual(list(out), ["values"])
        model = load_model_dir(critic_dir)
        expected = []
        for prompt, response in PAIRS:
            ids = torch.tensor([list(prompt) + list(response)])
            hidden = model.model(ids, torch.ones_like(ids), torch.arange(ids.shape[1])[None])
            expected.append(model.score(hidden[0, len(prompt) - 1 : -1])[: len(response), 0])
        self.assertLess(float((out["values"] - torch.cat(expected).detach()).abs().max()), 1e-5)
        _, scored = engine.handle({"op": "score", "leaves": ["values"]}, self.pair_tensors(PAIRS))
        self.assertTrue(torch.equal(scored["values"], out["values"]))
        engine.handle({"op": "backward"}, {"values": torch.ones_like(out["values"])})
        self.assertEqual(engine.model.score.bias.grad.tolist(), [float(out["values"].numel())])
        with self.assertRaisesRegex(ValueError, "forward: values asked of a model without a value head"):
            self.engine().handle({"op": "forward", "leaves": ["values"]}, self.pair_tensors(PAIRS))

    def test_refusals_name_the_problem(self):
        from rl_torch_engine.engine import Engine

        engine = self.engine()
        with self.assertRaisesRegex(ValueError, "backward: no forward is pending"):
            engine.handle({"op": "backward"}, {"logprobs": torch.zeros(11)})
        _, out = engine.handle({"op": "forward"}, self.pair_tensors(PAIRS))
        with self.assertRaisesRegex(ValueError, "backward: logprobs has 3 values, the forward answered 11"):
            engine.handle({"op": "backward"}, {"logprobs": torch.zeros(3)})
        with self.assertRaisesRegex(ValueError, "backward: no forward is pending"):  # a failed backward frees the graph too
            engine.handle({"op": "backward"}, {"logprobs": torch.zeros(11)})
        engine.handle({"op": "forward"}, self.pair_tensors(PAIRS))
        engine.handle({"op": "release"}, {})  # what the caller sends when its loss failed
        with self.assertRaisesRegex(ValueError, "backward: no forward is pending"):
            engine.handle({"op": "backward"}, {"logprobs": torch.zeros(11)})
        with self.assertRaisesRegex(ValueError, "forward: leaves must be a non-empty list of distinct names from logprobs, entropies, values"):
            engine.handle({"op": "forward", "leaves": ["logits"]}, self.pair_tensors(PAIRS))
        with self.assertRaisesRegex(ValueError, "backward: entropies is not a leaf of the pending forward \\(logprobs\\)"):
            engine.handle({"op": "forward", "leaves": ["logprobs"]}, self.pair_tensors(PAIRS))
            engine.handle({"op": "backward"}, {"entropies": torch.zeros(11)})
        cases = [
            ({"optimizer": {**OPTIM, "lr": -1}}, "optimizer.lr must be a positive number"),
            ({"optimizer": {**OPTIM, "betas": [0.9, 1.0]}}, "optimizer.betas must be two numbers in [0, 1)"),
            ({"optimizer": {**OPTIM, "momentum": 0.9}}, "optimizer.momentum is not a setting"),
            ({"optimizer": None}, "open: optimizer must be an object"),
            ({"gradient_checkpointing": "yes"}, "gradient_checkpointing must be a boolean"),
            ({"compile": 1}, "open: compile must be a boolean"),
        ]
        if not hasattr(torch.nn.Module, "compile"):  # Debian's torch 1.13: the refusal names the version needed
            cases.append(({"compile": True}, "open: compile needs torch >= 2.2"))
        for extra, message in cases:
            with self.subTest(message), self.assertRaisesRegex(ValueError, message.replace("[", r"\[").replace("(", r"\(").replace(")", r"\)")):
                Engine(torch.device("cpu")).handle({"op": "open", "model": self.dir, "train": True, "optimizer": OPTIM, **extra}, {})
        scorer = Engine(torch.device("cpu"))
        scorer.handle({"op": "open", "model": self.dir}, {})
        with self.assertRaisesRegex(ValueError, "forward: the model was opened without train: true"):
            scorer.handle({"op": "forward"}, self.pair_tensors(PAIRS))
        long_pair = [([1] * 40, [2] * 30)]
        with self.assertRaisesRegex(ValueError, r"forward: pairs\[0\] has 70 tokens, more than max_position_embeddings \(64\)"):
            engine.handle({"op": "forward"}, self.pair_tensors(long_pair))

    def test_serve_runs_a_training_step_over_frames(self):
        from rl_torch_engine.protocol import read_frame, write_frame

        env = {**os.environ, "PYTHONPATH": PACKAGE_ROOT}
        child = subprocess.Popen([sys.executable, "-m", "rl_torch_engine", "serve", "--device", "cpu"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env)
        try:
            read_frame(child.stdout)
            write_frame(child.stdin, {"op": "open", "model": self.dir, "train": True, "optimizer": OPTIM})
            self.assertTrue(read_frame(child.stdout)[0]["ok"])
            write_frame(child.stdin, {"op": "backward"}, {"logprobs": torch.zeros(11)})
            answer, _ = read_frame(child.stdout)
            self.assertEqual(answer["error"]["code"], "bad_request")
            write_frame(child.stdin, {"op": "forward"}, self.pair_tensors(PAIRS))
            answer, out = read_frame(child.stdout)
            self.assertEqual([t["dtype"] for t in answer["tensors"]], ["F32", "F32"])
            self.assertGreaterEqual(answer["elapsed_ms"], 0)
            write_frame(child.stdin, {"op": "backward"}, leaf_grads(out, torch.cat(advantages(PAIRS))))
            self.assertTrue(read_frame(child.stdout)[0]["ok"])
            write_frame(child.stdin, {"op": "step"})
            answer, tensors = read_frame(child.stdout)
            self.assertEqual((answer["skipped"], answer["step"]), (False, 1))
            write_frame(child.stdin, {"op": "weights"})
            answer, tensors = read_frame(child.stdout)
            self.assertEqual(answer["tensors"][0]["dtype"], "U8")
            reference = self.engine()
            self.update(reference)
            _, expected = reference.handle({"op": "weights"}, {})
            self.assertEqual(bytes(tensors["safetensors"].numpy()), expected["safetensors"])
            child.stdin.close()
            self.assertEqual(child.wait(timeout=60), 0)
        finally:
            if child.poll() is None:
                child.kill()
                child.wait()
            child.stdout.close()


if __name__ == "__main__":
    unittest.main()
