"""The PyTorch engine as several processes (rl_torch_engine.distributed): two
CPU processes over gloo against one process on the same requests. One update
step gives the same leaves, grad norm and weights; every rank ends with the
same weights and AdamW state (checksums); a rank whose slice is empty still
steps; a request refused on the ranks is answered and the engine keeps
serving; LoRA trains alike and `adapters: false` scores the base; a killed peer
fails the next request with `unavailable` and the engine exits, a stopped one
at the collective timeout; the workers torchrun would start serve alike.
Skipped without torch or torch.distributed's gloo."""

import os
import signal
import socket
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from test_torch_engine import PACKAGE_ROOT, random_tensors, tiny_config, write_model_dir
from test_torch_train import OPTIM, advantages, leaf_grads

try:
    import torch
    import torch.distributed as dist

    GLOO = dist.is_available() and dist.is_gloo_available()
except ImportError:
    torch = None
    GLOO = False

# Six pairs of unequal lengths (the slices are cut by tokens), one with an empty response.
PAIRS = [
    ([3, 40, 15, 9, 26], [5, 35, 8, 9]),
    ([27, 1, 8], [2, 8, 18, 28, 1, 8]),
    ([7], [1]),
    ([4, 4, 2, 9, 11, 12, 13], []),
    ([11, 2], [30, 31, 32, 33, 34]),
    ([9, 9, 9, 9], [12, 13]),
]
LEAF_TOLERANCE = 2e-6  # a few float32 ulps of |log p| ~ 4: the slices pad differently, and each rank runs one thread
WEIGHT_TOLERANCE = 1e-6


def wire(pairs):
    ids = [t for p, r in pairs for t in list(p) + list(r)]
    return {
        "prompt_lengths": torch.tensor([len(p) for p, _ in pairs], dtype=torch.int32),
        "response_lengths": torch.tensor([len(r) for _, r in pairs], dtype=torch.int32),
        "ids": torch.tensor(ids, dtype=torch.int32),
    }


class Served:
    """`python -m rl_torch_engine ...` as a child process, answering one frame per request."""

    def __init__(self, *args):
        env = {**os.environ, "PYTHONPATH": PACKAGE_ROOT}
        env.pop("OMP_NUM_THREADS", None)
        self.child = subprocess.Popen([sys.executable, "-m", "rl_torch_engine", *args], stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env)
        self.stdin, self.stdout = self.child.stdin, self.child.stdout
        self.hello = None

    def started(self):
        from rl_torch_engine.protocol import read_frame

        if self.hello is None:
            self.hello, _ = read_frame(self.stdout)
        return self.hello

    def ask(self, header, tensors=None):
        from rl_torch_engine.protocol import read_frame, write_frame

        self.started()
        write_frame(self.stdin, header, tensors)
        frame = read_frame(self.stdout)
        if frame is None:
            raise AssertionError(f"the engine ended without answering {header.get('op')}")
        return frame

    def ok(self, header, tensors=None):
        answer, out = self.ask(header, tensors)
        if not answer.get("ok"):
            raise AssertionError(f"{header.get('op')}: {answer.get('error')}")
        return answer, out

    def close(self):
        if not self.stdin.closed:
            try:
                self.stdin.close()
            except BrokenPipeError:
                pass
        if self.child.poll() is None:
            try:
                self.child.wait(timeout=60)
            except subprocess.TimeoutExpired:
                self.child.kill()
                self.child.wait()
        self.stdout.close()


