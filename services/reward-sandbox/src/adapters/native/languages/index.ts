// The language table, keyed by SandboxFusion language name, split by family:
// interpreters (scripting.ts), Node with its npm packages (node.ts), native
// compilers (native.ts), the JVM (jvm.ts), Mono (mono.ts).

import { JVM_LANGUAGES } from './jvm.ts';
import { MONO_LANGUAGES } from './mono.ts';
import { NATIVE_LANGUAGES } from './native.ts';
import { NODE_LANGUAGES } from './node.ts';
import { SCRIPTING_LANGUAGES } from './scripting.ts';
import { ENOMEM, type LanguageSpec } from './types.ts';

export type { LanguageSpec, Toolchain } from './types.ts';

export const LANGUAGES: Readonly<Record<string, LanguageSpec>> = {
  ...SCRIPTING_LANGUAGES,
  ...NODE_LANGUAGES,
  ...NATIVE_LANGUAGES,
  ...JVM_LANGUAGES,
  ...MONO_LANGUAGES,
};

/** Markers for the compile step (g++, go, rustc or javac running out of memory). */
export const COMPILER_MEMORY_MARKERS: RegExp[] = [
  /virtual memory exhausted/,
  /out of memory allocating/,
  /runtime: out of memory/,
  /java\.lang\.OutOfMemoryError/,
  /memory allocation of \d+ bytes failed/,
  /System\.OutOfMemoryException/,
  ENOMEM,
];
