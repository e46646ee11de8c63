// What the torch engine's tests train on: pairs of every shape a batch meets
// (an empty response, a one-token prompt, a long response) and one optimizer.

/** Engine children start, train and score within this (loaded CI machines included). */
export const SLOW_MS = 120_000;

/** AdamW settings of the tests' steps (a small lr: Adam magnifies rounding near eps at larger ones). */
export const OPTIMIZER = { lr: 1e-4, betas: [0.9, 0.95] as [number, number], weightDecay: 0.1, maxGradNorm: 1 };

/** Token pairs for tiny models (vocabulary >= 256). */
export const PAIRS = [
  { prompt: [3, 140, 15, 9, 226], response: [5, 35, 80, 9] },
  { prompt: [27, 1, 8], response: [2, 8, 180, 28, 1, 8, 255, 0] },
  { prompt: [7], response: [1] },
  { prompt: [4, 4, 2, 9, 11, 12, 13, 14, 15, 16, 17], response: [] },
  { prompt: [200, 201, 202, 203, 204, 205, 206, 207], response: [33, 34, 35, 36, 37, 38, 39, 40, 41, 42, 43, 44] },
];
