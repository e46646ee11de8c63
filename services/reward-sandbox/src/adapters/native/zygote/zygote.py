# Python zygote: started once inside bubblewrap (read-only root, no network,
# clean env, unprivileged uid), it forks a fresh, fully namespaced sandbox per run
# so a run costs a few forks instead of an interpreter start-up. The next run's
# sandbox is prepared while the service is busy elsewhere, so a request only pays
# for writing its files, running the program and reporting.
#
# Process tree of one run (all forks of this already-initialised interpreter):
#   Z  zygote: forks A; once A has taken its request, forks the next A (which
#      builds its sandbox while the run executes and waits for its turn), waits for
#      A, reports its exit. Z never reads from the host, so no run's code, input
#      or output is in memory a later run inherits.
#   A  supervisor: unshares user/mount/pid/net/ipc/uts/cgroup namespaces (in the
#      new user namespace U1 it is uid 0, so it may write the IPC namespace's
#      SysV limits, argv[4]), forks B, then waits for one request on fd 0, hands it to B, enforces the wall-clock
#      deadline (SIGKILL on B tears down the whole pid namespace), caps
#      stdout/stderr, writes one result frame to fd 1.
#   B  pid 1 of the new pid namespace: fresh size- and inode-capped tmpfs /tmp and
#      /dev/shm, fresh /proc with /proc/sys read-only, no nested user namespaces
#      beyond C's; forks C; on the request writes the files and lets
#      C go; reaps, kills leftovers, reads fetch_files, reports to A. Ignores the
#      signals C could send it.
#   C  the program: moves into a user namespace U2 of its own, where it is uid
#      65534 as in bubblewrap (U1's uid 0, which owns the IPC limits, is not
#      C's uid there), waits for B's go, then rlimits, only fds 0-2, every capability
#      dropped, no_new_privs, the service's seccomp filter (argv[3], built by
#      ../seccomp/filter.ts) as the last step, and runs the code as __main__ the
#      way `python3 tmpXXXX.py` would.
#
# Frames on fd 1 (host side: protocol.ts): 1 type byte, 4-byte big-endian
# length, body. H = ready (JSON), R = result (JSON header + stdout + stderr bytes),
# X = a run's supervisor exited (JSON status). A writes R; Z writes H and X.
import ctypes
import errno
import fcntl
import gc
import json
import os
import select
import signal
import socket
import struct
import sys
import time

# Warm the modules competitive-programming code imports most; forks then find them
# loaded. Kept short on purpose: every module makes each of the three forks per run
# slower (page tables to copy), measured 0.4 ms bare vs 1.2 ms with ~30 modules.
PREIMPORT = (
    'bisect', 'collections', 'functools', 'heapq', 'itertools', 'math', 're', 'string', 'random',
    'resource', 'base64',
)
for _m in PREIMPORT:
    try:
        __import__(_m)
    except ImportError:
        pass
import atexit
import threading
import traceback
import types
import importlib.machinery

