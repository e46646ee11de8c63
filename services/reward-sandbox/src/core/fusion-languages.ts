/**
 * Every language name SandboxFusion accepts (sandbox/runners/types.py `Language`).
 * Here rather than in schemas.ts so the core can name them without loading the HTTP schemas.
 */
export const FUSION_LANGUAGES = [
  'python',
  'cpp',
  'nodejs',
  'go',
  'go_test',
  'java',
  'php',
  'csharp',
  'bash',
  'typescript',
  'sql',
  'rust',
  'cuda',
  'lua',
  'R',
  'perl',
  'D_ut',
  'ruby',
  'scala',
  'julia',
  'pytest',
  'junit',
  'kotlin_script',
  'jest',
  'verilog',
  'python_gpu',
  'lean',
  'swift',
  'racket',
] as const;

type FusionLanguage = (typeof FUSION_LANGUAGES)[number];

/**
 * The Debian packages each language's toolchain comes from, with the libraries
 * SandboxFusion's image gives its programs (go_test's testify, java's
 * javatuples, lua's luaunit, perl's Test::Deep and Data::Compare, C#'s
 * System.Net.Http). `make sandbox-toolchains` installs all of them (the root
 * Makefile's SANDBOX_TOOLCHAIN_PACKAGES, checked against this table).
 */
export const TOOLCHAIN_PACKAGES: Readonly<Partial<Record<FusionLanguage, readonly string[]>>> = {
  python: ['python3'],
  pytest: ['python3-pytest'],
  bash: ['bash'],
  cpp: ['g++'],
  go: ['golang-go'],
  go_test: ['golang-go', 'golang-github-stretchr-testify-dev'],
  java: ['openjdk-17-jdk-headless', 'libjavatuples-java'],
  junit: ['openjdk-17-jdk-headless', 'junit5'],
  scala: ['openjdk-17-jdk-headless', 'scala'],
  kotlin_script: ['openjdk-17-jdk-headless', 'kotlin'],
  rust: ['rustc'],
  php: ['php-cli'],
  ruby: ['ruby'],
  perl: ['perl', 'libtest-deep-perl', 'libdata-compare-perl'],
  lua: ['lua5.4', 'lua-unit'],
  R: ['r-base-core'],
  sql: ['sqlite3'],
  csharp: ['mono-mcs', 'mono-runtime', 'libmono-system-net-http4.0-cil'],
  D_ut: ['gdc'],
  verilog: ['iverilog'],
  racket: ['racket'],
};

/** Languages whose toolchain Debian 12 does not package, and why. */
const NOT_PACKAGED: Readonly<Partial<Record<FusionLanguage, string>>> = {
  julia: 'Debian 12 has no julia package',
  swift: "Debian 12 has no Swift toolchain (its swift package is OpenStack's object store)",
  lean: 'Debian 12 has no lean4/lake package',
  cuda: 'CUDA is in non-free and needs a GPU',
  python_gpu: 'CUDA is in non-free and needs a GPU',
};

/** The Node languages run on the service's own Node; jest needs the npm packages `make deps` installs. */
const NODE_PACKAGES: ReadonlySet<string> = new Set(['jest']);
const SERVICE_NODE: ReadonlySet<string> = new Set(['nodejs', 'typescript']);

/** A SandboxFusion language this instance does not run, and what would add it. */
interface MissingLanguage {
  language: FusionLanguage;
  reason: string;
  /** The command that adds it (as root), or null when no package provides it. */
  install: string | null;
}

/** SandboxFusion's languages that are not in `running`, each with why and the command that adds it. */
export function missingLanguages(running: ReadonlySet<string>): MissingLanguage[] {
  return FUSION_LANGUAGES.filter((l) => !running.has(l)).map((language) => {
    const packages = TOOLCHAIN_PACKAGES[language];
    if (packages !== undefined) {
      return {
        language,
        reason: `toolchain not found under /usr (Debian: ${packages.join(', ')})`,
        install: `apt-get install -y --no-install-recommends ${packages.join(' ')}`,
      };
    }
    if (NODE_PACKAGES.has(language)) return { language, reason: 'npm packages of runtime/node-packages not installed', install: 'make deps' };
    if (SERVICE_NODE.has(language)) return { language, reason: "the service's Node is not usable in the sandbox (see /readyz problems)", install: null };
    return { language, reason: NOT_PACKAGED[language] ?? 'no runner on this instance', install: null };
  });
}
