// A reward-model directory's weights exported to DIR/model.onnx (optimum's
// layout) by export_onnx.py on the PyTorch engine's network, for the ONNX
// backend's tests and the bench.
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const SCRIPT = fileURLToPath(new URL('./export_onnx.py', import.meta.url));
/** The directory holding rl_torch_engine. */
const PYTHON_PACKAGES = fileURLToPath(new URL('../../../../../shared/python', import.meta.url));

/**
 * Writes `dir/model.onnx`: `tokens` logits [batch, sequence, 1], or `pooled`
 * [batch, 1] read at the last non-pad token inside the graph; by default what
 * config.json's architecture exports (sequence classification: pooled).
 */
export function exportOnnx(dir: string, output?: 'tokens' | 'pooled'): void {
  const python = process.env.RL_TORCH_PYTHON ?? '/usr/bin/python3';
  execFileSync(python, [SCRIPT, dir, ...(output === undefined ? [] : [output])], {
    env: { ...process.env, PYTHONPATH: [PYTHON_PACKAGES, process.env.PYTHONPATH].filter((p) => p !== undefined && p !== '').join(':') },
    stdio: ['ignore', 'ignore', 'pipe'],
    timeout: 300_000,
  });
}
