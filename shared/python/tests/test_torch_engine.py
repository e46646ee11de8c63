"""The PyTorch engine (rl_torch_engine) against the numpy reference forward pass
(shared/policy/src/model/reference/hf_forward.py, written independently from
transformers' definitions) on small random model directories of each
architecture, its refusals, and its child-process protocol. Skipped without torch."""

import importlib.util
import json
import os
import struct
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
PACKAGE_ROOT = os.path.dirname(HERE)
sys.path.insert(0, PACKAGE_ROOT)
REFERENCE = os.path.join(PACKAGE_ROOT, "..", "policy", "src", "model", "reference", "hf_forward.py")

try:
    import numpy as np
    import torch
except ImportError:  # the engine's tests need torch (make test installs python3-torch); the reference needs numpy
    torch = None

TOLERANCE = 1e-4
PAIRS = [([3, 40, 15, 9, 26], [5, 35, 8, 9]), ([27, 1, 8], [2, 8, 18, 28, 1, 8]), ([7], [1]), ([4, 4, 2, 9, 11, 12, 13], [])]


def tiny_config(arch, **extra):
    family = arch.split("For")[0].lower()
    cfg = {
        "architectures": [arch], "model_type": family, "vocab_size": 61, "hidden_size": 32, "intermediate_size": 48,
        "num_hidden_layers": 2, "num_attention_heads": 4, "num_key_value_heads": 2, "head_dim": 8,
        "max_position_embeddings": 64, "rms_norm_eps": 1e-6, "rope_theta": 10000.0, "tie_word_embeddings": True, "hidden_act": "silu",
    }
    cfg.update(extra)
    return cfg


def random_tensors(cfg, seed):
    """Weights of every tensor the architecture has, with random norm gains and biases (a skipped one shows)."""
    from rl_torch_engine import CausalLM, parse_hf_config

    torch.manual_seed(seed)
    model = CausalLM(parse_hf_config(cfg))
    out = {}
    for name, p in model.named_parameters():
        if name.endswith("norm.weight"):
            out[name] = 1 + 0.1 * torch.randn(p.shape)
        elif name.endswith(".bias"):
            out[name] = 0.02 * torch.randn(p.shape)
        else:
            out[name] = 0.18 * torch.randn(p.shape)
    return out


def write_safetensors(path, tensors, dtype="F32"):
    torch_dtype = {"F32": torch.float32, "BF16": torch.bfloat16}[dtype]
    header, parts, offset = {"__metadata__": {"format": "pt"}}, [], 0
    for name in sorted(tensors):
        t = tensors[name].to(torch_dtype).contiguous()
        raw = t.view(torch.int16 if dtype == "BF16" else torch.int32).numpy().tobytes()
        header[name] = {"dtype": dtype, "shape": list(t.shape), "data_offsets": [offset, offset + len(raw)]}
        parts.append(raw)
        offset += len(raw)
    head = json.dumps(header).encode()
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(head)) + head + b"".join(parts))


