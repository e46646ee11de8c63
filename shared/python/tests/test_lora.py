"""LoRA on the torch engine (rl_torch_engine/lora.py): a fresh adapter changes nothing, a trained one computes the
merged weights W + scaling B A, the adapters switch off for the reference policy, and adapters round-trip through
PEFT's directory format (checked against peft and transformers where they are installed). Skipped without torch."""

import importlib.util
import json
import math
import os
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
sys.path.insert(0, HERE)

try:
    import torch
except ImportError:
    torch = None

PAIRS = [([3, 40, 15, 9, 26], [5, 35, 8, 9]), ([27, 1, 8], [2, 8, 18, 28, 1, 8]), ([7], [1])]
LAYER_LINEARS = ["q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj"]


def scores(model, pairs=PAIRS):
    from rl_torch_engine import score_pairs

    return torch.cat([lp for lp, _ in score_pairs(model, pairs)] + [e for _, e in score_pairs(model, pairs)])


def randomize_adapters(model, seed=5):
    from rl_torch_engine.lora import lora_modules

    g = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for m in lora_modules(model).values():
            m.lora_A.weight.copy_(0.3 * torch.randn(m.lora_A.weight.shape, generator=g))
            m.lora_B.weight.copy_(0.3 * torch.randn(m.lora_B.weight.shape, generator=g))


