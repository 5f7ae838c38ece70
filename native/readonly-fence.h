// The read-only fence: one Landlock domain that makes a process and everything it starts a reader.
// Shared by the launcher's `readonly` stage (sandbox-launch.c, one-shot runs) and by the bash builtin
// `agent_bash_readonly` (readonly-builtin.c: a persistent shell's subshell fences itself without an
// exec). src/exec/sandbox/readOnly/readOnlyFence.ts builds the specs; docs/SANDBOX.md says why.
//
// Specs, one word each:
//   T:DIR   the call's private scratch folder: made here (0700) when absent; everything but running
//           files is allowed beneath it.
//   R:PATH  read beneath (files and listings).
//   D:PATH  read and write existing files beneath, no new entries (/dev, /proc: the terminal,
//           /dev/null, /proc/self/fd/N of the pipes the command was handed).
//   X:PATH  run (and read) this file, or files beneath this folder. For a file, its ELF interpreter
//           and its `#!` interpreter (through `env NAME` on $PATH too) are added the same way.
// Every descriptor above stderr is closed once the fence is set (ro_close_others).
// Everything the kernel's ABI can refuse is refused elsewhere: every change to the filesystem, every
// read and exec outside the specs, TCP bind/connect (ABI 4), abstract unix sockets and signals to
// processes outside the fence (ABI 6). A kernel below ABI 4 is refused (the network could not be
// held); the caller learns it from `abi` before it relies on the fence.
#ifndef AGENT_BASH_READONLY_FENCE_H
#define AGENT_BASH_READONLY_FENCE_H

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef SYS_landlock_create_ruleset
#define SYS_landlock_create_ruleset 444
#endif
#ifndef SYS_landlock_add_rule
#define SYS_landlock_add_rule 445
#endif
#ifndef SYS_landlock_restrict_self
#define SYS_landlock_restrict_self 446
#endif
#ifndef PR_SET_NO_NEW_PRIVS
#define PR_SET_NO_NEW_PRIVS 38
#endif

#define RO_EXECUTE (1ULL << 0)
#define RO_WRITE_FILE (1ULL << 1)
#define RO_READ_FILE (1ULL << 2)
#define RO_READ_DIR (1ULL << 3)
#define RO_TRUNCATE (1ULL << 14)
#define RO_IOCTL_DEV (1ULL << 15)
/** The first ABI the fence accepts: TCP connect and bind can be refused (Linux 6.7). */
#define RO_MIN_ABI 4

struct ro_ruleset_attr {
  uint64_t handled_access_fs;
  uint64_t handled_access_net;
  uint64_t scoped;
};
struct ro_path_beneath {
  uint64_t allowed_access;
  int32_t parent_fd;
} __attribute__((packed));

static int ro_abi(void) {
  long abi = syscall(SYS_landlock_create_ruleset, NULL, 0, 1U);
  return abi < 0 ? 0 : (int)abi;
}

/** Every filesystem right the kernel's ABI knows. */
static uint64_t ro_fs_rights(int abi) {
  uint64_t all = (1ULL << 13) - 1;
  if (abi >= 2) all |= 1ULL << 13; /* REFER */
  if (abi >= 3) all |= RO_TRUNCATE;
  if (abi >= 5) all |= RO_IOCTL_DEV;
  return all;
}

/** Rights a rule on a file (not a folder) may carry. */
static uint64_t ro_file_rights(int abi) {
  return ro_fs_rights(abi) & (RO_EXECUTE | RO_WRITE_FILE | RO_READ_FILE | RO_TRUNCATE | RO_IOCTL_DEV);
}

struct ro_fence {
  int abi;
  long rs;
  char *err;
  size_t errlen;
  int depth;
};

static int ro_error(struct ro_fence *f, const char *what, const char *path) {
  snprintf(f->err, f->errlen, "%s %s: %s", what, path, strerror(errno));
  return -1;
}

/** Adds `access` beneath (or on) `path`; a path that does not exist grants nothing. */
static int ro_grant(struct ro_fence *f, const char *path, uint64_t access) {
  int fd = open(path, O_PATH | O_CLOEXEC);
  if (fd < 0) return errno == ENOENT || errno == ENOTDIR ? 0 : ro_error(f, "cannot open", path);
  struct stat st;
  if (fstat(fd, &st) != 0) {
    close(fd);
    return ro_error(f, "cannot stat", path);
  }
  access &= ro_fs_rights(f->abi);
  if (!S_ISDIR(st.st_mode)) access &= ro_file_rights(f->abi);
  struct ro_path_beneath rule = {access, fd};
  int rc = access == 0 ? 0 : (int)syscall(SYS_landlock_add_rule, f->rs, 1 /* PATH_BENEATH */, &rule, 0);
  close(fd);
  return rc == 0 ? 0 : ro_error(f, "landlock_add_rule", path);
}

