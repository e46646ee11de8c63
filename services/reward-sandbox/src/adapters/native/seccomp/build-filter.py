# Compiles the sandbox's deny list (deny-list.ts, sent as JSON on stdin) into a
# classic-BPF seccomp program with the system's libseccomp, through ctypes (the
# standard library has no seccomp module and the -dev package is not needed).
# Prints one JSON object: the program (base64), libseccomp's version, and the
# names it could not place. Run once at service start-up; every sandbox then
# loads the same bytes (bwrap --seccomp, the zygote's prctl).
#
# Before answering it loads the program into a forked child and checks that a
# denied call gets its errno and an allowed one still works, so a kernel without
# seccomp filters, or a library that built something else, fails here and not
# in the first hostile run.
import base64
import ctypes
import errno
import json
import os
import sys
import tempfile

SCMP_ACT_ALLOW = 0x7FFF0000
SCMP_ACT_KILL_PROCESS = 0x80000000
SCMP_FLTATR_ACT_BADARCH = 2
SCMP_CMP_MASKED_EQ = 7
PR_SET_NO_NEW_PRIVS, PR_SET_SECCOMP, SECCOMP_MODE_FILTER = 38, 22, 2
# libseccomp's answer for a name it does not know; other negative numbers are
# calls it knows that this architecture lacks (nothing to deny).
NR_SCMP_ERROR = -1
KEYCTL_GET_KEYRING_ID, KEY_SPEC_USER_KEYRING = 0, -4


class ArgCmp(ctypes.Structure):
    _fields_ = [('arg', ctypes.c_uint), ('op', ctypes.c_int), ('datum_a', ctypes.c_uint64), ('datum_b', ctypes.c_uint64)]


class Version(ctypes.Structure):
    _fields_ = [('major', ctypes.c_uint), ('minor', ctypes.c_uint), ('micro', ctypes.c_uint)]


class SockFprog(ctypes.Structure):
    _fields_ = [('len', ctypes.c_ushort), ('filter', ctypes.c_void_p)]


def fail(code, message):
    json.dump({'error': {'code': code, 'message': message}}, sys.stdout)
    sys.exit(0)


def open_library(path):
    try:
        lib = ctypes.CDLL(path, use_errno=True)
    except OSError as e:
        fail('library_missing', str(e))
    lib.seccomp_init.restype = ctypes.c_void_p
    lib.seccomp_init.argtypes = [ctypes.c_uint32]
    lib.seccomp_release.argtypes = [ctypes.c_void_p]
    lib.seccomp_attr_set.argtypes = [ctypes.c_void_p, ctypes.c_int, ctypes.c_uint32]
    lib.seccomp_syscall_resolve_name.argtypes = [ctypes.c_char_p]
    lib.seccomp_rule_add_array.argtypes = [ctypes.c_void_p, ctypes.c_uint32, ctypes.c_int, ctypes.c_uint, ctypes.POINTER(ArgCmp)]
    lib.seccomp_export_bpf.argtypes = [ctypes.c_void_p, ctypes.c_int]
    lib.seccomp_version.restype = ctypes.POINTER(Version)
    return lib


def build(lib, rules):
    """Returns (bpf bytes, denied, absent, unknown)."""
    ctx = lib.seccomp_init(SCMP_ACT_ALLOW)
    if not ctx:
        fail('build_failed', 'seccomp_init failed')
    denied, absent, unknown = [], [], []
    try:
        # A call through another ABI (int 0x80, x32) would bypass rules written for
        # this one: kill the whole process rather than the default single thread.
        rc = lib.seccomp_attr_set(ctx, SCMP_FLTATR_ACT_BADARCH, SCMP_ACT_KILL_PROCESS)
        if rc != 0:
            fail('build_failed', 'seccomp_attr_set(ACT_BADARCH): %s' % os.strerror(-rc))
        for rule in rules:
            name = rule['syscall']
            nr = lib.seccomp_syscall_resolve_name(name.encode())
            if nr == NR_SCMP_ERROR:
                unknown.append(name)
                continue
            if nr < 0:
                absent.append(name)
                continue
            action = 0x00050000 | (getattr(errno, rule['errno']) & 0xFFFF)  # SCMP_ACT_ERRNO
            conditions = [[ArgCmp(0, SCMP_CMP_MASKED_EQ, bit, bit)] for bit in rule.get('arg0_any', [])] or [[]]
            for cond in conditions:
                array = (ArgCmp * len(cond))(*cond) if cond else None
                rc = lib.seccomp_rule_add_array(ctx, action, nr, len(cond), array)
                if rc != 0:
                    fail('build_failed', 'seccomp_rule_add(%s): %s' % (name, os.strerror(-rc)))
            denied.append(name)
        with tempfile.TemporaryFile() as f:
            rc = lib.seccomp_export_bpf(ctx, f.fileno())
            if rc != 0:
                fail('build_failed', 'seccomp_export_bpf: %s' % os.strerror(-rc))
            f.seek(0)
            bpf = f.read()
    finally:
        lib.seccomp_release(ctx)
    return bpf, denied, absent, unknown


def self_test(bpf, keyctl_nr, expected_errno):
    """Loads the program into a child; '' when it behaves, else what went wrong."""
    libc = ctypes.CDLL(None, use_errno=True)
    libc.syscall.restype = ctypes.c_long
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        try:
            os.close(r)
            buf = ctypes.create_string_buffer(bpf, len(bpf))
            prog = SockFprog(len(bpf) // 8, ctypes.cast(buf, ctypes.c_void_p))
            if libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 or libc.prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, ctypes.byref(prog)) != 0:
                msg = 'the kernel refused the filter: %s' % os.strerror(ctypes.get_errno())
            else:
                # keyctl(GET_KEYRING_ID) is harmless if the filter let it through.
                ctypes.set_errno(0)
                rc = libc.syscall(keyctl_nr, KEYCTL_GET_KEYRING_ID, KEY_SPEC_USER_KEYRING, 0)
                got = ctypes.get_errno() if rc < 0 else 0
                if got != expected_errno:
                    msg = 'keyctl under the filter gave errno %d, expected %d' % (got, expected_errno)
                else:
                    msg = '' if libc.getppid() == os.getppid() > 0 else 'an allowed call failed under the filter'
            os.write(w, msg.encode())
        finally:
            os._exit(0)
    os.close(w)
    with os.fdopen(r, 'rb') as f:
        msg = f.read().decode()
    _, status = os.waitpid(pid, 0)
    if status != 0 and not msg:
        msg = 'the self-test process died (status %d)' % status
    return msg


def main():
    request = json.load(sys.stdin)
    lib = open_library(request['library'])
    bpf, denied, absent, unknown = build(lib, request['rules'])
    if len(bpf) == 0 or len(bpf) % 8 != 0:
        fail('build_failed', 'libseccomp exported %d bytes, not a whole number of BPF instructions' % len(bpf))
    keyctl = next((r for r in request['rules'] if r['syscall'] == 'keyctl' and 'keyctl' in denied and not r.get('arg0_any')), None)
    problem = self_test(bpf, lib.seccomp_syscall_resolve_name(b'keyctl'), getattr(errno, keyctl['errno']) if keyctl else 0)
    if problem:
        fail('self_test_failed', problem)
    v = lib.seccomp_version().contents
    json.dump({
        'bpf': base64.b64encode(bpf).decode(),
        'libseccomp': '%d.%d.%d' % (v.major, v.minor, v.micro),
        'denied': denied,
        'absent': absent,
        'unknown': unknown,
    }, sys.stdout)


if __name__ == '__main__':
    main()