def write_model_dir(path, cfg, tensors, dtype="F32", shards=1):
    os.makedirs(path, exist_ok=True)
    with open(os.path.join(path, "config.json"), "w") as f:
        json.dump(cfg, f)
    names = sorted(tensors)
    if shards == 1:
        write_safetensors(os.path.join(path, "model.safetensors"), tensors, dtype)
        return
    per = -(-len(names) // shards)
    weight_map = {}
    for s in range(shards):
        file = f"model-{s + 1:05d}-of-{shards:05d}.safetensors"
        part = {n: tensors[n] for n in names[s * per : (s + 1) * per]}
        weight_map.update({n: file for n in part})
        write_safetensors(os.path.join(path, file), part, dtype)
    with open(os.path.join(path, "model.safetensors.index.json"), "w") as f:
        json.dump({"metadata": {}, "weight_map": weight_map}, f)


def load_reference():
    spec = importlib.util.spec_from_file_location("hf_forward", REFERENCE)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def reference_scores(cfg, tensors, pairs):
    """Per pair, from the numpy reference run on the sequence alone: (log-probs, entropies) of the response."""
    ref = load_reference()
    w = ref.Weights({k: v.float().numpy() for k, v in tensors.items()})
    out = []
    for prompt, response in pairs:
        ids = list(prompt) + list(response)
        hidden = ref.forward(cfg, w, ids)
        head = w("model.embed_tokens.weight") if cfg.get("tie_word_embeddings") else w("lm_head.weight")
        logits = (hidden @ head.T).astype(np.float64)
        rows = logits[len(prompt) - 1 : len(ids) - 1]
        logp = rows - rows.max(-1, keepdims=True)
        logp = logp - np.log(np.exp(logp).sum(-1, keepdims=True))
        out.append(([logp[t, tok] for t, tok in enumerate(response)], list(-(np.exp(logp) * logp).sum(-1))))
    return out


CASES = {
    "llama: biases on attention and MLP, GQA, untied head, llama3 rope": tiny_config(
        "LlamaForCausalLM", attention_bias=True, mlp_bias=True, tie_word_embeddings=False,
        rope_scaling={"rope_type": "llama3", "factor": 8.0, "low_freq_factor": 1.0, "high_freq_factor": 4.0, "original_max_position_embeddings": 16},
    ),
    "llama: linear rope, no kv grouping": tiny_config("LlamaForCausalLM", num_key_value_heads=4, rope_scaling={"type": "linear", "factor": 2.0}),
    "qwen2: q/k/v biases": tiny_config("Qwen2ForCausalLM", num_key_value_heads=1),
    "qwen3: q/k norms, attention biases, untied head": tiny_config("Qwen3ForCausalLM", attention_bias=True, tie_word_embeddings=False),
}


@unittest.skipIf(torch is None, "torch (and numpy) not installed")
class TorchEngineTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory(prefix="rl-torch-engine-")
        self.addCleanup(self.tmp.cleanup)

    def test_matches_the_numpy_reference_per_architecture(self):
        from rl_torch_engine import load_model_dir, score_pairs

        for i, (name, cfg) in enumerate(CASES.items()):
            with self.subTest(name):
                tensors = random_tensors(cfg, seed=i)
                write_model_dir(os.path.join(self.tmp.name, str(i)), cfg, tensors)
                model = load_model_dir(os.path.join(self.tmp.name, str(i)))
                # One padded batch (left-padded prompts, right-padded responses) and micro-batches of one row.
                for max_tokens in (16384, 1):
                    got = score_pairs(model, PAIRS, max_tokens=max_tokens)
                    for (lp, ent), (ref_lp, ref_ent), (_, response) in zip(got, reference_scores(cfg, tensors, PAIRS), PAIRS):
                        self.assertEqual(len(lp), len(response))
                        self.assertEqual(len(ent), len(response))
                        for a, b in zip(lp.tolist() + ent.tolist(), ref_lp + ref_ent):
                            self.assertAlmostEqual(a, b, delta=TOLERANCE)

    def test_bf16_shards_read_as_the_rounded_weights(self):
        from rl_torch_engine import load_model_dir, score_pairs

        cfg = CASES["qwen3: q/k norms, attention biases, untied head"]
        tensors = random_tensors(cfg, seed=5)
        rounded = {k: v.to(torch.bfloat16).float() for k, v in tensors.items()}
        write_model_dir(os.path.join(self.tmp.name, "bf16"), cfg, tensors, dtype="BF16", shards=3)
        model = load_model_dir(os.path.join(self.tmp.name, "bf16"))
        for name, p in model.named_parameters():
            self.assertTrue(torch.equal(p, rounded[name]), name)
        got = score_pairs(model, PAIRS)
        for (lp, _), (ref_lp, _) in zip(got, reference_scores(cfg, rounded, PAIRS)):
            for a, b in zip(lp.tolist(), ref_lp):
                self.assertAlmostEqual(a, b, delta=TOLERANCE)

    def test_refusals_name_the_file_and_the_key(self):
        from rl_torch_engine import ConfigError, load_model_dir

        cfg = tiny_config("Qwen3ForCausalLM")
        tensors = random_tensors(cfg, seed=1)
        cases = [
            ({**cfg, "rope_scaling": {"rope_type": "yarn", "factor": 4.0}}, tensors, 'rope_scaling.rope_type: "yarn" is not supported (default, linear, llama3)'),
            ({**cfg, "architectures": ["MistralForCausalLM"], "model_type": None}, tensors, 'architectures[0]: "MistralForCausalLM" is not supported'),
            ({**cfg, "use_sliding_window": True}, tensors, "use_sliding_window: true is not supported"),
            ({**cfg, "num_key_value_heads": 3}, tensors, "num_key_value_heads: num_key_value_heads (3) must divide num_attention_heads (4)"),
            (cfg, {k: v for k, v in tensors.items() if k != "model.layers.1.self_attn.q_norm.weight"}, "model.layers.1.self_attn.q_norm.weight: tensor missing"),
            (cfg, {**tensors, "lm_head.weight": torch.zeros(61, 32)}, "lm_head.weight: tensor the model does not use"),
            (cfg, {**tensors, "model.norm.weight": torch.zeros(31)}, "model.norm.weight: shape [31], expected [32]"),
        ]
        for i, (bad_cfg, bad_tensors, message) in enumerate(cases):
            with self.subTest(message):
                path = os.path.join(self.tmp.name, f"bad{i}")
                write_model_dir(path, bad_cfg, bad_tensors)
                with self.assertRaises(ConfigError) as caught:
                    load_model_dir(path)
                self.assertIn(message, str(caught.exception))
        with self.assertRaises(ConfigError) as caught:
            load_model_dir(os.path.join(self.tmp.name, "absent"))
        self.assertIn("config.json: (file): cannot be read", str(caught.exception))

    def test_serve_answers_frames_and_keeps_serving_after_an_error(self):
        from rl_torch_engine import load_model_dir, score_pairs
        from rl_torch_engine.protocol import read_frame, write_frame

        cfg = CASES["qwen2: q/k/v biases"]
        path = os.path.join(self.tmp.name, "served")
        write_model_dir(path, cfg, random_tensors(cfg, seed=2))
        env = {**os.environ, "PYTHONPATH": PACKAGE_ROOT}
        child = subprocess.Popen([sys.executable, "-m", "rl_torch_engine", "serve", "--device", "cpu"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env)
        try:
            hello, _ = read_frame(child.stdout)
            self.assertEqual((hello["ok"], hello["engine"], hello["device"]), (True, "torch", "cpu"))
            write_frame(child.stdin, {"op": "score"})
            answer, _ = read_frame(child.stdout)
            self.assertEqual(answer["error"], {"code": "bad_request", "message": "score: no model is open"})
            write_frame(child.stdin, {"op": "open", "model": os.path.join(self.tmp.name, "absent")})
            answer, _ = read_frame(child.stdout)
            self.assertEqual(answer["error"]["code"], "validation_failed")
            self.assertIn("config.json: (file): cannot be read", answer["error"]["message"])
            write_frame(child.stdin, {"op": "open", "model": path})
            answer, _ = read_frame(child.stdout)
            self.assertEqual(answer["config"], {"architecture": "Qwen2ForCausalLM", "vocab_size": 61, "max_position_embeddings": 64, "value_head": False})
            ids = [t for p, r in PAIRS for t in list(p) + list(r)]
            lengths = {"prompt_lengths": torch.tensor([len(p) for p, _ in PAIRS], dtype=torch.int32), "response_lengths": torch.tensor([len(r) for _, r in PAIRS], dtype=torch.int32)}
            write_frame(child.stdin, {"op": "score"}, {**lengths, "ids": torch.tensor(ids, dtype=torch.int32)})
            answer, tensors = read_frame(child.stdout)
            self.assertTrue(answer["ok"])
            self.assertEqual([t["dtype"] for t in answer["tensors"]], ["F32", "F32"])
            expected = score_pairs(load_model_dir(path), PAIRS)
            self.assertTrue(torch.equal(tensors["logprobs"], torch.cat([lp for lp, _ in expected])))
            self.assertTrue(torch.equal(tensors["entropies"], torch.cat([e for _, e in expected])))
            child.stdin.close()
            self.assertEqual(child.wait(timeout=60), 0)
        finally:
            if child.poll() is None:
                child.kill()
                child.wait()
            child.stdout.close()


if __name__ == "__main__":
    unittest.main()