class TorchrunWorkers(Served):
    """Two `serve` workers started as torchrun starts them: RANK, WORLD_SIZE, LOCAL_RANK, LOCAL_WORLD_SIZE,
    MASTER_ADDR, MASTER_PORT and OMP_NUM_THREADS=1 in the environment, stdin and stdout shared by both."""

    def __init__(self):
        with socket.socket() as s:  # torchrun --standalone picks its port the same way
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        stdin_r, stdin_w = os.pipe()
        stdout_r, stdout_w = os.pipe()
        self.workers = []
        for rank in range(2):
            env = {**os.environ, "PYTHONPATH": PACKAGE_ROOT, "OMP_NUM_THREADS": "1", "MASTER_ADDR": "127.0.0.1", "MASTER_PORT": str(port)}
            env.update(RANK=str(rank), LOCAL_RANK=str(rank), WORLD_SIZE="2", LOCAL_WORLD_SIZE="2")
            argv = [sys.executable, "-m", "rl_torch_engine", "serve", "--device", "cpu", "--sharding", "replicated"]
            self.workers.append(subprocess.Popen(argv, stdin=stdin_r, stdout=stdout_w, env=env))
        os.close(stdin_r)
        os.close(stdout_w)
        self.child = self.workers[0]
        self.stdin, self.stdout = os.fdopen(stdin_w, "wb"), os.fdopen(stdout_r, "rb")
        self.hello = None

    def close(self):
        super().close()
        for worker in self.workers[1:]:
            try:
                worker.wait(timeout=60)
            except subprocess.TimeoutExpired:
                worker.kill()
                worker.wait()


def weights_of(served):
    from rl_torch_engine.safetensors import decode_safetensors

    _, out = served.ok({"op": "weights"})
    return decode_safetensors(out["safetensors"].numpy().tobytes(), "weights")[0]


@unittest.skipIf(torch is None, "torch not installed")
class SharesTest(unittest.TestCase):
    def test_contiguous_slices_balanced_by_tokens(self):
        from rl_torch_engine.distributed import shares

        self.assertEqual(shares([9, 6, 2, 7, 7, 6], 2), [(0, 3), (3, 6)])  # 17 | 20
        self.assertEqual(shares([1, 1, 1, 1, 1, 1], 3), [(0, 2), (2, 4), (4, 6)])
        self.assertEqual(shares([30, 1, 1], 2), [(0, 1), (1, 3)])  # a pair heavier than a share runs alone
        self.assertEqual(shares([5], 3), [(0, 1), (1, 1), (1, 1)])  # more ranks than pairs: the last ones idle
        self.assertEqual(shares([], 2), [(0, 0), (0, 0)])


