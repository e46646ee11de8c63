// C# on Mono. SandboxFusion runs `dotnet new console` and `dotnet run` on
// `Program.cs` (the .NET SDK, which Debian does not package); here Debian's
// Mono compiles `Program.cs` with `mcs` (a compile step, so a compile error is
// compile_result, where dotnet's build-inside-run puts it in run_result) and
// `mono` runs the assembly. Mono's C# is 7.x: no top-level statements and no
// implicit usings, which dotnet's console template has.

import { ENOMEM, type LanguageSpec } from './types.ts';

// SGen reserves address space beyond its heap (nursery, card table, thread
// stacks, the JIT's code); the heap cap is max-heap-size, RLIMIT_AS = limit +
// this headroom only stops off-heap runaways.
const MONO_AS_HEADROOM_MB = 512;
// The compiler's own heap (mcs is a Mono program too).
const MCS_HEAP_MB = 1024;
// Assemblies competitive code reaches for beyond mcs's defaults (BigInteger).
const MCS_REFERENCES = ['-r:System.Numerics'];

function monoEnv(heapMb: number): Record<string, string> {
  // No per-user registry or config writes outside the scratch dir; no shared handles file.
  return { MONO_GC_PARAMS: `max-heap-size=${heapMb}m`, MONO_REGISTRY_PATH: '/tmp/.mono/registry', MONO_DISABLE_SHARED_AREA: '1' };
}

export const MONO_LANGUAGES: Readonly<Record<string, LanguageSpec>> = {
  csharp: {
    extension: 'cs',
    fileName: 'Program.cs',
    available: (t) => t.mcs !== undefined && t.mono !== undefined,
    compile: (c) => ({ argv: [c.tools.mcs ?? 'mcs', '-optimize+', ...MCS_REFERENCES, '-out:Program.exe', c.source], env: monoEnv(MCS_HEAP_MB) }),
    run: (c) => ({ argv: [c.tools.mono ?? 'mono', 'Program.exe'], env: monoEnv(c.memoryLimitMb) }),
    addressSpaceMb: (m) => m + MONO_AS_HEADROOM_MB,
    memoryMarkers: [/System\.OutOfMemoryException/, /Out of memory/i, ENOMEM],
  },
};
