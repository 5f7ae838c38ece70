// A small C program that tries system calls the sandbox's seccomp filter refuses, each in a child
// process of its own, and prints one line per call: `name: ok`, `name: EPERM` (or another errno's
// name), or `name: killed by signal N`. Compiled with the machine's C compiler in the tests' setup;
// the tests run it inside the sandbox and outside (where the same calls must work: the judge).
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

const SOURCE = String.raw`
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/personality.h>
#include <sys/ptrace.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>
#include <linux/perf_event.h>

static const char *arg1;

static int res(long r) { return r < 0 ? errno : 0; }

static int child_exits(long pid) {
  if (pid < 0) return errno;
  if (pid == 0) _exit(0);
  int st; waitpid((pid_t)pid, &st, 0);
  return 0;
}

static int probe(const char *name) {
  if (!strcmp(name, "unix_socket")) {
    int fd = socket(AF_UNIX, SOCK_STREAM, 0);
    if (fd < 0) return errno;
    struct sockaddr_un a = { .sun_family = AF_UNIX };
    strncpy(a.sun_path, arg1, sizeof a.sun_path - 1);
    if (connect(fd, (struct sockaddr *)&a, sizeof a) < 0) return errno;
    if (write(fd, "contact\n", 8) < 0) return errno;
    return 0;
  }
  if (!strcmp(name, "socketpair")) { int sv[2]; return res(socketpair(AF_UNIX, SOCK_STREAM, 0, sv)); }
  if (!strcmp(name, "seqpacket_pair")) { int sv[2]; return res(socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv)); }
  if (!strcmp(name, "raw_pair")) { int sv[2]; return res(socketpair(AF_UNIX, SOCK_RAW, 0, sv)); }
  /* A datagram pair sends to a host socket by path or abstract name: sendto, then connect + send. */
  if (!strcmp(name, "dgram_path") || !strcmp(name, "dgram_abstract")) {
    int sv[2];
    if (socketpair(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0, sv) < 0) return errno;
    struct sockaddr_un a = { .sun_family = AF_UNIX };
    socklen_t len = sizeof a;
    if (name[6] == 'p') strncpy(a.sun_path, arg1, sizeof a.sun_path - 1);
    else { size_t n = strlen(arg1); memcpy(a.sun_path + 1, arg1, n); len = offsetof(struct sockaddr_un, sun_path) + 1 + n; }
    if (sendto(sv[0], "contact\n", 8, 0, (struct sockaddr *)&a, len) < 0) return errno;
    if (connect(sv[0], (struct sockaddr *)&a, len) < 0) return errno;
    if (send(sv[0], "contact\n", 8, 0) < 0) return errno;
    return 0;
  }
  if (!strcmp(name, "inet_socket")) return res(socket(AF_INET, SOCK_STREAM, 0));
  if (!strcmp(name, "inet6_socket")) return res(socket(AF_INET6, SOCK_DGRAM, 0));
  if (!strcmp(name, "netlink_socket")) return res(socket(AF_NETLINK, SOCK_RAW, 0));
  /* AF_VSOCK (40): no network namespace confines it. AF_ALG (38): kernel crypto. */
  if (!strcmp(name, "vsock_socket")) return res(socket(40, SOCK_STREAM, 0));
  if (!strcmp(name, "alg_socket")) return res(socket(38, SOCK_SEQPACKET, 0));
  if (!strcmp(name, "io_uring_setup")) { char p[120]; memset(p, 0, sizeof p); return res(syscall(425, 4, p)); }
  if (!strcmp(name, "io_uring_enter")) { long r = syscall(426, -1, 0, 0, 0, NULL, 0); return r < 0 && errno != EBADF && errno != EINVAL ? errno : 0; }
  if (!strcmp(name, "io_uring_register")) { long r = syscall(427, -1, 0, NULL, 0); return r < 0 && errno != EBADF && errno != EINVAL ? errno : 0; }
  if (!strcmp(name, "keyctl")) return res(syscall(SYS_keyctl, 0, -4, 1));
  if (!strcmp(name, "add_key")) return res(syscall(SYS_add_key, "user", "agent-bash-probe", "x", 1, -2));
  if (!strcmp(name, "request_key")) return res(syscall(SYS_request_key, "user", "agent-bash-probe-absent", NULL, 0)) == ENOKEY ? 0 : errno;
  if (!strcmp(name, "userfaultfd")) return res(syscall(SYS_userfaultfd, O_CLOEXEC | 1));
  if (!strcmp(name, "perf_event_open")) {
    struct perf_event_attr a; memset(&a, 0, sizeof a);
    a.type = PERF_TYPE_SOFTWARE; a.size = sizeof a; a.config = PERF_COUNT_SW_TASK_CLOCK; a.exclude_kernel = 1; a.exclude_hv = 1;
    return res(syscall(SYS_perf_event_open, &a, 0, -1, -1, 0));
  }
  if (!strcmp(name, "ptrace")) {
    pid_t c = fork();
    if (c == 0) { pause(); _exit(0); }
    long r = ptrace(PTRACE_ATTACH, c, NULL, NULL);
    int e = r < 0 ? errno : 0;
    kill(c, SIGKILL); waitpid(c, NULL, 0);
    return e;
  }
  if (!strcmp(name, "process_vm_readv")) {
    char src[8] = "abc", dst[8];
    struct iovec l = { dst, 4 }, r = { src, 4 };
    return res(syscall(SYS_process_vm_readv, getpid(), &l, 1, &r, 1, 0));
  }
  if (!strcmp(name, "unshare_user")) {
    pid_t c = fork();
    if (c == 0) _exit(unshare(CLONE_NEWUSER) < 0 ? errno : 0);
    int st; waitpid(c, &st, 0); return WEXITSTATUS(st);
  }
  if (!strcmp(name, "clone_newuser")) return child_exits(syscall(SYS_clone, CLONE_NEWUSER | SIGCHLD, 0, 0, 0, 0));
  if (!strcmp(name, "clone_plain")) return child_exits(syscall(SYS_clone, SIGCHLD, 0, 0, 0, 0));
  if (!strcmp(name, "clone3")) {
    uint64_t args[11]; memset(args, 0, sizeof args); args[4] = SIGCHLD;
    return child_exits(syscall(435, args, 88));
  }
  if (!strcmp(name, "personality")) { long r = personality(PER_LINUX32); if (r < 0) return errno; personality(PER_LINUX); return 0; }
  if (!strcmp(name, "personality_query")) return personality(0xffffffff) < 0 ? errno : 0;
  if (!strcmp(name, "tiocsti")) {
    if (setsid() < 0) return errno;
    int m = posix_openpt(O_RDWR);
    if (m < 0 || grantpt(m) < 0 || unlockpt(m) < 0) return errno;
    int s = open(ptsname(m), O_RDWR);
    if (s < 0) return errno;
    char c = 'x';
    return res(ioctl(s, TIOCSTI, &c));
  }
  if (!strcmp(name, "i386")) { long r; __asm__ volatile("int $0x80" : "=a"(r) : "a"(20L) : "memory"); return r < 0 ? (int)-r : 0; }
  if (!strcmp(name, "x32")) { long r = syscall(0x40000000 | 39); return r < 0 && errno != ENOSYS ? errno : 0; }
  if (!strcmp(name, "mount")) return res(mount("none", arg1, "tmpfs", 0, NULL));
  if (!strcmp(name, "umount2")) return res(umount2("/agent-bash-no-such-mount", 0)) == ENOENT ? 0 : errno;
  if (!strcmp(name, "pivot_root")) { long r = syscall(SYS_pivot_root, "/agent-bash-no-such", "/agent-bash-no-such"); return r < 0 && errno == ENOENT ? 0 : errno; }
  if (!strcmp(name, "fsopen")) return res(syscall(430, "tmpfs", 0));
  if (!strcmp(name, "open_tree")) return res(syscall(428, AT_FDCWD, "/", 0));
  if (!strcmp(name, "unshare_ns")) return res(unshare(CLONE_NEWNS));
  if (!strcmp(name, "setns")) { int fd = open("/proc/self/ns/uts", O_RDONLY); if (fd < 0) return errno; return res(setns(fd, CLONE_NEWUTS)); }
  if (!strcmp(name, "sethostname")) return res(sethostname("probe", 5));
  return -1;
}

int main(int argc, char **argv) {
  setvbuf(stdout, NULL, _IONBF, 0);
  for (int i = 1; i < argc; i++) {
    char *name = argv[i], *colon = strchr(name, '=');
    arg1 = "";
    if (colon) { *colon = 0; arg1 = colon + 1; }
    pid_t c = fork();
    if (c == 0) {
      int e = probe(name);
      if (e == 0) printf("%s: ok\n", name);
      else if (e < 0) printf("%s: unknown probe\n", name);
      else printf("%s: %s\n", name, strerrorname_np(e) ? strerrorname_np(e) : "?");
      _exit(0);
    }
    int st; waitpid(c, &st, 0);
    if (WIFSIGNALED(st)) printf("%s: killed by signal %d\n", name, WTERMSIG(st));
  }
  return 0;
}
`;

/** Compiles the probe into a new temporary folder; undefined where no C compiler works. */
export function buildSyscallProbe(): string | undefined {
  if (process.arch !== 'x64') return undefined;
  const dir = mkdtempSync(path.join(os.tmpdir(), 'agent-bash-probe-'));
  const src = path.join(dir, 'probe.c');
  const bin = path.join(dir, 'probe');
  writeFileSync(src, SOURCE);
  for (const cc of ['gcc', 'cc', 'clang']) {
    const r = spawnSync(cc, ['-O0', '-o', bin, src], { encoding: 'utf8' });
    if (r.status === 0) return bin;
  }
  return undefined;
}

/** The lines of a probe run as `{ name: outcome }`. */
export function probeOutcomes(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const line of text.split('\n')) {
    const m = /^([a-z0-9_]+): (.+)$/.exec(line.trim());
    if (m) out[m[1]] = m[2];
  }
  return out;
}
