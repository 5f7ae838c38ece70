// agent-bash-launch: the stages around bubblewrap as one small program, so that a sandboxed command
// costs two short execs instead of a shell, a bash, nsenter and perl (src/exec/sandbox/nativeLaunch.ts
// builds its argv; launcher.ts and landlock.ts hold the same stages as scripts, the route used where
// this program could not be built). Same steps, same messages, same exit codes as those scripts.
//
//   agent-bash-launch abi
//       prints the kernel's Landlock ABI (0 when it has none).
//   agent-bash-launch outer KEEP FILTER_FILE FILTER_FD NET NCG CGROUP... -- BWRAP ARGS...
//       on the host: enters the command's cgroups (writes its pid to each `cgroup.procs`), closes
//       every descriptor but stdio and KEEP (space-separated), opens the seccomp filter at FILTER_FD,
//       joins the network (NET: `enter:--target PID [--user --preserve-credentials] --net`,
//       `wait:STATE_FILE` or `none`, which adds `--unshare-net`), then runs bubblewrap.
//   agent-bash-launch inner NPROC ACCESS N FOLDER... -- COMMAND ARGS...
//       first inside the sandbox: RLIMIT_NPROC (NPROC > 0), then a Landlock ruleset (ACCESS > 0) that
//       allows the changes in ACCESS beneath the N folders only, then runs the command.
//   agent-bash-launch readonly SPEC... -- COMMAND ARGS...
//       the read-only fence (readonly-fence.h) on an auto-approved read, then runs the command.
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

// The Landlock system call numbers and PR_SET_NO_NEW_PRIVS come with the fence's header.
#include "readonly-fence.h"

#define LANDLOCK_CREATE_RULESET_VERSION 1U
#define LANDLOCK_RULE_PATH_BENEATH 1
#ifndef PR_SET_NO_NEW_PRIVS
#define PR_SET_NO_NEW_PRIVS 38
#endif

struct ruleset_attr {
  uint64_t handled_access_fs;
};
struct path_beneath_attr {
  uint64_t allowed_access;
  int32_t parent_fd;
} __attribute__((packed));

/** Polls of the state file, 2 ms apart (launcher.ts WAIT_POLLS). */
#define WAIT_POLLS 3000

static void fail(int code, const char *fmt, const char *a, const char *b) {
  fprintf(stderr, "agent-bash sandbox: ");
  fprintf(stderr, fmt, a, b);
  fputc('\n', stderr);
  exit(code);
}

static int parse_int(const char *s, long *out) {
  char *end;
  errno = 0;
  long v = strtol(s, &end, 10);
  if (errno != 0 || end == s || *end != '\0') return -1;
  *out = v;
  return 0;
}

static int landlock_abi(void) {
  long abi = syscall(SYS_landlock_create_ruleset, NULL, 0, LANDLOCK_CREATE_RULESET_VERSION);
  return abi < 0 ? 0 : (int)abi;
}

/** Whether `fd` is named in the space-separated list `keep`, or is stdio. */
static int kept(int fd, const char *keep) {
  if (fd <= 2) return 1;
  const char *p = keep;
  while (*p) {
    while (*p == ' ') p++;
    if (!*p) break;
    char *end;
    long v = strtol(p, &end, 10);
    if (end == p) break;
    if (v == fd) return 1;
    p = end;
  }
  return 0;
}

static void close_others(const char *keep) {
  DIR *d = opendir("/proc/self/fd");
  if (!d) fail(126, "cannot list its descriptors (%s)%s", strerror(errno), "");
  int own = dirfd(d);
  int fds[4096];
  int n = 0;
  struct dirent *e;
  while ((e = readdir(d)) != NULL && n < 4096) {
    long v;
    if (parse_int(e->d_name, &v) != 0 || v == own || kept((int)v, keep)) continue;
    fds[n++] = (int)v;
  }
  closedir(d);
  for (int i = 0; i < n; i++) close(fds[i]);
}