@unittest.skipIf(torch is None, "torch not installed")
class LoraTest(unittest.TestCase):
    def setUp(self):
        from test_torch_engine import random_tensors, tiny_config, write_model_dir

        self.tmp = tempfile.TemporaryDirectory()
        self.addCleanup(self.tmp.cleanup)
        self.cfg = tiny_config("Qwen3ForCausalLM", tie_word_embeddings=False)
        self.dir = os.path.join(self.tmp.name, "base")
        write_model_dir(self.dir, self.cfg, random_tensors(self.cfg, 4))

    def open(self):
        from rl_torch_engine import load_model_dir

        return load_model_dir(self.dir)

    def test_a_fresh_adapter_changes_nothing_and_only_the_adapter_trains(self):
        from rl_torch_engine.lora import apply_lora, lora_modules

        base = scores(self.open())
        model = self.open()
        settings = apply_lora(model, {"r": 4, "lora_alpha": 8, "target_modules": "all-linear"})
        self.assertEqual(settings.target_modules, tuple(sorted(LAYER_LINEARS)))  # all-linear leaves lm_head out
        self.assertEqual(sorted(lora_modules(model)), sorted(f"model.layers.{i}.{'self_attn' if n.endswith(('q_proj', 'k_proj', 'v_proj', 'o_proj')) else 'mlp'}.{n}" for i in range(2) for n in LAYER_LINEARS))
        torch.testing.assert_close(scores(model), base, rtol=0, atol=0)
        q = model.model.layers[0].self_attn.q_proj
        self.assertEqual(tuple(q.lora_A.weight.shape), (4, 32))
        self.assertEqual(tuple(q.lora_B.weight.shape), (32, 4))
        self.assertTrue(bool((q.lora_B.weight == 0).all()))
        bound = 1 / math.sqrt(32)  # kaiming_uniform_(a=sqrt(5)) over fan_in 32
        self.assertLessEqual(float(q.lora_A.weight.abs().max()), bound)
        self.assertGreater(float(q.lora_A.weight.abs().max()), 0.8 * bound)
        trainable = sorted(n for n, p in model.named_parameters() if p.requires_grad)
        self.assertEqual(len(trainable), 2 * 7 * 2)
        self.assertTrue(all(n.endswith((".lora_A.weight", ".lora_B.weight")) for n in trainable))
        # Same seed, same start.
        again = self.open()
        apply_lora(again, {"r": 4, "lora_alpha": 8, "target_modules": "all-linear"})
        torch.testing.assert_close(again.model.layers[1].mlp.down_proj.lora_A.weight, model.model.layers[1].mlp.down_proj.lora_A.weight, rtol=0, atol=0)
        # With B zero, the first gradient reaches B only (as peft's).
        model.train()
        out = model.model(torch.tensor([[1, 2, 3]]), torch.ones(1, 3, dtype=torch.long), torch.arange(3)[None])
        model.logits(out).logsumexp(-1).sum().backward()
        self.assertEqual(float(q.lora_A.weight.grad.abs().sum()), 0.0)
        self.assertGreater(float(q.lora_B.weight.grad.abs().sum()), 0.0)
        self.assertIsNone(q.weight.grad)

    def test_the_adapted_forward_is_the_merged_weights_and_disabled_is_the_base(self):
        from rl_torch_engine import CausalLM
        from rl_torch_engine.lora import adapters_disabled, apply_lora, merge, merged_state_dict

        base_model = self.open()
        base = scores(base_model)
        for rslora, scaling in ((False, 16 / 4), (True, 16 / 2)):
            model = self.open()
            apply_lora(model, {"r": 4, "lora_alpha": 16, "target_modules": ["q_proj", "v_proj", "down_proj"], "use_rslora": rslora})
            randomize_adapters(model)
            q = model.model.layers[1].self_attn.q_proj
            merged = merged_state_dict(model)
            expected_q = base_model.state_dict()["model.layers.1.self_attn.q_proj.weight"] + scaling * q.lora_B.weight @ q.lora_A.weight
            torch.testing.assert_close(merged["model.layers.1.self_attn.q_proj.weight"], expected_q.detach(), rtol=0, atol=1e-6)
            torch.testing.assert_close(merged["model.layers.1.self_attn.k_proj.weight"], base_model.state_dict()["model.layers.1.self_attn.k_proj.weight"], rtol=0, atol=0)
            plain = CausalLM(model.spec)
            plain.load_state_dict(merged, strict=True)
            adapted = scores(model)
            self.assertGreater(float((adapted - base).abs().max()), 1e-2)
            torch.testing.assert_close(adapted, scores(plain.eval()), rtol=0, atol=1e-5)
            with adapters_disabled(model):
                torch.testing.assert_close(scores(model), base, rtol=0, atol=0)
            torch.testing.assert_close(scores(model), adapted, rtol=0, atol=0)
            torch.testing.assert_close(scores(merge(model)), adapted, rtol=0, atol=1e-5)
            self.assertEqual(sorted(merge(model).state_dict()), sorted(plain.state_dict()))

    def test_save_and_load_round_trip_in_peft_format(self):
        from rl_torch_engine.lora import apply_lora, load_adapter, save_adapter
        from rl_torch_engine.safetensors import read_safetensors

        model = self.open()
        apply_lora(model, {"r": 2, "lora_alpha": 5, "target_modules": ["self_attn.q_proj", "mlp.up_proj"], "lora_dropout": 0.1})
        randomize_adapters(model, seed=9)
        adapted = scores(model.eval())
        out = os.path.join(self.tmp.name, "adapter")
        save_adapter(model, out, self.dir)
        self.assertEqual(sorted(os.listdir(out)), ["adapter_config.json", "adapter_model.safetensors"])
        with open(os.path.join(out, "adapter_config.json")) as f:
            cfg = json.load(f)
        self.assertEqual(
            {k: cfg[k] for k in ("peft_type", "task_type", "r", "lora_alpha", "lora_dropout", "bias", "fan_in_fan_out", "use_rslora", "base_model_name_or_path", "target_modules")},
            {"peft_type": "LORA", "task_type": "CAUSAL_LM", "r": 2, "lora_alpha": 5, "lora_dropout": 0.1, "bias": "none", "fan_in_fan_out": False, "use_rslora": False, "base_model_name_or_path": self.dir, "target_modules": ["q_proj", "up_proj"]},
        )
        tensors = read_safetensors(os.path.join(out, "adapter_model.safetensors"))
        self.assertEqual(len(tensors), 2 * 2 * 2)
        self.assertEqual(tuple(tensors["base_model.model.model.layers.0.self_attn.q_proj.lora_A.weight"].shape), (2, 32))
        self.assertEqual(tuple(tensors["base_model.model.model.layers.1.mlp.up_proj.lora_B.weight"].shape), (48, 2))
        fresh = self.open()
        load_adapter(fresh, out)
        torch.testing.assert_close(scores(fresh), adapted, rtol=0, atol=0)
        # A model with the same adapters is refilled in place (resume).
        load_adapter(model, out)
        torch.testing.assert_close(scores(model), adapted, rtol=0, atol=0)

    def test_the_engine_opens_a_model_with_an_adapter(self):
        from rl_torch_engine.engine import Engine
        from rl_torch_engine.lora import apply_lora, save_adapter

        model = self.open()
        apply_lora(model, {"r": 2, "lora_alpha": 4, "target_modules": ["o_proj", "gate_proj"], "init_lora_weights": False, "seed": 3})
        adapted = scores(model)
        out = os.path.join(self.tmp.name, "engine-adapter")
        save_adapter(model, out, self.dir)
        engine = Engine(torch.device("cpu"))
        engine.handle({"op": "open", "model": self.dir, "adapter": out}, {})
        torch.testing.assert_close(scores(engine.model), adapted, rtol=0, atol=0)
        with self.assertRaises(ValueError) as ctx:
            engine.handle({"op": "open", "model": self.dir, "adapter": ""}, {})
        self.assertIn("open: adapter must be a PEFT adapter directory path", str(ctx.exception))

    def test_value_head_trains_whole_and_is_saved_as_a_module_to_save(self):
        from rl_torch_engine import load_model_dir
        from rl_torch_engine.lora import apply_lora, load_adapter, save_adapter
        from test_torch_engine import random_tensors, tiny_config, write_model_dir

        cfg = tiny_config("Qwen2ForTokenClassification", num_labels=1)
        critic_dir = os.path.join(self.tmp.name, "critic")
        write_model_dir(critic_dir, cfg, random_tensors(cfg, 6))
        model = load_model_dir(critic_dir)
        settings = apply_lora(model, {"r": 2, "lora_alpha": 4, "target_modules": "all-linear"})
        self.assertEqual(settings.target_modules, tuple(sorted(LAYER_LINEARS)))  # the value head is not adapted
        self.assertTrue(model.score.weight.requires_grad and model.score.bias.requires_grad)
        with torch.no_grad():
            model.score.bias.fill_(0.5)
        out = os.path.join(self.tmp.name, "critic-adapter")
        save_adapter(model, out, critic_dir)
        with open(os.path.join(out, "adapter_config.json")) as f:
            saved = json.load(f)
        self.assertEqual((saved["task_type"], saved["modules_to_save"]), ("TOKEN_CLS", ["score"]))
        fresh = load_model_dir(critic_dir)
        load_adapter(fresh, out)
        self.assertEqual(float(fresh.score.bias), 0.5)

    def test_refusals_name_the_file_and_the_key(self):
        from rl_torch_engine import ConfigError
        from rl_torch_engine.lora import apply_lora, load_adapter, save_adapter
        from rl_torch_engine.safetensors import encode_safetensors, read_safetensors

        cases = [
            ({"r": 4, "lora_alpha": 8, "target_modules": ["q_proj"], "peft_type": "IA3"}, "lora: peft_type: \"IA3\" is not supported"),
            ({"r": 4, "lora_alpha": 8, "target_modules": ["q_proj"], "bias": "all"}, "lora: bias: \"all\" is not supported"),
            ({"r": 0, "lora_alpha": 8, "target_modules": ["q_proj"]}, "lora: r: must be a positive integer, got 0"),
            ({"r": 4, "lora_alpha": 8, "target_modules": ["q_proj", "c_attn"]}, "lora: target_modules: \"c_attn\" is not a module of the model"),
            ({"r": 4, "lora_alpha": 8, "target_modules": ["lm_head"]}, "lora: target_modules: selects the head lm_head"),
            ({"r": 4, "lora_alpha": 8, "target_modules": ["q_proj"], "use_dora": True}, "lora: use_dora: DoRA is not supported"),
            ({"r": 4, "lora_alpha": 8}, "lora: target_modules: is required"),
        ]
        for cfg, message in cases:
            with self.subTest(message):
                with self.assertRaises(ConfigError) as ctx:
                    apply_lora(self.open(), cfg)
                self.assertIn(message, str(ctx.exception))
        model = self.open()
        apply_lora(model, {"r": 2, "lora_alpha": 4, "target_modules": ["q_proj"]})
        out = os.path.join(self.tmp.name, "bad")
        save_adapter(model, out)
        weights = os.path.join(out, "adapter_model.safetensors")
        tensors = read_safetensors(weights)
        key = "base_model.model.model.layers.1.self_attn.q_proj.lora_B.weight"

        def write(t):
            with open(weights, "wb") as f:
                f.write(encode_safetensors(t, {"format": "pt"}))

        write({**tensors, key: torch.zeros(32, 3)})
        with self.assertRaises(ConfigError) as ctx:
            load_adapter(self.open(), out)
        self.assertEqual(str(ctx.exception), f"{weights}: {key}: shape [32, 3], expected [32, 2]")
        del tensors[key]
        write(tensors)
        with self.assertRaises(ConfigError) as ctx:
            load_adapter(self.open(), out)
        self.assertEqual(str(ctx.exception), f"{weights}: {key}: tensor missing from the adapter")


