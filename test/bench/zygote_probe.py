# Zygote probe for `make bench` (NOT used by the service): a python started once inside
# bubblewrap forks a child per run; the child unshares fresh user, mount, pid, net, ipc
# and uts namespaces, mounts its own tmpfs over /tmp, caps its address space and runs
# the code in the already-started interpreter. It prints the per-run cost, to compare
# with a fresh sandboxed interpreter (issue #3, item 5). Missing before it could serve:
# a fresh /proc per run, closing inherited fds, cpu/process/file limits, stdin/stderr,
# deadlines and kill of the run's pid namespace.
import ctypes, os, sys, time, resource
libc = ctypes.CDLL(None, use_errno=True)
CLONE_NEWNS, CLONE_NEWUSER, CLONE_NEWPID, CLONE_NEWNET, CLONE_NEWIPC, CLONE_NEWUTS = 0x20000, 0x10000000, 0x20000000, 0x40000000, 0x08000000, 0x04000000
MS_NOSUID, MS_NODEV = 2, 4
def run_once(code):
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(r)
        uid, gid = os.getuid(), os.getgid()
        if libc.unshare(CLONE_NEWUSER | CLONE_NEWNS | CLONE_NEWPID | CLONE_NEWNET | CLONE_NEWIPC | CLONE_NEWUTS) != 0:
            os.write(w, b'unshare failed %d\n' % ctypes.get_errno()); os._exit(2)
        open('/proc/self/setgroups', 'w').write('deny')
        open('/proc/self/uid_map', 'w').write(f'{uid} {uid} 1')
        open('/proc/self/gid_map', 'w').write(f'{gid} {gid} 1')
        inner = os.fork()  # becomes pid 1 of the new pid namespace
        if inner == 0:
            if libc.mount(b'tmpfs', b'/tmp', b'tmpfs', MS_NOSUID | MS_NODEV, b'size=64m') != 0:
                os.write(w, b'mount failed %d\n' % ctypes.get_errno()); os._exit(3)
            resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30))
            os.dup2(w, 1)
            exec(compile(code, '<code>', 'exec'), {'__name__': '__main__'})
            sys.stdout.flush(); os._exit(0)
        os.waitpid(inner, 0); os._exit(0)
    os.close(w)
    out = b''
    while True:
        b = os.read(r, 65536)
        if not b: break
        out += b
    os.close(r); os.waitpid(pid, 0)
    return out
assert run_once('print(__import__("os").getpid())') == b'1\n', 'the run is not pid 1 of its own namespace'
ts = []
for _ in range(200):
    t = time.perf_counter(); run_once('print("hello")'); ts.append((time.perf_counter() - t) * 1000)
ts.sort()
print('%.2f %.2f' % (ts[100], ts[198]))