libc = ctypes.CDLL(None, use_errno=True)
CLONE_NEWNS, CLONE_NEWCGROUP, CLONE_NEWUTS, CLONE_NEWIPC = 0x20000, 0x02000000, 0x04000000, 0x08000000
CLONE_NEWUSER, CLONE_NEWPID, CLONE_NEWNET = 0x10000000, 0x20000000, 0x40000000
MS_RDONLY, MS_NOSUID, MS_NODEV, MS_NOEXEC, MS_REC, MS_PRIVATE = 1, 2, 4, 8, 0x4000, 0x40000
PR_SET_NO_NEW_PRIVS, PR_CAPBSET_DROP, PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, PR_SET_DUMPABLE = 38, 24, 47, 4, 4
PR_SET_SECCOMP, SECCOMP_MODE_FILTER = 22, 2
WORK = '/tmp/work'
MS_REMOUNT, MS_BIND = 32, 4096
# Sizes of the run's /tmp and /dev/shm (argv[1], argv[2]); /tmp grows per run to fit its inputs.
TMP_BYTES = int(sys.argv[1]) if len(sys.argv) > 1 else 256 << 20
SHM_BYTES = int(sys.argv[2]) if len(sys.argv) > 2 else 64 << 20
# The seccomp program (classic BPF) every run's program loads (argv[3]); required.
SECCOMP_PATH = sys.argv[3] if len(sys.argv) > 3 else None
# Inode caps of /tmp and /dev/shm, the IPC namespace's sysctls and the cgroup.procs
# files of the slot's two run cgroups (or None: no cgroups on this host) (argv[4], JSON).
LIMITS = json.loads(sys.argv[4]) if len(sys.argv) > 4 else {'tmp_inodes': 65536, 'shm_inodes': 4096, 'ipc': {}, 'run_cgroups': None}
RUN_CGROUPS = LIMITS.get('run_cgroups')
# The run cgroup (0 or 1) of this process's run; set in each supervisor (A) and inherited by B and C.
RUN_CGROUP = None
SANDBOX_UID = 65534
# Dispositions of a freshly started interpreter (SIGPIPE/SIGXFSZ ignored, SIGINT raises), restored in C.
FRESH_SIGNALS = {s: signal.getsignal(s) for s in signal.valid_signals() if s not in (signal.SIGKILL, signal.SIGSTOP)}


def frame(kind, body):
    data = kind + struct.pack('>I', len(body)) + body
    view = memoryview(data)
    while view:
        view = view[os.write(1, view):]


def read_exact(fd, n):
    parts, left = [], n
    while left > 0:
        chunk = os.read(fd, min(left, 1 << 20))
        if not chunk:
            raise EOFError('stream closed')
        parts.append(chunk)
        left -= len(chunk)
    return b''.join(parts)


def check(rc, what):
    if rc != 0:
        e = ctypes.get_errno()
        raise OSError(e, '%s: %s' % (what, os.strerror(e)))


def write_file(path, text):
    with open(path, 'w') as f:
        f.write(text)


# ---------------------------------------------------------------- C: the program

class CapHeader(ctypes.Structure):
    _fields_ = [('version', ctypes.c_uint32), ('pid', ctypes.c_int)]


class CapData(ctypes.Structure):
    _fields_ = [('effective', ctypes.c_uint32), ('permitted', ctypes.c_uint32), ('inheritable', ctypes.c_uint32)]


def drop_privileges():
    check(libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0), 'no_new_privs')
    for cap in range(64):
        if libc.prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) != 0 and ctypes.get_errno() != errno.EINVAL:
            check(-1, 'capbset drop %d' % cap)
    libc.prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0)
    data = (CapData * 2)()
    check(libc.capset(ctypes.byref(CapHeader(0x20080522, 0)), data), 'capset')


class SockFprog(ctypes.Structure):
    _fields_ = [('len', ctypes.c_ushort), ('filter', ctypes.c_void_p)]


def read_seccomp_program(path):
    """Reads the filter once, before any fork: the zygote refuses to start without it."""
    if path is None:
        raise SystemExit('zygote: no seccomp program given')
    with open(path, 'rb') as f:
        data = f.read()
    if not data or len(data) % 8 != 0 or len(data) // 8 > 4096:  # BPF_MAXINSNS
        raise SystemExit('zygote: %s is not a seccomp program (%d bytes)' % (path, len(data)))
    buf = ctypes.create_string_buffer(data, len(data))
    return buf, SockFprog(len(data) // 8, ctypes.cast(buf, ctypes.c_void_p))


SECCOMP = read_seccomp_program(SECCOMP_PATH)


def load_seccomp():
    # Last before user code: the namespace setup above needed unshare and mount,
    # which the filter denies. no_new_privs is already set (drop_privileges).
    check(libc.prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, ctypes.byref(SECCOMP[1]), 0, 0), 'seccomp')