static void enter_namespaces(const char *options) {
  // `--target PID [--user --preserve-credentials] --net`, as sharedNetwork.ts writes them.
  char copy[512];
  if (strlen(options) >= sizeof copy) fail(126, "network options too long%s%s", "", "");
  strcpy(copy, options);
  long pid = -1;
  int user = 0, net = 0;
  char *save = NULL;
  for (char *tok = strtok_r(copy, " ", &save); tok; tok = strtok_r(NULL, " ", &save)) {
    if (strcmp(tok, "--target") == 0) {
      char *v = strtok_r(NULL, " ", &save);
      if (!v || parse_int(v, &pid) != 0) fail(126, "bad network target%s%s", "", "");
    } else if (strcmp(tok, "--user") == 0) user = 1;
    else if (strcmp(tok, "--net") == 0) net = 1;
    else if (strcmp(tok, "--preserve-credentials") == 0) continue;
    else fail(126, "unknown network option %s%s", tok, "");
  }
  if (pid <= 0) fail(126, "no network target%s%s", "", "");
  char path[64];
  int ufd = -1, nfd = -1;
  if (user) {
    snprintf(path, sizeof path, "/proc/%ld/ns/user", pid);
    ufd = open(path, O_RDONLY | O_CLOEXEC);
    if (ufd < 0) fail(126, "cannot open %s: %s", path, strerror(errno));
  }
  if (net) {
    snprintf(path, sizeof path, "/proc/%ld/ns/net", pid);
    nfd = open(path, O_RDONLY | O_CLOEXEC);
    if (nfd < 0) fail(126, "cannot open %s: %s", path, strerror(errno));
  }
  if (ufd >= 0 && setns(ufd, CLONE_NEWUSER) != 0) fail(126, "cannot join the shared user namespace: %s%s", strerror(errno), "");
  if (nfd >= 0 && setns(nfd, CLONE_NEWNET) != 0) fail(126, "cannot join the shared network namespace: %s%s", strerror(errno), "");
  if (ufd >= 0) close(ufd);
  if (nfd >= 0) close(nfd);
}

/** The state file's one line once the shared namespace settled, or NULL after the wait. */
static char *wait_state(const char *file) {
  static char line[512];
  struct timespec pause = {0, 2000000};
  for (int i = 0; i < WAIT_POLLS; i++) {
    FILE *f = fopen(file, "re");
    if (f) {
      char *got = fgets(line, sizeof line, f);
      fclose(f);
      if (got && line[0] != '\0') {
        line[strcspn(line, "\n")] = '\0';
        return line;
      }
    }
    nanosleep(&pause, NULL);
  }
  return NULL;
}

static int outer(int argc, char **argv) {
  // KEEP FILTER_FILE FILTER_FD NET NCG CGROUP... -- BWRAP ARGS...
  if (argc < 6) fail(126, "outer: too few arguments%s%s", "", "");
  const char *keep = argv[0], *filter = argv[1], *net = argv[3];
  long filter_fd, ncg;
  if (parse_int(argv[2], &filter_fd) != 0 || filter_fd < 3) fail(126, "outer: bad filter descriptor %s%s", argv[2], "");
  if (parse_int(argv[4], &ncg) != 0 || ncg < 0 || 5 + ncg >= argc) fail(126, "outer: bad cgroup count %s%s", argv[4], "");
  char pid[32];
  snprintf(pid, sizeof pid, "%ld\n", (long)getpid());
  for (long i = 0; i < ncg; i++) {
    const char *procs = argv[5 + i];
    int fd = open(procs, O_WRONLY | O_CLOEXEC);
    if (fd < 0 || write(fd, pid, strlen(pid)) < 0) {
      fprintf(stderr, "agent-bash: cannot enter the command's cgroup %s\n", procs);
      exit(125);
    }
    close(fd);
  }
  int rest = 5 + (int)ncg;
  if (strcmp(argv[rest], "--") != 0 || rest + 1 >= argc) fail(126, "outer: no bubblewrap to run%s%s", "", "");
  char **bwrap = argv + rest + 1;
  int nbwrap = argc - rest - 1;

  close_others(keep);
  int fd = open(filter, O_RDONLY);
  if (fd < 0) fail(126, "cannot open the seccomp filter %s: %s", filter, strerror(errno));
  if (fd != filter_fd) {
    if (dup2(fd, (int)filter_fd) < 0) fail(126, "cannot place the seccomp filter: %s%s", strerror(errno), "");
    close(fd);
  }

  const char *state = net;
  if (strncmp(net, "wait:", 5) == 0) {
    state = wait_state(net + 5);
    if (!state) state = "none";
  }
  if (strncmp(state, "enter:", 6) == 0) {
    enter_namespaces(state + 6);
    execv(bwrap[0], bwrap);
    fail(127, "cannot run %s: %s", bwrap[0], strerror(errno));
  }
  // No shared namespace: loopback only.
  char **args = calloc((size_t)nbwrap + 2, sizeof *args);
  if (!args) fail(126, "out of memory%s%s", "", "");
  args[0] = bwrap[0];
  args[1] = "--unshare-net";
  for (int i = 1; i < nbwrap; i++) args[i + 1] = bwrap[i];
  execv(args[0], args);
  fail(127, "cannot run %s: %s", args[0], strerror(errno));
  return 127;
}

