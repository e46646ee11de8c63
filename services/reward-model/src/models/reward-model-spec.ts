// REWARD_MODELS: the reward models the service loads at start-up,
// `name=DIR[,name=DIR]`, a DIR prefixed with `torch:` (or `jax:`, the default)
// choosing the engine.
import { z } from 'zod';

/** One configured reward model. */
export interface RewardModelSpec {
  name: string;
  dir: string;
  engine: 'jax' | 'torch';
}

const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

/** Parses REWARD_MODELS (empty: none); a malformed entry is an issue naming it. */
export const RewardModelsEnv = z
  .string()
  .default('')
  .transform((text, ctx): RewardModelSpec[] => {
    const specs: RewardModelSpec[] = [];
    for (const entry of text.split(',').map((e) => e.trim())) {
      if (entry === '') continue;
      const eq = entry.indexOf('=');
      const name = eq < 0 ? '' : entry.slice(0, eq);
      let dir = eq < 0 ? '' : entry.slice(eq + 1);
      let engine: RewardModelSpec['engine'] = 'jax';
      const prefix = /^(jax|torch):/.exec(dir);
      if (prefix !== null) {
        engine = prefix[1] as RewardModelSpec['engine'];
        dir = dir.slice(prefix[0].length);
      }
      if (!NAME.test(name) || dir === '') {
        ctx.addIssue({ code: 'custom', message: `${JSON.stringify(entry)}: each entry is name=DIR or name=torch:DIR (name: letters, digits, . _ -)` });
        return z.NEVER;
      }
      if (specs.some((s) => s.name === name)) {
        ctx.addIssue({ code: 'custom', message: `${name}: named twice` });
        return z.NEVER;
      }
      specs.push({ name, dir, engine });
    }
    return specs;
  });