def set_limits(lim):
    import resource
    mib = 1024 * 1024
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    resource.setrlimit(resource.RLIMIT_CPU, (lim['cpu_s'], lim['cpu_s'] + 1))
    resource.setrlimit(resource.RLIMIT_AS, (lim['as_mb'] * mib, lim['as_mb'] * mib))
    resource.setrlimit(resource.RLIMIT_STACK, (lim['stack_mb'] * mib, lim['stack_mb'] * mib))
    resource.setrlimit(resource.RLIMIT_FSIZE, (lim['file_bytes'], lim['file_bytes']))
    resource.setrlimit(resource.RLIMIT_NOFILE, (lim['open_files'], lim['open_files']))
    resource.setrlimit(resource.RLIMIT_NPROC, (lim['processes'], lim['processes']))


def exit_code_of(exc):
    # SystemExit semantics of the interpreter: None -> 0, int -> itself, other -> printed, 1.
    code = exc.code
    if code is None:
        return 0
    if isinstance(code, int):
        return code & 0xFF
    try:
        print(code, file=sys.stderr)
    except Exception:
        pass
    return 1


def enter_program_userns():
    """C: a user namespace where it is uid/gid 65534 (U1's 0, its only id, mapped there)."""
    check(libc.unshare(CLONE_NEWUSER), 'unshare user')
    write_file('/proc/self/setgroups', 'deny')
    write_file('/proc/self/uid_map', '%d 0 1' % SANDBOX_UID)
    write_file('/proc/self/gid_map', '%d 0 1' % SANDBOX_UID)


def join_run_cgroup():
    """C, before its request: into this run's memory cgroup (Z, A and B stay in the slot's).

    The previous run is in the other one, so this happens while it executes, and the
    move's RCU grace period (v1) is off the critical path. Returns the failure, if any,
    which stops the run once it arrives: no program runs outside its budget."""
    if RUN_CGROUPS is None:
        return None
    try:
        write_file(RUN_CGROUPS[RUN_CGROUP], '0')
        return None
    except OSError as e:
        return 'cannot join the run memory cgroup: %s' % e


def run_program(go_r, out_w, err_w, join_failure):
    """C: waits for B's go (a JSON line), then becomes the program."""
    msg = read_all(go_r)
    if not msg:
        os._exit(0)  # the sandbox was never used (zygote stopping)
    if join_failure is not None:
        raise OSError(errno.EPERM, join_failure)
    meta = json.loads(msg)
    stdin_fd = os.open('/tmp/.stdin' if meta['stdin'] else '/dev/null', os.O_RDONLY)
    if meta['stdin']:
        os.unlink('/tmp/.stdin')
    os.dup2(stdin_fd, 0)
    os.dup2(out_w, 1)
    os.dup2(err_w, 2)
    os.closerange(3, 1 << 16)
    for sig, handler in FRESH_SIGNALS.items():
        try:
            signal.signal(sig, handler if handler is not None else signal.SIG_DFL)
        except (OSError, ValueError, TypeError):
            pass
    set_limits(meta['limits'])
    # An OOM of the slot's cgroup (which holds the run cgroup) should take the program
    # (and what it forks), not the zygote or the run's supervisor and pid 1.
    # Raising one's own score needs no privilege.
    write_file('/proc/self/oom_score_adj', '500')
    os.chdir(WORK)
    drop_privileges()
    load_seccomp()
    path = WORK + '/' + meta['source']
    sys.argv = [meta['source']]
    sys.orig_argv = [sys.executable, meta['source']]
    sys.path[0] = WORK
    main = types.ModuleType('__main__')
    main.__file__ = path
    main.__cached__ = None
    main.__loader__ = importlib.machinery.SourceFileLoader('__main__', path)
    main.__builtins__ = __builtins__
    sys.modules['__main__'] = main
    code = 0
    try:
        with open(path, 'rb') as f:
            source = f.read()
        exec(compile(source, path, 'exec'), main.__dict__)
    except SystemExit as e:
        code = exit_code_of(e)
    except BaseException as e:
        # Show only the program's frames, as the interpreter does.
        tb = e.__traceback__
        while tb is not None and tb.tb_frame.f_code.co_filename == __file__:
            tb = tb.tb_next
        try:
            sys.excepthook(type(e), e.with_traceback(tb), tb)
        except BaseException:
            pass
        code = 1
    os._exit(finalize(code))


