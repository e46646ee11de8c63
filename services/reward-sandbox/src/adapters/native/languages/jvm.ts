// JVM languages. SandboxFusion writes java code to `Main.java` whatever its
// public class is called, compiles with `javac -cp .:<jars> Main.java` and runs
// `java -cp .:<jars> -ea Main`, the jars being the request's `*.jar` files
// (and its bundled javatuples: Debian's libjavatuples-java here). scala: SandboxFusion
// takes the first `object <Name>` in the code as the main class (none: a
// compile error "Object name not found."), compiles `tmpXXXXXXXX.scala` with
// `scalac` and runs `scala <Name>`; Debian's Scala is 2.11, its runner scripts
// take the JVM flags from JAVA_OPTS. kotlin_script: SandboxFusion runs `kotlin
// tmpXXXXXXXX.kts`; Debian's Kotlin is 1.3, whose `kotlin` runner cannot run
// scripts, so `kotlinc -script` does (compiler and script in one JVM, so one
// run step as there). junit: the code goes to `<public class>.java` (`Main.java`
// when none), `javac -cp .:<console jar>:<jars> *.java`, then the JUnit
// Platform console launcher scans the class path (Debian junit5's 1.9
// standalone jar; SandboxFusion bundles 1.8.2).

import { ENOMEM, type CommandSpec, type LanguageContext, type LanguageSpec } from './types.ts';

// The JVM reserves address space far beyond its heap: the compressed class
// space (1 GiB by default), the code cache (240 MiB), metaspace, a 1 MiB stack
// per thread and glibc arenas. Shrunk to the sizes below, a hello world with
// -Xmx256m needed 600-800 MiB of RLIMIT_AS in a measurement and failed at
// random in between (a thread's stack mmap losing the race), so the run gets
// the heap cap plus 1 GiB: -Xmx is the real heap limit, the slot's cgroup (when
// runs join one) the whole-process one.
const JVM_AS_HEADROOM_MB = 1024;
const JVM_RESERVATIONS = ['-XX:CompressedClassSpaceSize=64m', '-XX:ReservedCodeCacheSize=64m', '-XX:MaxMetaspaceSize=256m'];
// The serial collector starts no GC threads per host core (RLIMIT_NPROC is 64
// per run); crash logs go to the scratch tmpfs, not the work dir fetch_files reads.
const JVM_COMMON = ['-XX:+UseSerialGC', ...JVM_RESERVATIONS, '-XX:ErrorFile=/tmp/hs_err_%p.log'];
// javac's default heap is a quarter of host RAM, which RLIMIT_AS refuses outright.
const JAVAC_HEAP_MB = 512;
// A compiler's JVM lives a few seconds: C2's optimising JIT costs more than it
// returns there (scalac on a hello world: 11 s instead of 15 s on a loaded 2-core host).
const COMPILER_JIT = '-XX:TieredStopAtLevel=1';

/** The work dir, a jar the runner bundles (java: javatuples, as SandboxFusion), then the request's jars. */
function classpath(c: LanguageContext, bundled?: string): string {
  return ['.', ...(bundled === undefined ? [] : [bundled]), ...c.inputs.filter((p) => p.endsWith('.jar'))].join(':');
}

// scalac is a JVM program with a bigger appetite than javac.
const SCALAC_HEAP_MB = 768;
// The main object's name, as SandboxFusion finds it: the first `object\s+(\w+)` (one line here).
const SCALA_OBJECT = `n=$(grep -oE 'object[[:space:]]+[A-Za-z0-9_]+' "$1" | head -n 1 | sed -E 's/^object[[:space:]]+//')`;
const SCALA_COMPILE = `${SCALA_OBJECT}; [ -n "$n" ] || { echo 'Object name not found.' >&2; exit 1; }; exec "$2" -cp "$3" -d . "$1"`;
const SCALA_RUN = `${SCALA_OBJECT}; exec "$2" -cp "$3" "$n"`;

function scalaStep(script: string, tool: string, c: LanguageContext, jvmFlags: string[]): CommandSpec {
  return { argv: ['/bin/sh', '-c', script, 'scala', c.source, tool, classpath(c)], env: { JAVA_OPTS: [...JVM_COMMON, ...jvmFlags].join(' ') } };
}