static int ro_grant_exec(struct ro_fence *f, const char *path);

/** The absolute path of NAME on $PATH, in `out` (0), or -1. */
static int ro_on_path(const char *name, char *out, size_t len) {
  const char *p = getenv("PATH");
  if (p == NULL || strchr(name, '/') != NULL) return -1;
  while (*p) {
    const char *end = strchr(p, ':');
    size_t n = end ? (size_t)(end - p) : strlen(p);
    if (n > 0 && p[0] == '/' && n + strlen(name) + 2 <= len) {
      memcpy(out, p, n);
      out[n] = '/';
      strcpy(out + n + 1, name);
      if (access(out, X_OK) == 0) return 0;
    }
    if (!end) break;
    p = end + 1;
  }
  return -1;
}

/** The interpreter a file names: its ELF PT_INTERP, or its `#!` line (through `env NAME`). */
static int ro_grant_interpreters(struct ro_fence *f, const char *path) {
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return 0;
  unsigned char head[512];
  ssize_t n = pread(fd, head, sizeof head - 1, 0);
  int rc = 0;
  if (n >= 4 && memcmp(head, ELFMAG, SELFMAG) == 0 && n >= (ssize_t)sizeof(Elf64_Ehdr) && head[EI_CLASS] == ELFCLASS64) {
    Elf64_Ehdr eh;
    memcpy(&eh, head, sizeof eh);
    for (int i = 0; i < eh.e_phnum && rc == 0; i++) {
      Elf64_Phdr ph;
      if (pread(fd, &ph, sizeof ph, (off_t)(eh.e_phoff + (uint64_t)i * eh.e_phentsize)) != (ssize_t)sizeof ph) break;
      if (ph.p_type != PT_INTERP || ph.p_filesz == 0 || ph.p_filesz >= 4096) continue;
      char interp[4096];
      if (pread(fd, interp, ph.p_filesz, (off_t)ph.p_offset) != (ssize_t)ph.p_filesz) break;
      interp[ph.p_filesz] = '\0';
      rc = ro_grant_exec(f, interp);
    }
  } else if (n >= 2 && head[0] == '#' && head[1] == '!') {
    head[n] = '\0';
    char *line = (char *)head + 2;
    char *nl = strchr(line, '\n');
    if (nl) *nl = '\0';
    char *save = NULL;
    char *interp = strtok_r(line, " \t", &save);
    if (interp) {
      rc = ro_grant_exec(f, interp);
      const char *base = strrchr(interp, '/');
      if (rc == 0 && strcmp(base ? base + 1 : interp, "env") == 0) {
        for (char *w = strtok_r(NULL, " \t", &save); w; w = strtok_r(NULL, " \t", &save)) {
          if (w[0] == '-' || strchr(w, '=') != NULL) continue;
          char found[4096];
          if (w[0] == '/') rc = ro_grant_exec(f, w);
          else if (ro_on_path(w, found, sizeof found) == 0) rc = ro_grant_exec(f, found);
          break;
        }
      }
    }
  }
  close(fd);
  return rc;
}

static int ro_grant_exec(struct ro_fence *f, const char *path) {
  if (++f->depth > 4) {
    f->depth--;
    return 0;
  }
  int rc = ro_grant(f, path, RO_EXECUTE | RO_READ_FILE | RO_READ_DIR);
  struct stat st;
  if (rc == 0 && stat(path, &st) == 0 && S_ISREG(st.st_mode)) rc = ro_grant_interpreters(f, path);
  f->depth--;
  return rc;
}

#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/fs.h>
#include <linux/seccomp.h>

#if defined(__x86_64__)
#define RO_AUDIT_ARCH AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define RO_AUDIT_ARCH AUDIT_ARCH_AARCH64
#endif

/**
 * What Landlock does not cover: changes to a file's metadata (mode, owner, times, extended
 * attributes, inode flags). A reader has no business with them; a misread line (or code a reader was
 * tricked into loading) could make the workspace unreadable with them. Refused with EPERM; a system
 * call of another ABI (i386, x32) ends the process.
 */
static int ro_seccomp(char *err, size_t errlen) {
#ifdef RO_AUDIT_ARCH
  static const long denied[] = {
#ifdef __NR_chmod
      __NR_chmod,
#endif
#ifdef __NR_chown
      __NR_chown,
#endif
#ifdef __NR_lchown
      __NR_lchown,
#endif
#ifdef __NR_utime
      __NR_utime,
#endif
#ifdef __NR_utimes
      __NR_utimes,
#endif
#ifdef __NR_futimesat
      __NR_futimesat,
#endif
      __NR_fchmod, __NR_fchmodat, 452 /* fchmodat2 */, __NR_fchown, __NR_fchownat, __NR_utimensat,
      __NR_setxattr, __NR_lsetxattr, __NR_fsetxattr, __NR_removexattr, __NR_lremovexattr, __NR_fremovexattr,
      463 /* setxattrat */, 466 /* removexattrat */,
  };
  enum { N = sizeof denied / sizeof denied[0] };
  struct sock_filter f[8 + 2 * N + 8];
  int n = 0;
  f[n++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch));
  f[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, RO_AUDIT_ARCH, 1, 0);
  f[n++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS);
  f[n++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr));