def finalize(code):
    # What Py_FinalizeEx does for a script: join non-daemon threads, atexit, flush.
    try:
        threading._shutdown()
    except BaseException:
        pass
    try:
        atexit._run_exitfuncs()
    except BaseException:
        pass
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except BaseException:
            if code == 0:
                code = 120
    return code


# ------------------------------------------------------- B: pid 1 of the run's namespace

def prepare_namespace(tmp_bytes, shm_bytes):
    libc.mount(None, b'/', None, MS_REC | MS_PRIVATE, None)
    # nr_inodes: without it 300,000 empty files cost the host ~370 MB of slab in a tmpfs reporting 0 bytes used.
    tmp_opts = b'size=%d,nr_inodes=%d,mode=1777' % (tmp_bytes, LIMITS['tmp_inodes'])
    check(libc.mount(b'tmpfs', b'/tmp', b'tmpfs', MS_NOSUID | MS_NODEV, tmp_opts), 'mount /tmp')
    shm_opts = b'size=%d,nr_inodes=%d,mode=1777' % (shm_bytes, LIMITS['shm_inodes'])
    check(libc.mount(b'tmpfs', b'/dev/shm', b'tmpfs', MS_NOSUID | MS_NODEV, shm_opts), 'mount /dev/shm')
    check(libc.mount(b'proc', b'/proc', b'proc', MS_NOSUID | MS_NODEV | MS_NOEXEC, None), 'mount /proc')
    check(libc.sethostname(b'sandbox', 7), 'sethostname')
    if RUN_CGROUPS is not None:
        # The other run cgroup holds the previous or next run: the program must not move there.
        other = RUN_CGROUPS[1 - RUN_CGROUP]
        check(libc.mount(b'/dev/null', other.encode(), None, MS_BIND, None), 'hide ' + other)
    os.mkdir(WORK, 0o755)
    # /mnt links here (../plan/paths.ts MNT_DIR): writable /mnt as SandboxFusion's root container has.
    os.mkdir('/tmp/mnt', 0o755)


def seal_namespace():
    """After C has its own user namespace: no more nested ones, and /proc/sys read-only."""
    # No nested user namespaces (what bwrap --disable-userns does): less kernel surface.
    write_file('/proc/sys/user/max_user_namespaces', '0')
    # The IPC limits belong to U1's uid 0, which is also C's host uid: a read-only
    # /proc/sys (a mount C has no capability over) keeps C from raising them.
    check(libc.mount(b'/proc/sys', b'/proc/sys', None, MS_BIND | MS_REC, None), 'bind /proc/sys')
    flags = MS_REMOUNT | MS_BIND | MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC
    check(libc.mount(None, b'/proc/sys', None, flags, None), 'read-only /proc/sys')


def write_inputs(meta, blobs):
    inodes = LIMITS['tmp_inodes'] + len(meta['blobs'])
    if meta['tmp_bytes'] > TMP_BYTES or meta['blobs']:
        # Inputs do not eat the scratch budget: grow the tmpfs to fit them.
        opts = b'size=%d,nr_inodes=%d' % (max(meta['tmp_bytes'], TMP_BYTES), inodes)
        check(libc.mount(None, b'/tmp', None, MS_REMOUNT | MS_NOSUID | MS_NODEV, opts), 'resize /tmp')
    offset = 0
    for name, size in meta['blobs']:
        data = blobs[offset:offset + size]
        offset += size
        path = '/tmp/.stdin' if name == '\0stdin' else WORK + '/' + name
        if name != '\0stdin':
            os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, 'wb') as f:
            f.write(data)