// kotlinc compiles the script in the run's JVM: the heap never goes below what the compiler needs.
const KOTLIN_HEAP_FLOOR_MB = 512;
// The compiler's JVM maps the JDK's module image and its own jars besides the
// usual reservations: with 1 GiB of headroom the image's mmap failed ("Map failed").
const KOTLIN_AS_HEADROOM_MB = 2048;
// The public class as SandboxFusion finds it (`\bpublic\s+(abstract\s+|final\s+)?class\s+(\w+)`),
// else Main; the code is moved to that name, as javac requires of a public class.
const JUNIT_COMPILE = `n=$(grep -oE '\\bpublic[[:space:]]+((abstract|final)[[:space:]]+)?class[[:space:]]+[A-Za-z0-9_]+' "$1" | head -n 1 | sed -E 's/.*class[[:space:]]+//')
[ -n "$n" ] || n=Main
[ "$1" = "$n.java" ] || mv "$1" "$n.java" || exit 1
shift
exec "$@" *.java`;

function junitClasspath(c: LanguageContext): string {
  return ['.', c.tools.junitConsole ?? 'junit-platform-console-standalone.jar', ...c.inputs.filter((p) => p.endsWith('.jar'))].join(':');
}

export const JVM_LANGUAGES: Readonly<Record<string, LanguageSpec>> = {
  java: {
    extension: 'java',
    fileName: 'Main.java',
    available: (t) => t.java !== undefined && t.javac !== undefined,
    compile: (c) => ({
      argv: [
        c.tools.javac ?? 'javac',
        ...[...JVM_COMMON, `-Xmx${JAVAC_HEAP_MB}m`, COMPILER_JIT].map((f) => `-J${f}`),
        '-cp',
        classpath(c, c.tools.javatuples),
        c.source,
      ],
    }),
    run: (c) => ({ argv: [c.tools.java ?? 'java', ...JVM_COMMON, `-Xmx${c.memoryLimitMb}m`, '-cp', classpath(c, c.tools.javatuples), '-ea', 'Main'] }),
    addressSpaceMb: (m) => m + JVM_AS_HEADROOM_MB,
    memoryMarkers: [/java\.lang\.OutOfMemoryError/, /Could not reserve enough space/, ENOMEM],
  },
  scala: {
    extension: 'scala',
    available: (t) => t.scala !== undefined && t.scalac !== undefined && t.java !== undefined,
    compile: (c) => scalaStep(SCALA_COMPILE, c.tools.scalac ?? 'scalac', c, [`-Xmx${SCALAC_HEAP_MB}m`, COMPILER_JIT]),
    run: (c) => scalaStep(SCALA_RUN, c.tools.scala ?? 'scala', c, [`-Xmx${c.memoryLimitMb}m`]),
    addressSpaceMb: (m) => m + JVM_AS_HEADROOM_MB,
    memoryMarkers: [/java\.lang\.OutOfMemoryError/, /Could not reserve enough space/, ENOMEM],
  },
  kotlin_script: {
    extension: 'kts',
    available: (t) => t.kotlinc !== undefined && t.java !== undefined,
    run: (c) => ({
      argv: [c.tools.kotlinc ?? 'kotlinc', '-script', c.source],
      env: { JAVA_OPTS: [...JVM_COMMON, `-Xmx${Math.max(c.memoryLimitMb, KOTLIN_HEAP_FLOOR_MB)}m`].join(' ') },
    }),
    addressSpaceMb: (m) => Math.max(m, KOTLIN_HEAP_FLOOR_MB) + KOTLIN_AS_HEADROOM_MB,
    runFloorMb: KOTLIN_HEAP_FLOOR_MB,
    memoryMarkers: [/java\.lang\.OutOfMemoryError/, /Could not reserve enough space/, ENOMEM],
  },
  junit: {
    extension: 'java',
    available: (t) => t.java !== undefined && t.javac !== undefined && t.junitConsole !== undefined,
    compile: (c) => ({
      argv: [
        '/bin/sh',
        '-c',
        JUNIT_COMPILE,
        'junit',
        c.source,
        c.tools.javac ?? 'javac',
        ...[...JVM_COMMON, `-Xmx${JAVAC_HEAP_MB}m`, COMPILER_JIT].map((f) => `-J${f}`),
        '-cp',
        junitClasspath(c),
      ],
    }),
    run: (c) => ({
      argv: [
        c.tools.java ?? 'java',
        ...JVM_COMMON,
        `-Xmx${c.memoryLimitMb}m`,
        '-jar',
        c.tools.junitConsole ?? 'junit-platform-console-standalone.jar',
        '--class-path',
        junitClasspath(c),
        '--scan-class-path',
      ],
    }),
    addressSpaceMb: (m) => m + JVM_AS_HEADROOM_MB,
    memoryMarkers: [/java\.lang\.OutOfMemoryError/, /Could not reserve enough space/, ENOMEM],
  },
};