@unittest.skipIf(not GLOO, "torch with torch.distributed (gloo) not installed")
class DistributedTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory(prefix="rl-torch-dist-")
        self.addCleanup(self.tmp.cleanup)
        cfg = tiny_config("Qwen3ForCausalLM")
        self.model = os.path.join(self.tmp.name, "model")
        write_model_dir(self.model, cfg, random_tensors(cfg, seed=5))

    def start(self, world_size, *extra):
        served = Served("serve", "--device", "cpu", "--world-size", str(world_size), "--sharding", "replicated", *extra)
        self.addCleanup(served.close)
        return served

    def open(self, served):
        answer, _ = served.ok({"op": "open", "model": self.model, "train": True, "optimizer": OPTIM})
        return answer

    def update(self, served, pairs):
        """forward -> the loss's leaf gradients (computed here, as the TypeScript side does) -> backward -> step."""
        _, leaves = served.ok({"op": "forward"}, wire(pairs))
        served.ok({"op": "backward"}, leaf_grads(leaves, torch.cat(advantages(pairs))))
        answer, out = served.ok({"op": "step"})
        return leaves, float(out["grad_norm"][0]), answer

    def test_two_processes_step_as_one(self):
        one, two = self.start(1), self.start(2)  # both start before either is waited on
        self.assertEqual(one.started()["world_size"], 1)
        self.assertEqual(two.started()["world_size"], 2)
        self.assertEqual(self.open(one)["config"], self.open(two)["config"])

        _, scored1 = one.ok({"op": "score"}, wire(PAIRS))
        _, scored2 = two.ok({"op": "score"}, wire(PAIRS))
        for name in ("logprobs", "entropies"):
            self.assertEqual(scored2[name].shape, scored1[name].shape)
            self.assertLessEqual(float((scored2[name] - scored1[name]).abs().max()), LEAF_TOLERANCE, name)
        # Generation is rank 0's (its replica of the weights).
        prompts = {"prompt_lengths": torch.tensor([3, 1], dtype=torch.int32), "ids": torch.tensor([5, 6, 7, 9], dtype=torch.int32)}
        gen1, gen2 = (s.ok({"op": "generate", "max_tokens": 5, "temperature": 0}, prompts) for s in (one, two))
        self.assertEqual(gen2[0]["finish_reasons"], gen1[0]["finish_reasons"])
        self.assertEqual((gen2[1]["lengths"].tolist(), gen2[1]["ids"].tolist()), (gen1[1]["lengths"].tolist(), gen1[1]["ids"].tolist()))

        leaves1, norm1, step1 = self.update(one, PAIRS)
        leaves2, norm2, step2 = self.update(two, PAIRS)
        for name in ("logprobs", "entropies"):
            self.assertLessEqual(float((leaves2[name] - leaves1[name]).abs().max()), LEAF_TOLERANCE, name)
        self.assertEqual((step1["step"], step2["step"], step2["skipped"]), (1, 1, False))
        self.assertAlmostEqual(norm2, norm1, delta=1e-6 * norm1)
        w1, w2 = weights_of(one), weights_of(two)
        self.assertEqual(sorted(w1), sorted(w2))
        for name in w1:
            self.assertLessEqual(float((w1[name] - w2[name]).abs().max()), WEIGHT_TOLERANCE, name)

        # One pair: rank 1's slice is empty; it still takes part in the step.
        _, norm1, _ = self.update(one, PAIRS[:1])
        _, norm2, step2 = self.update(two, PAIRS[:1])
        self.assertEqual(step2["step"], 2)
        self.assertAlmostEqual(norm2, norm1, delta=1e-6 * norm1)
        w1, w2 = weights_of(one), weights_of(two)
        for name in w1:
            self.assertLessEqual(float((w1[name] - w2[name]).abs().max()), WEIGHT_TOLERANCE, name)
        check, _ = two.ok({"op": "sync_check"})
        self.assertEqual((check["world_size"], len(check["checksums"]), check["identical"]), (2, 2, True))

    def test_under_torchrun_rank_0_serves_and_rank_1_follows(self):
        # Debian's torch 1.13 torchrun fails before starting anything under Python 3.12 (its --redirects/--tee
        # parsing), so the workers are started here with torchrun's environment; torch 2.x's torchrun sets the same.
        from rl_torch_engine import load_model_dir, score_pairs

        workers = TorchrunWorkers()
        self.addCleanup(workers.close)
        self.assertEqual(workers.started()["world_size"], 2)
        self.open(workers)
        _, scored = workers.ok({"op": "score"}, wire(PAIRS))
        expected = torch.cat([lp for lp, _ in score_pairs(load_model_dir(self.model), PAIRS)])
        self.assertLessEqual(float((scored["logprobs"] - expected).abs().max()), LEAF_TOLERANCE)
        self.update(workers, PAIRS)
        check, _ = workers.ok({"op": "sync_check"})
        self.assertEqual((check["pids"], check["identical"]), ([w.pid for w in workers.workers], True))
        workers.stdin.close()
        self.assertEqual([w.wait(timeout=60) for w in workers.workers], [0, 0])

    def test_refusals_are_answered_and_the_group_keeps_serving(self):
        two = self.start(2)
        answer, _ = two.ask({"op": "forward"}, wire(PAIRS))
        self.assertEqual(answer["error"], {"code": "bad_request", "message": "forward: no model is open"})
        self.open(two)
        answer, _ = two.ask({"op": "backward"}, {"logprobs": torch.zeros(3)})
        self.assertEqual(answer["error"]["message"], "backward: no forward is pending (each forward's graph serves one backward)")
        _, leaves = two.ok({"op": "forward"}, wire(PAIRS))
        answer, _ = two.ask({"op": "backward"}, {"logprobs": torch.zeros(leaves["logprobs"].numel() - 1)})
        self.assertEqual(answer["error"]["message"], f"backward: logprobs has {leaves['logprobs'].numel() - 1} values, the forward answered {leaves['logprobs'].numel()}")
        answer, _ = two.ask({"op": "score"}, wire([([], [1, 2])]))
        self.assertEqual(answer["error"]["code"], "bad_request")
        self.assertIn("pairs[0]: the prompt is empty", answer["error"]["message"])
        answer, _ = two.ask({"op": "load_optimizer", "path": os.path.join(self.tmp.name, "absent.bin")})
        self.assertIn("cannot be read", answer["error"]["message"])
        # The optimizer state travels to the peer as bytes: after a round trip the ranks still agree.
        saved = os.path.join(self.tmp.name, "optimizer.bin")
        self.update(two, PAIRS)
        two.ok({"op": "save_optimizer", "path": saved})
        self.assertEqual(two.ok({"op": "load_optimizer", "path": saved})[0]["step"], 1)
        self.assertTrue(two.ok({"op": "sync_check"})[0]["identical"])
        # LoRA: only the adapters train (their gradients summed alike); adapters: false scores the base.
        from rl_torch_engine import load_model_dir, score_pairs

        two.ok({"op": "open", "model": self.model, "train": True, "optimizer": OPTIM, "lora": {"r": 4, "lora_alpha": 8, "target_modules": "all-linear"}})
        self.update(two, PAIRS)
        self.assertTrue(two.ok({"op": "sync_check"})[0]["identical"])
        _, base = two.ok({"op": "score", "adapters": False}, wire(PAIRS))
        expected = torch.cat([lp for lp, _ in score_pairs(load_model_dir(self.model), PAIRS)])
        self.assertLessEqual(float((base["logprobs"] - expected).abs().max()), LEAF_TOLERANCE)
        _, adapted = two.ok({"op": "score"}, wire(PAIRS))
        self.assertGreater(float((adapted["logprobs"] - expected).abs().max()), 1e-6)  # the step moved the adapters
        two.stdin.close()
        self.assertEqual(two.child.wait(timeout=60), 0)

    def test_a_killed_peer_fails_the_next_request_and_the_engine_exits(self):
        two = self.start(2, "--timeout-s", "30")
        self.open(two)
        check, _ = two.ok({"op": "sync_check"})
        peer = check["pids"][1]
        os.kill(peer, signal.SIGKILL)
        answer, _ = two.ask({"op": "score"}, wire(PAIRS))
        self.assertEqual(answer["error"]["code"], "unavailable")
        self.assertIn(f"peer rank 1 (pid {peer}) exited (signal 9)", answer["error"]["message"])
        self.assertEqual(two.child.wait(timeout=60), 3)

    def test_a_stuck_peer_fails_the_request_at_the_collective_timeout(self):
        two = self.start(2, "--timeout-s", "2")
        self.open(two)
        peer = two.ok({"op": "sync_check"})[0]["pids"][1]
        os.kill(peer, signal.SIGSTOP)
        self.addCleanup(lambda: os.kill(peer, signal.SIGKILL) if os.path.exists(f"/proc/{peer}") else None)
        answer, _ = two.ask({"op": "score"}, wire(PAIRS))
        self.assertEqual(answer["error"]["code"], "unavailable")
        self.assertIn("no peer has exited, one may be stuck (collectives wait 2 s)", answer["error"]["message"])
        self.assertEqual(two.child.wait(timeout=60), 3)