def fetch_files(paths, cap):
    import base64
    out, total, dropped = {}, 0, False
    for p in paths:
        try:
            # Absolute paths (SandboxFusion allows them) are checked by the host to lie in /tmp, /dev/shm or /mnt.
            fd = os.open(p if p.startswith('/') else WORK + '/' + p, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
        except OSError:
            continue
        try:
            st = os.fstat(fd)
            if not (st.st_mode & 0o170000 == 0o100000):
                continue
            if total + st.st_size > cap:
                dropped = True
                continue
            data = read_all(fd, st.st_size)
            total += len(data)
            out[p] = base64.b64encode(data).decode()
        finally:
            os.close(fd)
    return out, dropped


def read_all(fd, limit=1 << 62):
    parts = []
    while limit > 0:
        chunk = os.read(fd, min(limit, 1 << 20))
        if not chunk:
            break
        parts.append(chunk)
        limit -= len(chunk)
    return b''.join(parts)


def send_report(rep_w, report):
    data = memoryview(json.dumps(report).encode())
    while data:
        data = data[os.write(rep_w, data):]


def run_init(job_r, out_w, err_w, rep_w):
    for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGQUIT, signal.SIGUSR1, signal.SIGUSR2, signal.SIGPIPE, signal.SIGALRM):
        signal.signal(sig, signal.SIG_IGN)
    try:
        prepare_namespace(TMP_BYTES, SHM_BYTES)
    except Exception as e:
        read_all(job_r)
        send_report(rep_w, {'error': 'sandbox setup failed: %s' % e})
        os._exit(0)
    go_r, go_w = os.pipe()
    ready_r, ready_w = os.pipe()
    child = os.fork()
    if child == 0:
        try:
            for fd in (go_w, job_r, rep_w, ready_r):
                os.close(fd)
            enter_program_userns()
            os.write(ready_w, b'u')
            os.close(ready_w)
            run_program(go_r, out_w, err_w, join_run_cgroup())
        except BaseException as e:
            os.write(err_w, ('sandbox: %s\n' % e).encode())
        os._exit(71)
    for fd in (go_r, out_w, err_w, ready_w):
        os.close(fd)
    try:
        if read_all(ready_r, 1) != b'u':
            raise OSError(errno.EIO, 'the program process did not set up its user namespace')
        os.close(ready_r)
        seal_namespace()
    except Exception as e:
        read_all(job_r)
        send_report(rep_w, {'error': 'sandbox setup failed: %s' % e})
        os._exit(0)
    job = read_all(job_r)
    os.close(job_r)
    if not job:
        os._exit(0)  # never used
    (meta_len,) = struct.unpack('>I', job[:4])
    meta = json.loads(job[4:4 + meta_len])
    report = {}
    try:
        write_inputs(meta, memoryview(job)[4 + meta_len:])
    except Exception as e:
        send_report(rep_w, {'error': 'sandbox setup failed: %s' % e})
        os._exit(0)
    del job
    os.write(rep_w, b'S')
    started = time.monotonic()
    go = {'stdin': any(name == '\0stdin' for name, _ in meta['blobs']), 'limits': meta['limits'], 'source': meta['source']}
    os.write(go_w, json.dumps(go).encode())
    os.close(go_w)
    while True:
        try:
            pid, status, usage = os.wait4(-1, 0)
        except ChildProcessError:
            status, usage = 0, None
            break
        if pid == child:
            break
    report['run_s'] = time.monotonic() - started
    report['cpu_s'] = (usage.ru_utime + usage.ru_stime) if usage else 0.0
    if os.WIFSIGNALED(status):
        report['signal'] = os.WTERMSIG(status)
    else:
        report['exit'] = os.WEXITSTATUS(status)
    # Whatever the program left running is stopped before its files are read.
    try:
        os.kill(-1, signal.SIGKILL)
    except OSError:
        pass
    report['files'], report['files_dropped'] = fetch_files(meta['fetch'], meta['max_fetch_bytes'])
    send_report(rep_w, report)
    os._exit(0)


# ---------------------------------------------------------- A: the run's supervisor