#if defined(__x86_64__)
  f[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, 0x40000000, 0, 1);
  f[n++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS);
#endif
  for (int i = 0; i < (int)N; i++) {
    f[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (unsigned)denied[i], 0, 1);
    f[n++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | (EPERM & SECCOMP_RET_DATA));
  }
  // ioctl(fd, FS_IOC_SETFLAGS / FS_IOC32_SETFLAGS / FS_IOC_FSSETXATTR, …): chattr.
  f[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_ioctl, 0, 5);
  f[n++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, args[1]));
  f[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (unsigned)FS_IOC_SETFLAGS, 2, 0);
  f[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (unsigned)FS_IOC32_SETFLAGS, 1, 0);
  f[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (unsigned)FS_IOC_FSSETXATTR, 0, 1);
  f[n++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | (EPERM & SECCOMP_RET_DATA));
  f[n++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
  struct sock_fprog prog = {(unsigned short)n, f};
  if (prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog, 0, 0) != 0) {
    snprintf(err, errlen, "the metadata filter could not be set: %s", strerror(errno));
    return -1;
  }
  return 0;
#else
  snprintf(err, errlen, "the read-only fence knows x86_64 and aarch64 only");
  return -1;
#endif
}

#ifndef SYS_close_range
#define SYS_close_range 436
#endif

/**
 * Closes every descriptor above stderr. A persistent shell's fenced subshell inherits the shell's own
 * (its saved script pipe, its status pipe, its reset's scratch file: bash keeps them above 9): a read
 * must not reach them, nor must anything it leaves running. Linux 5.9's close_range, else one by one.
 */
static void ro_close_others(void) {
  if (syscall(SYS_close_range, 3U, ~0U, 0U) == 0) return;
  long max = sysconf(_SC_OPEN_MAX);
  for (long fd = 3; fd < (max > 0 && max < 65536 ? max : 65536); fd++) (void)close((int)fd);
}

/** Fences the calling process (and what it starts) by the specs; 0, or -1 with `err` set. */
static int ro_apply(int n, char *const *specs, char *err, size_t errlen) {
  struct ro_fence f = {ro_abi(), -1, err, errlen, 0};
  if (f.abi < RO_MIN_ABI) {
    snprintf(err, errlen, "the kernel's Landlock ABI is %d (the read-only fence needs %d: Linux 6.7)", f.abi, RO_MIN_ABI);
    return -1;
  }
  struct ro_ruleset_attr attr = {ro_fs_rights(f.abi), 3 /* BIND_TCP | CONNECT_TCP */, f.abi >= 6 ? 3 /* ABSTRACT_UNIX_SOCKET | SIGNAL */ : 0};
  size_t size = f.abi >= 6 ? sizeof attr : offsetof(struct ro_ruleset_attr, scoped);
  f.rs = syscall(SYS_landlock_create_ruleset, &attr, size, 0);
  if (f.rs < 0) return ro_error(&f, "landlock_create_ruleset", "(read-only fence)");
  int rc = 0;
  for (int i = 0; i < n && rc == 0; i++) {
    const char *s = specs[i];
    if (strlen(s) < 3 || s[1] != ':' || s[2] != '/') {
      snprintf(err, errlen, "bad fence spec '%s'", s);
      rc = -1;
      break;
    }
    const char *path = s + 2;
    switch (s[0]) {
      case 'T':
        if (mkdir(path, 0700) != 0 && errno != EEXIST) rc = ro_error(&f, "cannot make", path);
        else rc = ro_grant(&f, path, ro_fs_rights(f.abi) & ~RO_EXECUTE);
        break;
      case 'R': rc = ro_grant(&f, path, RO_READ_FILE | RO_READ_DIR); break;
      case 'D': rc = ro_grant(&f, path, RO_READ_FILE | RO_READ_DIR | RO_WRITE_FILE | RO_TRUNCATE | RO_IOCTL_DEV); break;
      case 'X': rc = ro_grant_exec(&f, path); break;
      default:
        snprintf(err, errlen, "bad fence spec '%s'", s);
        rc = -1;
    }
  }
  if (rc == 0 && prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) rc = ro_error(&f, "no_new_privs", "(read-only fence)");
  if (rc == 0 && syscall(SYS_landlock_restrict_self, f.rs, 0) != 0) rc = ro_error(&f, "landlock_restrict_self", "(read-only fence)");
  close((int)f.rs);
  if (rc == 0) rc = ro_seccomp(err, errlen);
  if (rc == 0) ro_close_others();
  return rc;
}

#endif
