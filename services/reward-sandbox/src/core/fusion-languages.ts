/**
 * Every language name SandboxFusion accepts (sandbox/runners/types.py `Language`).
 * Here rather than in schemas.ts so the core can name them without loading the HTTP schemas.
 */
export const FUSION_LANGUAGES = [
  'python', 'cpp', 'nodejs', 'go', 'go_test', 'java', 'php', 'csharp', 'bash', 'typescript', 'sql', 'rust', 'cuda', 'lua', 'R',
  'perl', 'D_ut', 'ruby', 'scala', 'julia', 'pytest', 'junit', 'kotlin_script', 'jest', 'verilog', 'python_gpu', 'lean', 'swift', 'racket',
] as const;
