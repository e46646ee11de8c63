// JVM languages. SandboxFusion writes java code to `Main.java` whatever its
// public class is called, compiles with `javac -cp .:<jars> Main.java` and runs
// `java -cp .:<jars> -ea Main`, the jars being the request's `*.jar` files
// (and its bundled javatuples, which Debian does not package).

import { ENOMEM, type LanguageContext, type LanguageSpec } from './types.ts';

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

function classpath(c: LanguageContext): string {
  return ['.', ...c.inputs.filter((p) => p.endsWith('.jar'))].join(':');
}

export const JVM_LANGUAGES: Readonly<Record<string, LanguageSpec>> = {
  java: {
    extension: 'java',
    fileName: 'Main.java',
    available: (t) => t.java !== undefined && t.javac !== undefined,
    compile: (c) => ({
      argv: [c.tools.javac ?? 'javac', ...[...JVM_COMMON, `-Xmx${JAVAC_HEAP_MB}m`].map((f) => `-J${f}`), '-cp', classpath(c), c.source],
    }),
    run: (c) => ({ argv: [c.tools.java ?? 'java', ...JVM_COMMON, `-Xmx${c.memoryLimitMb}m`, '-cp', classpath(c), '-ea', 'Main'] }),
    addressSpaceMb: (m) => m + JVM_AS_HEADROOM_MB,
    memoryMarkers: [/java\.lang\.OutOfMemoryError/, /Could not reserve enough space/, ENOMEM],
  },
};
