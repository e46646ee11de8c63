// C# on Mono. SandboxFusion runs `dotnet new console` and `dotnet run` on
// `Program.cs` (the .NET SDK, which Debian does not package); here Debian's
// Mono compiles `Program.cs` with `mcs` (a compile step, so a compile error is
// compile_result, where dotnet's build-inside-run puts it in run_result) and
// `mono` runs the assembly. Mono's C# is 7.x: no top-level statements. What
// dotnet's console project adds is added here:
// - implicit usings: the template's global usings go before the code (`#line 1`
//   keeps compiler messages on the code's own lines);
// - the Debug configuration `dotnet run` builds: DEBUG and TRACE are defined,
//   and a failed Debug.Assert/Trace.Assert ends the process as .NET's does
//   ("Process terminated. Assertion failed." and the message on stderr, exit
//   134, the status of .NET's abort, which the run reports as SIGABRT's -6),
//   where Mono's default listener prints nothing and carries on. An entry
//   class appended after the code installs that listener and calls the code's
//   Main (found as the C# compiler finds it).

import { ENOMEM, type LanguageSpec } from './types.ts';

// SGen reserves address space beyond its heap (nursery, card table, thread
// stacks, the JIT's code); the heap cap is max-heap-size, RLIMIT_AS = limit +
// this headroom only stops off-heap runaways.
const MONO_AS_HEADROOM_MB = 512;
// The compiler's own heap (mcs is a Mono program too).
const MCS_HEAP_MB = 1024;
// Assemblies competitive code reaches for beyond mcs's defaults (BigInteger).
const MCS_REFERENCES = ['-r:System.Numerics'];
// dotnet's console template (ImplicitUsings=enable, Microsoft.NET.Sdk). System.Net.Http
// needs its assembly (libmono-system-net-http4.0-cil), so it is there only when installed.
const IMPLICIT_USINGS = ['System', 'System.Collections.Generic', 'System.IO', 'System.Linq', 'System.Threading', 'System.Threading.Tasks'];
const NET_HTTP = 'System.Net.Http';
const ENTRY_CLASS = '__SandboxFusionEntry';

// Names are fully qualified so nothing in the program's namespace can shadow them.
const ENTRY = `
#line hidden
static class ${ENTRY_CLASS} {
  static int Main(string[] args) {
    global::System.Diagnostics.Trace.Listeners.Insert(0, new __SandboxFusionAssertListener());
    global::System.Reflection.MethodInfo main = null;
    foreach (global::System.Type t in typeof(${ENTRY_CLASS}).Assembly.GetTypes()) {
      if (t == typeof(${ENTRY_CLASS})) continue;
      foreach (global::System.Reflection.MethodInfo m in t.GetMethods(global::System.Reflection.BindingFlags.Static | global::System.Reflection.BindingFlags.Public | global::System.Reflection.BindingFlags.NonPublic | global::System.Reflection.BindingFlags.DeclaredOnly)) {
        global::System.Reflection.ParameterInfo[] ps = m.GetParameters();
        global::System.Type r = m.ReturnType;
        if (m.Name != "Main" || m.IsGenericMethodDefinition || ps.Length > 1 || (ps.Length == 1 && ps[0].ParameterType != typeof(string[]))) continue;
        if (r != typeof(void) && r != typeof(int) && r != typeof(global::System.Threading.Tasks.Task) && r != typeof(global::System.Threading.Tasks.Task<int>)) continue;
        if (main != null) { global::System.Console.Error.WriteLine("Program.cs: error CS0017: Program has more than one entry point defined"); return 1; }
        main = m;
      }
    }
    if (main == null) { global::System.Console.Error.WriteLine("Program.cs: error CS5001: Program does not contain a static 'Main' method suitable for an entry point"); return 1; }
    object result;
    try { result = main.Invoke(null, main.GetParameters().Length == 1 ? new object[] { args } : null); }
    catch (global::System.Reflection.TargetInvocationException e) { global::System.Runtime.ExceptionServices.ExceptionDispatchInfo.Capture(e.InnerException).Throw(); throw; }
    global::System.Threading.Tasks.Task task = result as global::System.Threading.Tasks.Task;
    if (task != null) {
      task.GetAwaiter().GetResult();
      global::System.Threading.Tasks.Task<int> code = task as global::System.Threading.Tasks.Task<int>;
      return code != null ? code.Result : global::System.Environment.ExitCode;
    }
    return result is int ? (int)result : global::System.Environment.ExitCode;
  }
}
sealed class __SandboxFusionAssertListener : global::System.Diagnostics.TraceListener {
  public override void Write(string message) {}
  public override void WriteLine(string message) {}
  public override void Fail(string message, string detail) {
    global::System.Console.Out.Flush();
    global::System.Console.Error.WriteLine("Process terminated. Assertion failed.");
    if (!string.IsNullOrEmpty(message)) global::System.Console.Error.WriteLine(message);
    if (!string.IsNullOrEmpty(detail)) global::System.Console.Error.WriteLine(detail);
    global::System.Console.Error.WriteLine(new global::System.Diagnostics.StackTrace(2, true));
    global::System.Console.Error.Flush();
    global::System.Environment.Exit(134);
  }
}
`;

/** Program.cs as mcs compiles it: dotnet's implicit usings, the code, the entry class. */
export function monoSource(code: string, netHttp: boolean): string {
  const usings = [...IMPLICIT_USINGS, ...(netHttp ? [NET_HTTP] : [])].map((u) => `using ${u};`).join(' ');
  return `${usings}\n#line 1\n${code}\n${ENTRY}`;
}

function monoEnv(heapMb: number): Record<string, string> {
  // No per-user registry or config writes outside the scratch dir; no shared handles file.
  return { MONO_GC_PARAMS: `max-heap-size=${heapMb}m`, MONO_REGISTRY_PATH: '/tmp/.mono/registry', MONO_DISABLE_SHARED_AREA: '1' };
}

export const MONO_LANGUAGES: Readonly<Record<string, LanguageSpec>> = {
  csharp: {
    extension: 'cs',
    fileName: 'Program.cs',
    available: (t) => t.mcs !== undefined && t.mono !== undefined,
    prepareCode: (code, t) => monoSource(code, t.monoNetHttp === true),
    compile: (c) => ({
      argv: [
        c.tools.mcs ?? 'mcs',
        '-optimize+',
        // dotnet run's Debug configuration; CS0105: a using the code repeats from the implicit ones.
        '-d:DEBUG',
        '-d:TRACE',
        '-nowarn:105',
        ...MCS_REFERENCES,
        ...(c.tools.monoNetHttp === true ? [`-r:${NET_HTTP}`] : []),
        `-main:${ENTRY_CLASS}`,
        '-out:Program.exe',
        c.source,
      ],
      env: monoEnv(MCS_HEAP_MB),
    }),
    run: (c) => ({ argv: [c.tools.mono ?? 'mono', 'Program.exe'], env: monoEnv(c.memoryLimitMb) }),
    addressSpaceMb: (m) => m + MONO_AS_HEADROOM_MB,
    memoryMarkers: [/System\.OutOfMemoryException/, /Out of memory/i, ENOMEM],
  },
};