def fsdp2_missing():
    from rl_torch_engine.sharding import fsdp2_missing as missing

    return missing()


SHARDING_SKIP = "torch missing" if torch is None else (fsdp2_missing() or "")


@unittest.skipIf(not GLOO, "torch with torch.distributed (gloo) not installed")
class ShardingChoiceTest(unittest.TestCase):
    """What runs in CI whatever the torch: the choice of sharding, and a clear refusal where FSDP2 is missing."""

    def test_auto_shards_where_torch_has_fsdp2_and_fsdp2_is_refused_where_it_has_not(self):
        served = Served("serve", "--device", "cpu", "--world-size", "2")
        self.addCleanup(served.close)
        self.assertEqual(served.started()["sharding"], "replicated" if SHARDING_SKIP else "fsdp2")
        if not SHARDING_SKIP:
            return
        env = {**os.environ, "PYTHONPATH": PACKAGE_ROOT}
        done = subprocess.run([sys.executable, "-m", "rl_torch_engine", "serve", "--device", "cpu", "--world-size", "2", "--sharding", "fsdp2"],
                              stdin=subprocess.DEVNULL, capture_output=True, env=env, timeout=120)
        self.assertEqual(done.returncode, 2)
        self.assertIn(b"--sharding fsdp2: torch", done.stderr)
        self.assertEqual(done.stdout, b"")


