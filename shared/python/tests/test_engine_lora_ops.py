"""The engine's LoRA operations for a LoRA job's worker: score with adapters: false is the base model (the
reference policy without a second copy), and the adapter op answers the adapter as peft saves it. Skipped
without torch."""

import json
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

PAIRS = [([3, 40, 15, 9, 26], [5, 35, 8, 9]), ([27, 1, 8], [2, 8, 18, 28, 1, 8])]


def pair_tensors(pairs):
    ids = [t for p, r in pairs for t in p + r]
    return {
        "prompt_lengths": torch.tensor([len(p) for p, _ in pairs], dtype=torch.int32),
        "response_lengths": torch.tensor([len(r) for _, r in pairs], dtype=torch.int32),
        "ids": torch.tensor(ids, dtype=torch.int32),
    }


@unittest.skipIf(torch is None, "torch not installed")
class EngineLoraOpsTest(unittest.TestCase):
    def setUp(self):
        from test_torch_engine import random_tensors, tiny_config, write_model_dir

        self.tmp = tempfile.TemporaryDirectory()
        self.addCleanup(self.tmp.cleanup)
        cfg = tiny_config("Qwen3ForCausalLM", tie_word_embeddings=False)
        self.dir = os.path.join(self.tmp.name, "base")
        write_model_dir(self.dir, cfg, random_tensors(cfg, 4))

    def engine(self, **open_header):
        from rl_torch_engine.engine import Engine

        engine = Engine(torch.device("cpu"))
        engine.handle({"op": "open", "model": self.dir, **open_header}, {})
        return engine

    def test_score_without_adapters_is_the_base_and_the_adapter_op_answers_peft_files(self):
        from rl_torch_engine.lora import adapter_state_dict, lora_modules
        from rl_torch_engine.safetensors import decode_safetensors

        base = self.engine().handle({"op": "score"}, pair_tensors(PAIRS))[1]
        lora = {"r": 2, "lora_alpha": 4, "target_modules": ["q_proj", "down_proj"], "seed": 1}
        engine = self.engine(lora=lora, train=True, optimizer={"lr": 0.1})
        with torch.no_grad():  # a trained adapter: B is no longer zero
            for m in lora_modules(engine.model).values():
                m.lora_B.weight.fill_(0.05)
        adapted = engine.handle({"op": "score"}, pair_tensors(PAIRS))[1]
        reference = engine.handle({"op": "score", "adapters": False}, pair_tensors(PAIRS))[1]
        torch.testing.assert_close(reference["logprobs"], base["logprobs"], rtol=0, atol=0)
        self.assertGreater(float((adapted["logprobs"] - base["logprobs"]).abs().max()), 1e-4)
        again = engine.handle({"op": "score"}, pair_tensors(PAIRS))[1]
        torch.testing.assert_close(again["logprobs"], adapted["logprobs"], rtol=0, atol=0)  # switched back on

        header, tensors = engine.handle({"op": "adapter", "base_model": "/models/base"}, {})
        self.assertEqual(header["config"]["r"], 2)
        self.assertEqual(header["config"]["base_model_name_or_path"], "/models/base")
        self.assertEqual(sorted(header["config"]["target_modules"]), ["down_proj", "q_proj"])
        json.dumps(header["config"])
        decoded = decode_safetensors(bytes(tensors["safetensors"]), "adapter")[0]
        expected = adapter_state_dict(engine.model)
        self.assertEqual(sorted(decoded), sorted(expected))
        for name, t in expected.items():
            torch.testing.assert_close(decoded[name], t, rtol=0, atol=0)

    def test_lora_operations_on_a_model_without_lora_are_refused(self):
        engine = self.engine()
        with self.assertRaises(ValueError) as ctx:
            engine.handle({"op": "score", "adapters": False}, pair_tensors(PAIRS))
        self.assertIn("score: adapters: false needs a model opened with LoRA", str(ctx.exception))
        with self.assertRaises(ValueError) as ctx:
            engine.handle({"op": "adapter"}, {})
        self.assertIn("adapter: the model was opened without LoRA", str(ctx.exception))
        with self.assertRaises(ValueError) as ctx:
            engine.handle({"op": "score", "adapters": "no"}, pair_tensors(PAIRS))
        self.assertIn("score: adapters must be a boolean", str(ctx.exception))


if __name__ == "__main__":
    unittest.main()
