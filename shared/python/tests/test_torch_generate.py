"""The engine's generation (rl_torch_engine/generate.py, the `generate` op) on tiny random models of each
family: greedy rows are the step-by-step argmax of the teacher-forced distributions scoring computes, the
log-probs are scoring's, rows in a batch get what they get alone, seeds reproduce, stop ids and budgets end
rows, LoRA adapters apply, and bad requests are refused naming the field. Skipped without torch."""

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

TOLERANCE = 1e-5
PROMPTS = [[3, 40, 15, 9, 26], [27, 1, 8], [7], [4, 4, 2, 9, 11, 12, 13, 50, 51]]


def families():
    from test_torch_engine import tiny_config

    return {
        "llama: GQA, untied head": tiny_config("LlamaForCausalLM", tie_word_embeddings=False),
        "qwen2: q/k/v biases, one kv head": tiny_config("Qwen2ForCausalLM", num_key_value_heads=1),
        "qwen3: q/k norms, GQA": tiny_config("Qwen3ForCausalLM"),
    }


def prompt_tensors(prompts, row_seeds=None):
    out = {
        "prompt_lengths": torch.tensor([len(p) for p in prompts], dtype=torch.int32),
        "ids": torch.tensor([t for p in prompts for t in p], dtype=torch.int32),
    }
    if row_seeds is not None:
        out["row_seeds"] = torch.tensor(row_seeds, dtype=torch.int32)
    return out


def teacher_forced(model, prompt, response):
    """The log-softmax [len(response), V] of the distributions that predict each response token, as scoring computes them."""
    from rl_torch_engine.scoring import pack, response_states

    block = pack([(prompt, response)], torch.device("cpu"))
    with torch.no_grad():
        states = response_states(model, block)
        return torch.log_softmax(model.logits(states).float(), dim=-1)[0, : len(response)]


