// agent_bash_readonly: a bash loadable builtin (`enable -f agent-bash-readonly.so agent_bash_readonly`)
// that puts the read-only fence (readonly-fence.h) on the shell that runs it. A persistent shell runs
// an auto-approved read as `( agent_bash_readonly SPEC... || exit 126; eval '…' )`: the subshell is
// fenced without an exec, sees every variable the session carries, and the fence dies with it.
// bash's headers are not needed: the few types a builtin uses are declared here as bash defines them.
#define _GNU_SOURCE
#include <ftw.h>

#include "readonly-fence.h"

typedef struct word_desc {
  char *word;
  int flags;
} WORD_DESC;
typedef struct word_list {
  struct word_list *next;
  WORD_DESC *word;
} WORD_LIST;
struct builtin {
  char *name;
  int (*function)(WORD_LIST *);
  int flags;
  char *const *long_doc;
  const char *short_doc;
  char *handle;
};

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw) {
  (void)st;
  (void)flag;
  (void)ftw;
  return remove(path) == 0 || errno == ENOENT ? 0 : -1;
}

#define CARRY_MAX (4 << 20)

static int copy_regular(const char *src, const char *dst) {
  int in = open(src, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  if (in < 0) return 1;
  struct stat st;
  if (fstat(in, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size > CARRY_MAX) {
    close(in);
    return 1;
  }
  int out = open(dst, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (out < 0) {
    close(in);
    return 1;
  }
  char buf[65536];
  ssize_t n;
  long total = 0;
  int rc = 0;
  while ((n = read(in, buf, sizeof buf)) > 0) {
    total += n;
    if (total > CARRY_MAX || write(out, buf, (size_t)n) != n) {
      rc = 1;
      break;
    }
  }
  if (n < 0) rc = 1;
  close(in);
  close(out);
  if (rc != 0) unlink(dst);
  return rc;
}

static int agent_bash_readonly_builtin(WORD_LIST *list) {
  // `-r DIR`: the shell removes a call's scratch folder after the fenced subshell ended (links are
  // removed, never followed).
  if (list && strcmp(list->word->word, "-r") == 0) {
    if (!list->next || list->next->word->word[0] != '/') return 1;
    return nftw(list->next->word->word, remove_entry, 16, FTW_DEPTH | FTW_PHYS) == 0 || errno == ENOENT ? 0 : 1;
  }
  // `-c SRC DST`: copies a fenced call's variables file out of its scratch folder, only when it is a
  // regular file (no FIFO that would block the shell, no link, no device) of at most 4 MiB.
  if (list && strcmp(list->word->word, "-c") == 0) {
    if (!list->next || !list->next->next) return 1;
    return copy_regular(list->next->word->word, list->next->next->word->word);
  }
  int n = 0;
  for (WORD_LIST *w = list; w; w = w->next) n++;
  char **specs = calloc((size_t)n + 1, sizeof *specs);
  if (!specs) return 1;
  int i = 0;
  for (WORD_LIST *w = list; w; w = w->next) specs[i++] = w->word->word;
  char err[4200];
  int rc = ro_apply(n, specs, err, sizeof err);
  free(specs);
  if (rc != 0) {
    fprintf(stderr, "agent-bash sandbox: the read-only fence could not be set: %s; nothing was run\n", err);
    return 1;
  }
  return 0;
}

static char *const agent_bash_readonly_doc[] = {"Fence this shell read-only (Agent Bash).", NULL};

struct builtin agent_bash_readonly_struct = {
    "agent_bash_readonly", agent_bash_readonly_builtin, 1 /* BUILTIN_ENABLED */, agent_bash_readonly_doc, "agent_bash_readonly SPEC...", 0,
};