class Capped:
    def __init__(self, cap):
        self.cap, self.parts, self.kept, self.seen = cap, [], 0, 0

    def push(self, chunk):
        self.seen += len(chunk)
        room = self.cap - self.kept
        if room > 0:
            kept = chunk[:room]
            self.parts.append(kept)
            self.kept += len(kept)


def loopback_up():
    """A new net namespace's lo is down; bwrap brings it up, so do we (SIOCSIFFLAGS).

    Programs that serve and query themselves on 127.0.0.1 need it; A is uid 0 of
    the user namespace that owns this net namespace, so it has CAP_NET_ADMIN here."""
    SIOCGIFFLAGS, SIOCSIFFLAGS, IFF_UP = 0x8913, 0x8914, 0x1
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        req = struct.pack('16sh', b'lo', 0)
        flags = struct.unpack('16sh', fcntl.ioctl(s.fileno(), SIOCGIFFLAGS, req))[1]
        fcntl.ioctl(s.fileno(), SIOCSIFFLAGS, struct.pack('16sh', b'lo', flags | IFF_UP))


def prepare():
    """Namespaces and pid 1 for the next run, made before its request arrives."""
    out_r, out_w = os.pipe()
    err_r, err_w = os.pipe()
    rep_r, rep_w = os.pipe()
    job_r, job_w = os.pipe()
    uid, gid = os.getuid(), os.getgid()
    check(libc.unshare(CLONE_NEWUSER | CLONE_NEWNS | CLONE_NEWPID | CLONE_NEWNET | CLONE_NEWIPC | CLONE_NEWUTS | CLONE_NEWCGROUP), 'unshare')
    write_file('/proc/self/setgroups', 'deny')
    write_file('/proc/self/uid_map', '0 %d 1' % uid)
    write_file('/proc/self/gid_map', '0 %d 1' % gid)
    # SysV limits of the new IPC namespace: writable only by the uid that is 0 in its
    # owner (ipc_permissions), which A now is; C never is (it moves to U2, and
    # /proc/sys is read-only in the run's mount namespace).
    for path, value in LIMITS['ipc'].items():
        write_file('/proc/sys/' + path, value)
    loopback_up()
    init = os.fork()
    if init == 0:
        try:
            for fd in (0, 1, out_r, err_r, rep_r, job_w):
                os.close(fd)
            run_init(job_r, out_w, err_w, rep_w)
        finally:
            os._exit(72)
    for fd in (out_w, err_w, rep_w, job_r):
        os.close(fd)
    return init, out_r, err_r, rep_r, job_w