@unittest.skipIf(torch is None, "torch not installed")
class TorchGenerateTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory(prefix="rl-torch-generate-")
        self.addCleanup(self.tmp.cleanup)

    def model_dir(self, name, cfg, seed):
        from test_torch_engine import random_tensors, write_model_dir

        path = os.path.join(self.tmp.name, name)
        write_model_dir(path, cfg, random_tensors(cfg, seed))
        return path

    def engine(self, path, **open_header):
        from rl_torch_engine.engine import Engine

        engine = Engine(torch.device("cpu"))
        engine.handle({"op": "open", "model": path, **open_header}, {})
        return engine

    @staticmethod
    def rows(answer):
        """(ids, logprobs, finish reason, stop id) per row of a generate answer."""
        header, tensors = answer
        out, at = [], 0
        for i, n in enumerate(tensors["lengths"].tolist()):
            out.append((tensors["ids"][at : at + n].tolist(), tensors["logprobs"][at : at + n].tolist(), header["finish_reasons"][i], header["stop_ids"][i]))
            at += n
        return out

    def assert_rows_equal(self, got, want):
        self.assertEqual(len(got), len(want))
        for (ids, lps, finish, stop), (ids2, lps2, finish2, stop2) in zip(got, want):
            self.assertEqual((ids, finish, stop), (ids2, finish2, stop2))
            for a, b in zip(lps, lps2):
                self.assertAlmostEqual(a, b, delta=TOLERANCE)

    def test_greedy_is_the_argmax_of_the_teacher_forced_distributions_with_their_logprobs(self):
        from rl_torch_engine.scoring import score_pairs

        for i, (name, cfg) in enumerate(families().items()):
            with self.subTest(name):
                engine = self.engine(self.model_dir(str(i), cfg, seed=10 + i))
                rows = self.rows(engine.handle({"op": "generate", "max_tokens": 12, "temperature": 0}, prompt_tensors(PROMPTS)))
                scored = score_pairs(engine.model, [(p, r[0]) for p, r in zip(PROMPTS, rows)])
                for prompt, (ids, logprobs, finish, stop), (logp, _) in zip(PROMPTS, rows, scored):
                    self.assertEqual((len(ids), finish, stop), (12, "length", None))
                    dist = teacher_forced(engine.model, prompt, ids)
                    self.assertEqual(dist.argmax(-1).tolist(), ids)
                    for a, b in zip(logprobs, logp.tolist()):
                        self.assertAlmostEqual(a, b, delta=TOLERANCE)
                # top_k 1 at any temperature is greedy.
                self.assert_rows_equal(self.rows(engine.handle({"op": "generate", "max_tokens": 12, "top_k": 1, "temperature": 1.3}, prompt_tensors(PROMPTS))), rows)

    def test_sampled_rows_reproduce_from_their_seeds_and_get_what_they_get_alone(self):
        from test_torch_engine import tiny_config

        engine = self.engine(self.model_dir("q3", tiny_config("Qwen3ForCausalLM"), seed=3))
        for cuts in ({"top_k": 20, "top_p": 0.9}, {}):  # with a sort over the vocabulary, and without
            with self.subTest(**cuts):
                self.check_seeded_rows(engine, {"op": "generate", "max_tokens": 10, "temperature": 1.5, "stop_token_ids": list(range(0, 61, 6)), **cuts})

    def check_seeded_rows(self, engine, header):
        seeds = [5, -3, 1 << 30, 12]
        batch = self.rows(engine.handle(header, prompt_tensors(PROMPTS, seeds)))
        self.assert_rows_equal(self.rows(engine.handle(header, prompt_tensors(PROMPTS, seeds))), batch)
        # Rows leave the batch as they stop, and each row is what it is alone (its own seed, its own padding).
        self.assertGreater(len({len(r[0]) for r in batch}), 1)
        for prompt, seed, row in zip(PROMPTS, seeds, batch):
            self.assert_rows_equal(self.rows(engine.handle(header, prompt_tensors([prompt], [seed]))), [row])
        # Other seeds sample otherwise; a header seed stands for row seeds.
        other = self.rows(engine.handle(header, prompt_tensors(PROMPTS, [s + 1 for s in seeds])))
        self.assertNotEqual([r[0] for r in other], [r[0] for r in batch])
        by_seed = self.rows(engine.handle({**header, "seed": 9}, prompt_tensors(PROMPTS)))
        self.assert_rows_equal(self.rows(engine.handle({**header, "seed": 9}, prompt_tensors(PROMPTS))), by_seed)
        # The reported log-probs are under the untempered distribution: the teacher-forced ones.
        for prompt, (ids, logprobs, _, _) in zip(PROMPTS, batch):
            dist = teacher_forced(engine.model, prompt, ids)
            for t, (tok, lp) in enumerate(zip(ids, logprobs)):
                self.assertAlmostEqual(lp, float(dist[t, tok]), delta=TOLERANCE)
        # Batches split by the engine's token budget give the same rows.
        small = self.engine(engine.directory, max_tokens=24)
        self.assert_rows_equal(self.rows(small.handle(header, prompt_tensors(PROMPTS, seeds))), batch)

    def test_sampling_draws_from_the_tempered_distribution_after_top_k_and_top_p(self):
        from test_torch_engine import tiny_config

        engine = self.engine(self.model_dir("q3", tiny_config("Qwen3ForCausalLM"), seed=3))
        prompt, n = [3, 40, 15], 3000
        logits = teacher_forced(engine.model, prompt, [0])[0].double()  # log-softmax: the logits up to a constant
        order = torch.argsort(-logits)
        for temperature, top_k, top_p in ((0.7, 0, 1.0), (1.3, 5, 1.0), (1.0, -1, 0.6), (1.0, 0, 1.0)):
            with self.subTest(temperature=temperature, top_k=top_k, top_p=top_p):
                # What vLLM samples from: tempered, then the top k, then the tokens while the mass before them is below top_p.
                w = torch.exp((logits - logits.max()) / temperature)[order]
                if top_k > 0:
                    w[top_k:] = 0
                w = torch.where(w.cumsum(0) - w < top_p * w.sum(), w, torch.zeros_like(w))
                want = torch.zeros_like(w)
                want[order] = w / w.sum()
                header = {"op": "generate", "max_tokens": 1, "temperature": temperature, "top_k": top_k, "top_p": top_p}
                rows = self.rows(engine.handle(header, prompt_tensors([prompt] * n, list(range(n)))))
                got = torch.bincount(torch.tensor([r[0][0] for r in rows]), minlength=len(w)).double() / n
                # Seeded, so this is one fixed draw: 3000 samples land within 0.02 of each probability (a wrong
                # temperature or cut is 0.12 off here), and a cut token is never drawn.
                self.assertLess(float((got - want).abs().max()), 0.02)
                self.assertEqual(float(got[want == 0].sum()), 0.0)

    def test_stop_ids_end_rows_with_the_id_kept_and_budgets_end_them_with_length(self):
        from test_torch_engine import tiny_config

        engine = self.engine(self.model_dir("q2", tiny_config("Qwen2ForCausalLM"), seed=5))
        greedy = self.rows(engine.handle({"op": "generate", "max_tokens": 12, "temperature": 0}, prompt_tensors(PROMPTS)))
        stop = greedy[0][0][3]
        rows = self.rows(engine.handle({"op": "generate", "max_tokens": 12, "temperature": 0, "stop_token_ids": [stop]}, prompt_tensors(PROMPTS)))
        for (ids, _, _, _), (got, logprobs, finish, stop_id) in zip(greedy, rows):
            if stop in ids:
                end = ids.index(stop) + 1
                self.assertEqual((got, finish, stop_id), (ids[:end], "stop", stop))
            else:
                self.assertEqual((got, finish, stop_id), (ids, "length", None))
            self.assertEqual(len(logprobs), len(got))
        self.assertEqual(rows[0][0][-1], stop)
        # The budget stops at max_position_embeddings (64): a 60-token prompt gets 4 tokens, a 64-token one none.
        rows = self.rows(engine.handle({"op": "generate", "max_tokens": 10, "temperature": 0}, prompt_tensors([[1] * 60, [2] * 64, [3]])))
        self.assertEqual([(len(r[0]), r[2]) for r in rows], [(4, "length"), (0, "length"), (10, "length")])
        rows = self.rows(engine.handle({"op": "generate", "max_tokens": 0}, prompt_tensors(PROMPTS)))
        self.assertEqual([(r[0], r[2]) for r in rows], [([], "length")] * len(PROMPTS))

    def test_lora_adapters_apply_and_adapters_false_samples_the_base(self):
        from test_torch_engine import tiny_config
        from rl_torch_engine.lora import lora_modules, merged_state_dict
        from test_torch_engine import write_model_dir

        cfg = tiny_config("Qwen3ForCausalLM", tie_word_embeddings=False)
        path = self.model_dir("base", cfg, seed=7)
        lora = {"r": 2, "lora_alpha": 4, "target_modules": "all-linear", "seed": 1}
        engine = self.engine(path, lora=lora, train=True, optimizer={"lr": 0.1})
        with torch.no_grad():  # a trained adapter: B is no longer zero
            for m in lora_modules(engine.model).values():
                m.lora_B.weight.normal_(0, 0.3, generator=torch.Generator().manual_seed(2))
        write_model_dir(os.path.join(self.tmp.name, "merged"), cfg, merged_state_dict(engine.model))
        header = {"op": "generate", "max_tokens": 8, "temperature": 0}
        adapted = self.rows(engine.handle(header, prompt_tensors(PROMPTS)))
        base = self.rows(engine.handle({**header, "adapters": False}, prompt_tensors(PROMPTS)))
        self.assert_rows_equal(base, self.rows(self.engine(path).handle(header, prompt_tensors(PROMPTS))))
        self.assert_rows_equal(adapted, self.rows(self.engine(os.path.join(self.tmp.name, "merged")).handle(header, prompt_tensors(PROMPTS))))
        self.assertNotEqual([r[0] for r in adapted], [r[0] for r in base])
        self.assertTrue(engine.model.training)  # generation leaves the training mode as it found it

    def test_bad_requests_are_refused_naming_the_field(self):
        from test_torch_engine import tiny_config

        engine = self.engine(self.model_dir("l", tiny_config("LlamaForCausalLM"), seed=1))
        ok = prompt_tensors(PROMPTS)
        cases = [
            ({"max_tokens": 4, "temperature": -1}, ok, "temperature"),
            ({"max_tokens": 4, "temperature": "hot"}, ok, "temperature"),
            ({"max_tokens": 4, "top_p": 0}, ok, "top_p"),
            ({"max_tokens": 4, "top_k": -2}, ok, "top_k"),
            ({}, ok, "max_tokens"),
            ({"max_tokens": -1}, ok, "max_tokens"),
            ({"max_tokens": 1.5}, ok, "max_tokens"),
            ({"max_tokens": 4, "stop_token_ids": [61]}, ok, "stop_token_ids"),
            ({"max_tokens": 4, "seed": "x"}, ok, "seed"),
            ({"max_tokens": 4, "adapters": False}, ok, "adapters"),
            ({"max_tokens": 4}, prompt_tensors([[1, 2], []]), "prompts[1] is empty"),
            ({"max_tokens": 4}, prompt_tensors([[1] * 65]), "prompts[0] has 65 tokens, more than max_position_embeddings (64)"),
            ({"max_tokens": 4}, prompt_tensors([[1], [2, 61]]), "prompts[1]"),
            ({"max_tokens": 4}, prompt_tensors(PROMPTS, [1, 2]), "row_seeds"),
            ({"max_tokens": 4}, {"ids": ok["ids"]}, "prompt_lengths"),
        ]
        for header, tensors, field in cases:
            with self.subTest(field=field, header=header):
                with self.assertRaises(ValueError) as caught:
                    engine.handle({"op": "generate", **header}, tensors)
                self.assertIn(field, str(caught.exception))
                self.assertTrue(str(caught.exception).startswith("generate: "))
        critic = self.engine(self.model_dir("critic", tiny_config("Qwen3ForTokenClassification", num_labels=1), seed=2))
        with self.assertRaisesRegex(ValueError, "generate: the model is a critic"):
            critic.handle({"op": "generate", "max_tokens": 4}, ok)


if __name__ == "__main__":
    unittest.main()
