"""Exports a reward-model directory (config.json + safetensors, as the tests and
the bench write them) to DIR/model.onnx with torch.onnx, in optimum's layout
for the text-classification and token-classification tasks: int64 `input_ids`
and `attention_mask` [batch, sequence], float32 `logits`.

usage: export_onnx.py DIR [tokens|pooled]

- tokens (a ...ForTokenClassification's default): logits [batch, sequence, 1],
  the head at every position;
- pooled (a ...ForSequenceClassification's default): logits [batch, 1], read in
  the graph as transformers' ...ForSequenceClassification reads it: at the last
  token that is not config.json's pad_token_id (the last position without one).

The network is rl_torch_engine's (shared/python on PYTHONPATH); the weights are
the directory's own, so the graph computes what the other engines compute."""

import inspect
import json
import os
import sys

import torch

from rl_torch_engine.model import load_model_dir


class TokenScores(torch.nn.Module):
    def __init__(self, model: torch.nn.Module) -> None:
        super().__init__()
        self.model = model

    def forward(self, input_ids: torch.Tensor, attention_mask: torch.Tensor) -> torch.Tensor:
        return self.model.score(self.model.model(input_ids, attention_mask))


class PooledScores(TokenScores):
    def __init__(self, model: torch.nn.Module, pad_token_id) -> None:
        super().__init__(model)
        self.pad_token_id = pad_token_id

    def forward(self, input_ids: torch.Tensor, attention_mask: torch.Tensor) -> torch.Tensor:
        logits = super().forward(input_ids, attention_mask)
        if self.pad_token_id is None:
            return logits[:, -1]
        positions = torch.arange(input_ids.shape[-1], device=input_ids.device)
        last = (positions * (input_ids != self.pad_token_id).long()).argmax(-1)
        return logits[torch.arange(input_ids.shape[0], device=input_ids.device), last]


def main() -> None:
    directory = sys.argv[1]
    with open(os.path.join(directory, "config.json"), encoding="utf-8") as f:
        config = json.load(f)
    sequence = str(config["architectures"][0]).endswith("ForSequenceClassification")
    output = sys.argv[2] if len(sys.argv) > 2 else ("pooled" if sequence else "tokens")
    model = load_model_dir(directory)
    wrapper = PooledScores(model, config.get("pad_token_id")) if output == "pooled" else TokenScores(model)
    ids = torch.tensor([[1, 2, 3, 4], [5, 6, 7, 8]])
    axes = {0: "batch_size", 1: "sequence_length"}
    kwargs = {}
    if "dynamo" in inspect.signature(torch.onnx.export).parameters:
        kwargs["dynamo"] = False  # the TorchScript exporter: no onnxscript needed
    with torch.no_grad():
        torch.onnx.export(
            wrapper,
            (ids, torch.ones_like(ids)),
            os.path.join(directory, "model.onnx"),
            input_names=["input_ids", "attention_mask"],
            output_names=["logits"],
            dynamic_axes={"input_ids": axes, "attention_mask": axes, "logits": axes if output == "tokens" else {0: "batch_size"}},
            opset_version=14,
            **kwargs,
        )


if __name__ == "__main__":
    main()