def supervise(turn_r, took_w):
    try:
        init, out_r, err_r, rep_r, job_w = prepare()
    except Exception as e:
        init, failure = None, 'sandbox setup failed: %s' % e
    # Prepared ahead of its turn: the request channel is only ours once Z says so
    # (the previous supervisor has read its request and Z has reported its exit).
    if os.read(turn_r, 1) != b't':
        os._exit(98)  # the zygote is stopping
    os.close(turn_r)
    try:
        (n,) = struct.unpack('>Q', read_exact(0, 8))
        payload = read_exact(0, n)
    except EOFError:
        os._exit(99)  # the host closed the channel: stop
    os.close(0)
    os.write(took_w, b'j')  # Z may now prepare the next run's sandbox beside this one
    os.close(took_w)
    received = time.monotonic()
    (meta_len,) = struct.unpack('>I', payload[:4])
    meta = json.loads(payload[4:4 + meta_len])
    if init is None:
        reply({'report': {'error': failure}, 'started': False, 'timed_out': None, 'wall_s': 0.0}, Capped(0), Capped(0))
        os._exit(0)
    # B reads the job while we write it; a pipe holds only 64 KiB.
    view = memoryview(payload)
    while view:
        view = view[os.write(job_w, view[:1 << 20]):]
    os.close(job_w)
    del payload, view
    out, err = Capped(meta['max_output']), Capped(meta['max_output'])
    rep = Capped(meta['max_fetch_bytes'] * 2 + (1 << 16))
    sinks = {out_r: out, err_r: err, rep_r: rep}
    deadline = received + meta['setup_timeout_ms'] / 1000
    timed_out = None
    run_started = None
    poller = select.poll()
    for fd in sinks:
        poller.register(fd, select.POLLIN)
    while sinks:
        now = time.monotonic()
        if timed_out is None and now >= deadline:
            timed_out = 'run' if run_started is not None else 'setup'
            os.kill(init, signal.SIGKILL)
        wait_ms = None if timed_out is not None else max(0, int((deadline - now) * 1000) + 1)
        for fd, _ in poller.poll(wait_ms):
            chunk = os.read(fd, 1 << 16)
            if not chunk:
                poller.unregister(fd)
                os.close(fd)
                del sinks[fd]
                continue
            if fd == rep_r and run_started is None and chunk[:1] == b'S':
                run_started = time.monotonic()
                deadline = run_started + meta['run_timeout_ms'] / 1000
                chunk = chunk[1:]
            sinks[fd].push(chunk)
    _, status = os.waitpid(init, 0)
    try:
        report = json.loads(b''.join(rep.parts) or b'{}')
    except ValueError:
        report = {'error': 'unreadable supervisor report'}
    reply({
        'timed_out': timed_out,
        'started': run_started is not None,
        'wall_s': time.monotonic() - (run_started or received),
        'init_status': os.waitstatus_to_exitcode(status),
        'report': report,
    }, out, err)
    os._exit(0)


def reply(head, out, err):
    head.setdefault('init_status', 0)
    head['run_cgroup'] = None if RUN_CGROUPS is None else RUN_CGROUP
    head.update(stdout_seen=out.seen, stderr_seen=err.seen, stdout_bytes=out.kept, stderr_bytes=err.kept)
    h = json.dumps(head).encode()
    frame(b'R', struct.pack('>I', len(h)) + h + b''.join(out.parts) + b''.join(err.parts))


# ------------------------------------------------------------------- Z: the zygote

def fork_supervisor(run_cgroup):
    """Forks the next run's supervisor; it prepares its sandbox, then waits for its turn."""
    global RUN_CGROUP
    turn_r, turn_w = os.pipe()
    took_r, took_w = os.pipe()
    pid = os.fork()
    if pid == 0:
        RUN_CGROUP = run_cgroup
        try:
            os.close(turn_w)
            os.close(took_r)
            supervise(turn_r, took_w)
        except BaseException:
            traceback.print_exc()
        finally:
            os._exit(70)
    os.close(turn_r)
    os.close(took_w)
    return pid, turn_w, took_r


def serve():
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    gc.collect()
    gc.freeze()  # keep the warmed heap shared copy-on-write across forks
    frame(b'H', json.dumps({'pid': os.getpid(), 'python': sys.version.split()[0]}).encode())
    # The next run's namespaces are built while the current run executes, so a
    # request never waits for a sandbox to be set up (two supervisors at most:
    # one running, one ready). Only Z writes X frames, and only between runs'
    # R frames: a supervisor gets its turn after its predecessor's X is written.
    # Requests taken so far; run n's program uses run cgroup n % 2, as the host counts
    # (process.ts `sent`). A supervisor that dies before taking its request is
    # replaced with the same n.
    taken = 0
    upcoming = fork_supervisor(taken % 2)
    while True:
        pid, turn_w, took_r = upcoming
        upcoming = None
        os.write(turn_w, b't')
        os.close(turn_w)
        took = os.read(took_r, 1) == b'j'
        os.close(took_r)
        if took:
            taken += 1
            upcoming = fork_supervisor(taken % 2)
        _, status = os.waitpid(pid, 0)
        code = os.waitstatus_to_exitcode(status)
        if code == 99:
            os._exit(0)
        frame(b'X', json.dumps({'status': code}).encode())
        if upcoming is None:
            upcoming = fork_supervisor(taken % 2)


if __name__ == '__main__':
    serve()
