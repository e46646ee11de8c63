"""A PyTorch engine for the Hugging Face Llama / Qwen2 / Qwen3 model family.

It runs as a child process of the TypeScript side (`python -m rl_torch_engine
serve`, see protocol.py) and needs only torch. The forward pass is written from
transformers' model definitions (modeling_llama.py, modeling_qwen2.py,
modeling_qwen3.py, modeling_rope_utils.py).
"""

from .config import ConfigError, ModelSpec, parse_hf_config
from .model import CausalLM, load_model_dir
from .scoring import score_pairs
from .training import OptimizerSpec, Trainer, parse_optimizer

__all__ = ["CausalLM", "ConfigError", "ModelSpec", "OptimizerSpec", "Trainer", "load_model_dir", "parse_hf_config", "parse_optimizer", "score_pairs"]
