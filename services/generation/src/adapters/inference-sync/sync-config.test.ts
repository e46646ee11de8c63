import { describe, expect, it } from 'vitest';
import { GenerationConfig } from '../../config.ts';

const OPENAI = { GENERATION_BACKEND: 'openai', OPENAI_BASE_URL: 'http://127.0.0.1:8000/v1' };
const issues = (env: Record<string, string>) => {
  const r = GenerationConfig.safeParse(env);
  return r.success ? [] : r.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
};

describe('INFERENCE_SYNC settings', () => {
  it('is off by default and takes the three server kinds', () => {
    expect(GenerationConfig.parse({}).INFERENCE_SYNC).toBe('none');
    for (const kind of ['sglang', 'vllm', 'vllm-lora']) {
      expect(issues({ ...OPENAI, INFERENCE_SYNC: kind, POLICY_OBJECT_STORE: 'rl-policy', INFERENCE_SYNC_DIR: '/shared/versions' })).toEqual([]);
    }
    expect(GenerationConfig.parse({}).INFERENCE_SYNC_TIMEOUT_MS).toBe(600_000);
  });

  it('names what a sync needs', () => {
    expect(issues({ INFERENCE_SYNC: 'sglang', POLICY_OBJECT_STORE: 'b', INFERENCE_SYNC_DIR: '/d' })).toEqual([
      'INFERENCE_SYNC: needs GENERATION_BACKEND=openai with OPENAI_MODE=tokens (a server serving token ids and log-probs)',
    ]);
    expect(issues({ ...OPENAI, OPENAI_MODE: 'chat', INFERENCE_SYNC: 'vllm', POLICY_OBJECT_STORE: 'b', INFERENCE_SYNC_DIR: '/d' })).toEqual([
      'INFERENCE_SYNC: needs GENERATION_BACKEND=openai with OPENAI_MODE=tokens (a server serving token ids and log-probs)',
    ]);
    expect(issues({ ...OPENAI, INFERENCE_SYNC: 'vllm' })).toEqual([
      'POLICY_OBJECT_STORE: required when INFERENCE_SYNC is set (the bucket the trainer publishes versions to)',
      'INFERENCE_SYNC_DIR: required when INFERENCE_SYNC is set (a directory the inference server reads)',
    ]);
    expect(issues({ ...OPENAI, INFERENCE_SYNC: 'trtllm' })[0]).toMatch(/^INFERENCE_SYNC: /);
  });
});