static int inner(int argc, char **argv) {
  // NPROC ACCESS N FOLDER... -- COMMAND ARGS...
  long nproc, access, n;
  if (argc < 4 || parse_int(argv[0], &nproc) != 0 || parse_int(argv[1], &access) != 0 || parse_int(argv[2], &n) != 0 || n < 0 || 3 + n >= argc)
    fail(126, "inner: bad arguments%s%s", "", "");
  int rest = 3 + (int)n;
  if (strcmp(argv[rest], "--") != 0 || rest + 1 >= argc) fail(126, "inner: no command to run%s%s", "", "");
  if (nproc > 0) {
    // As `ulimit -u` in the script route: soft and hard; where it cannot be set, the command still runs.
    struct rlimit rl = {(rlim_t)nproc, (rlim_t)nproc};
    (void)setrlimit(RLIMIT_NPROC, &rl);
  }
  if (access > 0) {
    struct ruleset_attr attr = {(uint64_t)access};
    long rs = syscall(SYS_landlock_create_ruleset, &attr, sizeof attr, 0);
    if (rs < 0) fail(126, "landlock_create_ruleset failed: %s%s", strerror(errno), "");
    for (long i = 0; i < n; i++) {
      const char *p = argv[3 + i];
      int fd = open(p, O_PATH | O_CLOEXEC);
      if (fd < 0) continue;
      char link[64], at[4096];
      snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
      ssize_t len = readlink(link, at, sizeof at - 1);
      if (len < 0) fail(126, "the writable folder %s is now reached through a symlink (to %s); nothing was run", p, "?");
      at[len] = '\0';
      if (strcmp(at, p) != 0) fail(126, "the writable folder %s is now reached through a symlink (to %s); nothing was run", p, at);
      struct path_beneath_attr rule = {(uint64_t)access, fd};
      if (syscall(SYS_landlock_add_rule, rs, LANDLOCK_RULE_PATH_BENEATH, &rule, 0) != 0) fail(126, "landlock_add_rule %s failed: %s", p, strerror(errno));
      close(fd);
    }
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) fail(126, "no_new_privs failed: %s%s", strerror(errno), "");
    if (syscall(SYS_landlock_restrict_self, rs, 0) != 0) fail(126, "landlock_restrict_self failed: %s%s", strerror(errno), "");
    close((int)rs);
  }
  char **cmd = argv + rest + 1;
  execvp(cmd[0], cmd);
  fail(126, "cannot run %s: %s", cmd[0], strerror(errno));
  return 126;
}

static int readonly_stage(int argc, char **argv) {
  // SPEC... -- COMMAND ARGS...
  int rest = 0;
  while (rest < argc && strcmp(argv[rest], "--") != 0) rest++;
  if (rest + 1 >= argc) fail(126, "readonly: no command to run%s%s", "", "");
  char err[4200];
  if (ro_apply(rest, argv, err, sizeof err) != 0) fail(126, "the read-only fence could not be set: %s; nothing was run%s", err, "");
  char **cmd = argv + rest + 1;
  execvp(cmd[0], cmd);
  fail(126, "cannot run %s: %s", cmd[0], strerror(errno));
  return 126;
}

int main(int argc, char **argv) {
  if (argc >= 2 && strcmp(argv[1], "abi") == 0) {
    printf("%d\n", landlock_abi());
    return 0;
  }
  if (argc >= 2 && strcmp(argv[1], "outer") == 0) return outer(argc - 2, argv + 2);
  if (argc >= 2 && strcmp(argv[1], "inner") == 0) return inner(argc - 2, argv + 2);
  if (argc >= 2 && strcmp(argv[1], "readonly") == 0) return readonly_stage(argc - 2, argv + 2);
  fprintf(stderr, "usage: agent-bash-launch abi | outer ... | inner ... | readonly ...\n");
  return 2;
}