@unittest.skipIf(not GLOO or bool(SHARDING_SKIP), f"FSDP2 sharding cannot run here: {SHARDING_SKIP}")
class ShardedTest(unittest.TestCase):
    """Two CPU processes sharding with FSDP2 against one process holding the whole model, on the same requests
    (torch >= 2.6; Debian's torch 1.13 under Python 3.11 cannot import FSDP: infra/gpu/check.sh runs these
    on the GPU machine's torch)."""

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory(prefix="rl-torch-fsdp-")
        self.addCleanup(self.tmp.cleanup)
        cfg = tiny_config("Qwen3ForCausalLM")
        self.model = os.path.join(self.tmp.name, "model")
        write_model_dir(self.model, cfg, random_tensors(cfg, seed=5))

    def pair(self, **open_header):
        one = Served("serve", "--device", "cpu")
        two = Served("serve", "--device", "cpu", "--world-size", "2", "--sharding", "fsdp2")
        for s in (one, two):
            self.addCleanup(s.close)
        self.assertEqual(two.started()["sharding"], "fsdp2")
        header = {"op": "open", "model": self.model, "train": True, "optimizer": OPTIM, **open_header}
        self.assertEqual(two.ok(header)[0]["sharding"], "fsdp2")
        one.ok(header)
        return one, two

    def update(self, served, pairs):
        return DistributedTest.update(self, served, pairs)

    def assert_same_weights(self, one, two):
        w1, w2 = weights_of(one), weights_of(two)
        self.assertEqual(sorted(w1), sorted(w2))
        for name in w1:
            self.assertLessEqual(float((w1[name] - w2[name]).abs().max()), WEIGHT_TOLERANCE, name)

    def assert_same_steps(self, one, two, pairs, step):
        leaves1, norm1, _ = self.update(one, pairs)
        leaves2, norm2, answer = self.update(two, pairs)
        for name in ("logprobs", "entropies"):
            self.assertLessEqual(float((leaves2[name] - leaves1[name]).abs().max()), LEAF_TOLERANCE, name)
        self.assertEqual((answer["step"], answer["skipped"]), (step, False))
        self.assertAlmostEqual(norm2, norm1, delta=1e-6 * norm1)
        self.assert_same_weights(one, two)

    def test_sharded_ranks_score_generate_and_step_as_one_process(self):
        # 16 tokens a micro-batch: the ranks' slices need different numbers of passes, so one rank pads.
        one, two = self.pair(max_tokens=16)
        _, scored1 = one.ok({"op": "score"}, wire(PAIRS))
        _, scored2 = two.ok({"op": "score"}, wire(PAIRS))
        for name in ("logprobs", "entropies"):
            self.assertLessEqual(float((scored2[name] - scored1[name]).abs().max()), LEAF_TOLERANCE, name)
        prompts = {"prompt_lengths": torch.tensor([3, 1], dtype=torch.int32), "ids": torch.tensor([5, 6, 7, 9], dtype=torch.int32)}
        gen1, gen2 = (s.ok({"op": "generate", "max_tokens": 5, "temperature": 0}, prompts) for s in (one, two))
        self.assertEqual((gen2[1]["lengths"].tolist(), gen2[1]["ids"].tolist()), (gen1[1]["lengths"].tolist(), gen1[1]["ids"].tolist()))
        self.assert_same_steps(one, two, PAIRS, 1)
        self.assert_same_steps(one, two, PAIRS[:1], 2)  # rank 1's slice is empty: it runs padding passes only
        check, _ = two.ok({"op": "sync_check"})
        self.assertEqual((check["world_size"], check["identical"]), (2, None))
        self.assertNotEqual(check["checksums"][0], check["checksums"][1])  # each rank holds its own shards
        # The optimizer state file is whole: the single process's resumes on the shards, and the reverse.
        from rl_torch_engine.safetensors import decode_safetensors

        p1, p2 = os.path.join(self.tmp.name, "one.bin"), os.path.join(self.tmp.name, "two.bin")
        one.ok({"op": "save_optimizer", "path": p1})
        two.ok({"op": "save_optimizer", "path": p2})
        with open(p1, "rb") as f1, open(p2, "rb") as f2:
            (s1, meta1), (s2, meta2) = decode_safetensors(f1.read(), "one"), decode_safetensors(f2.read(), "two")
        self.assertEqual((sorted(s1), meta1), (sorted(s2), meta2))
        for name in s1:
            self.assertLessEqual(float((s1[name] - s2[name]).abs().max()), 1e-6 * max(1.0, float(s1[name].abs().max())), name)
        self.assertEqual(two.ok({"op": "load_optimizer", "path": p1})[0]["step"], 2)
        self.assertEqual(one.ok({"op": "load_optimizer", "path": p2})[0]["step"], 2)
        self.assert_same_steps(one, two, PAIRS, 3)
        # save writes the whole model, as one process does.
        from rl_torch_engine import load_model_dir

        saved = os.path.join(self.tmp.name, "saved")
        two.ok({"op": "save", "path": saved, "version": "v3"})
        reloaded = dict(load_model_dir(saved).named_parameters())
        for name, t in weights_of(one).items():
            self.assertLessEqual(float((reloaded[name].detach() - t).abs().max()), WEIGHT_TOLERANCE, name)

    def test_sharded_lora_with_gradient_checkpointing_trains_as_one_process(self):
        lora = {"r": 4, "lora_alpha": 8, "target_modules": "all-linear", "seed": 2}
        one, two = self.pair(lora=lora, gradient_checkpointing=True)
        # Generation first: the gathering must not depend on an earlier pass through the root.
        prompts = {"prompt_lengths": torch.tensor([2], dtype=torch.int32), "ids": torch.tensor([5, 6], dtype=torch.int32)}
        gen1, gen2 = (s.ok({"op": "generate", "max_tokens": 4, "temperature": 0}, prompts) for s in (one, two))
        self.assertEqual(gen2[1]["ids"].tolist(), gen1[1]["ids"].tolist())
        self.assert_same_steps(one, two, PAIRS, 1)
        _, base1 = one.ok({"op": "score", "adapters": False}, wire(PAIRS))
        _, base2 = two.ok({"op": "score", "adapters": False}, wire(PAIRS))
        self.assertLessEqual(float((base2["logprobs"] - base1["logprobs"]).abs().max()), LEAF_TOLERANCE)
        from rl_torch_engine.safetensors import decode_safetensors

        a1, a2 = (decode_safetensors(s.ok({"op": "adapter"})[1]["safetensors"].numpy().tobytes(), "adapter")[0] for s in (one, two))
        self.assertEqual(sorted(a1), sorted(a2))
        for name in a1:
            self.assertLessEqual(float((a1[name] - a2[name]).abs().max()), WEIGHT_TOLERANCE, name)

    def test_a_sharded_critic_answers_values_and_steps_as_one_process(self):
        cfg = tiny_config("Qwen3ForTokenClassification", num_labels=1)
        self.model = os.path.join(self.tmp.name, "critic")
        write_model_dir(self.model, cfg, random_tensors(cfg, seed=6))
        one, two = self.pair()
        outs = []
        for s in (one, two):
            _, out = s.ok({"op": "forward"}, wire(PAIRS))
            s.ok({"op": "backward"}, {"values": out["values"] - 0.5})
            _, stepped = s.ok({"op": "step"})
            outs.append((out["values"], float(stepped["grad_norm"][0])))
        self.assertLessEqual(float((outs[0][0] - outs[1][0]).abs().max()), LEAF_TOLERANCE)
        self.assertAlmostEqual(outs[1][1], outs[0][1], delta=1e-6 * outs[0][1])
        self.assert_same_weights(one, two)


if __name__ == "__main__":
    unittest.main()