def has(*modules):
    return all(importlib.util.find_spec(m) is not None for m in modules)


@unittest.skipIf(torch is None or not has("transformers", "peft"), "peft and transformers not installed (the GPU machine has them)")
class PeftParityTest(unittest.TestCase):
    """peft loads what save_adapter writes onto transformers' model and scores what the engine scores; the engine
    loads what peft's save_pretrained writes."""

    def test_peft_and_the_engine_agree_both_ways(self):
        import peft
        import transformers
        from rl_torch_engine import load_model_dir
        from rl_torch_engine.lora import apply_lora, load_adapter, save_adapter
        from test_torch_engine import random_tensors, tiny_config, write_model_dir

        with tempfile.TemporaryDirectory() as tmp:
            cfg = tiny_config("Qwen3ForCausalLM", tie_word_embeddings=False)
            base_dir = os.path.join(tmp, "base")
            write_model_dir(base_dir, cfg, random_tensors(cfg, 4))
            ids = torch.tensor([[3, 40, 15, 9, 26, 5, 35, 8, 9]])

            def engine_logits(model):
                with torch.no_grad():
                    return model.logits(model.model(ids, torch.ones_like(ids), torch.arange(ids.shape[1])[None])).float()

            model = load_model_dir(base_dir)
            apply_lora(model, {"r": 4, "lora_alpha": 16, "target_modules": "all-linear", "use_rslora": True})
            randomize_adapters(model)
            ours = os.path.join(tmp, "ours")
            save_adapter(model, ours, base_dir)
            hf = transformers.AutoModelForCausalLM.from_pretrained(base_dir, attn_implementation="eager").float()
            peft_model = peft.PeftModel.from_pretrained(hf, ours).eval()
            with torch.no_grad():
                theirs = peft_model(input_ids=ids).logits.float()
            torch.testing.assert_close(theirs, engine_logits(model), rtol=0, atol=1e-4)

            torch.manual_seed(0)
            fresh = transformers.AutoModelForCausalLM.from_pretrained(base_dir, attn_implementation="eager").float()
            config = peft.LoraConfig(r=2, lora_alpha=3, target_modules=["k_proj", "gate_proj"], init_lora_weights=False, task_type="CAUSAL_LM")
            trained = peft.get_peft_model(fresh, config).eval()
            peft_dir = os.path.join(tmp, "peft")
            trained.save_pretrained(peft_dir)
            with torch.no_grad():
                theirs = trained(input_ids=ids).logits.float()
            engine = load_model_dir(base_dir)
            load_adapter(engine, peft_dir)
            torch.testing.assert_close(engine_logits(engine), theirs, rtol=0, atol=1e-4)


if __name__ == "__main__":
    unittest.main()
