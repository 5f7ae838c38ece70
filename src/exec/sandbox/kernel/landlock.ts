// Changes that read-only mounts do not stop. A read-only mount refuses writing regular files,
// folders and symlinks, but not opening a named pipe (FIFO) for writing: `echo x > /tmp/host-fifo`
// reaches the host process that reads it, wherever the pipe is (devices are `nodev`, unix sockets
// refused by the seccomp filter). And a mount is only as good as the path bubblewrap followed when
// it made it: a writable folder a command swapped for a symlink just then is bound where the link
// points. No mount flag and no seccomp filter can tell one path from another, so the first process
// inside the sandbox applies a Landlock ruleset (Linux ≥ 5.19, ABI 2) before the command: every
// change to the filesystem — opening a file for writing, making or removing any entry, renaming or
// linking across folders, and truncating by path (ABI 3) — is allowed only beneath the folders
// bound writable, `/dev` (the sandbox's own) and `/proc` (its own PID namespace's, `/proc/sys`
// read-only). Reading and running are not restricted by it. Pipes and sockets the command was
// handed (stdio) are no path and stay usable.
//
// The ruleset holds the folders themselves (not their names), each checked to be what its name said
// when bubblewrap was given it: a command that swapped a writable folder for a symlink meanwhile (so
// that bubblewrap's bind followed it to a folder of the host's) makes the next command stop here,
// with the reason, before anything runs.
//
// Nothing here compiles: the ruleset is applied by perl's `syscall` (perl is part of every Linux
// distribution's base system; git needs it). Where perl or Landlock is missing the command still
// runs, and the result says named pipes outside stay writable.
import { spawnSync } from 'node:child_process';

const SYS_LANDLOCK_CREATE_RULESET = 444;
const SYS_LANDLOCK_ADD_RULE = 445;
const SYS_LANDLOCK_RESTRICT_SELF = 446;
/** `prctl` differs per architecture (the landlock calls are the same on x86_64 and aarch64). */
const SYS_PRCTL: Partial<Record<string, number>> = { x64: 157, arm64: 167 };
const PR_SET_NO_NEW_PRIVS = 38;
const LANDLOCK_CREATE_RULESET_VERSION = 1;
const LANDLOCK_RULE_PATH_BENEATH = 1;
/**
 * Every right that changes the filesystem (ABI 1–2): writing a file, removing and making entries of
 * every kind, and `REFER` (linking or renaming across folders). Reading and running stay unhandled.
 */
const ACCESS_FS_CHANGE = [1, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13].reduce((m, bit) => m | (1 << bit), 0);
/** `TRUNCATE` (ABI 3, Linux 6.2): `truncate(2)` by path. */
const ACCESS_FS_TRUNCATE = 1 << 14;

/** What the ruleset handles, and grants beneath the writable folders, on a kernel of Landlock ABI `abi`. */
export function landlockAccess(abi: number): number {
  return abi >= 3 ? ACCESS_FS_CHANGE | ACCESS_FS_TRUNCATE : ACCESS_FS_CHANGE;
}
/** O_PATH | O_CLOEXEC (the same on x86_64 and aarch64). */
const O_PATH_CLOEXEC = 0x200000 | 0x80000;
/** The first ABI with `REFER` (5.19): before it, every rename across folders is refused under any ruleset. */
export const MIN_LANDLOCK_ABI = 2;

/** Folders the sandbox's own mounts make writable besides the binds: its /dev and /proc. */
export const LANDLOCK_ALWAYS_WRITABLE = ['/dev', '/proc'];

// $ARGV[0]: the access rights handled (landlockAccess); $ARGV[1]: how many folders follow; then the folders; then the command. A folder that cannot be
// opened (gone since) is left out: nothing can be written beneath it anyway. Any failure of the
// calls themselves stops here, with the reason: the command never runs without the ruleset.
const SCRIPT = [
  'sub fail { print STDERR "agent-bash sandbox: $_[0]\\n"; exit 126 }',
  'my $access = shift @ARGV; my $n = shift @ARGV; my @w = splice(@ARGV, 0, $n);',
  'my $attr = pack("Q<", $access);',
  `my $rs = syscall(${SYS_LANDLOCK_CREATE_RULESET}, $attr, 8, 0);`,
  'fail("landlock_create_ruleset failed: $!") if $rs < 0;',
  'for my $p (@w) {',
  `  sysopen(my $h, $p, ${O_PATH_CLOEXEC}) or next;`,
  '  my $at = readlink("/proc/self/fd/" . fileno($h));',
  '  fail("the writable folder $p is now reached through a symlink (to $at); nothing was run") if !defined($at) || $at ne $p;',
  '  my $rule = pack("Q<l<", $access, fileno($h));',
  `  syscall(${SYS_LANDLOCK_ADD_RULE}, $rs, ${LANDLOCK_RULE_PATH_BENEATH}, $rule, 0) == 0 or fail("landlock_add_rule $p failed: $!");`,
  '  close $h;',
  '}',
  'syscall(PRCTL, ' + String(PR_SET_NO_NEW_PRIVS) + ', 1, 0, 0, 0) == 0 or fail("no_new_privs failed: $!");',
  `syscall(${SYS_LANDLOCK_RESTRICT_SELF}, $rs, 0) == 0 or fail("landlock_restrict_self failed: $!");`,
  'exec { $ARGV[0] } @ARGV or fail("cannot run $ARGV[0]: $!");',
].join('\n');

export interface LandlockSupport {
  /** Absolute path of perl, when the ruleset can be applied. */
  perl?: string;
  /** The kernel's Landlock ABI (with perl). */
  abi?: number;
  /** Why not (for the result's note). */
  problem?: string;
}

const cache = new Map<string, LandlockSupport>();

/** Whether `perl` (absolute, or undefined when none) can apply the ruleset on this kernel; cached. */
export function landlockSupport(perl: string | undefined): LandlockSupport {
  const key = perl ?? '';
  const hit = cache.get(key);
  if (hit) return hit;
  const found = probe(perl);
  cache.set(key, found);
  return found;
}

function probe(perl: string | undefined): LandlockSupport {
  if (SYS_PRCTL[process.arch] === undefined) return { problem: `Landlock is applied on x86_64 and aarch64 only (this is ${process.arch})` };
  if (perl === undefined) return { problem: 'perl is not installed (it applies the Landlock ruleset)' };
  const r = spawnSync(perl, ['-e', `print syscall(${SYS_LANDLOCK_CREATE_RULESET}, 0, 0, ${LANDLOCK_CREATE_RULESET_VERSION})`], { encoding: 'utf8', timeout: 10_000, env: {} });
  const abi = Number(r.stdout);
  if (r.status !== 0 || !Number.isInteger(abi)) return { problem: 'perl could not ask the kernel for Landlock' };
  const problem = landlockAbiProblem(abi);
  return problem !== undefined ? { problem } : { perl, abi };
}

/** Why a kernel of Landlock ABI `abi` cannot have the ruleset, or undefined when it can. */
export function landlockAbiProblem(abi: number): string | undefined {
  if (abi < 1) return 'the kernel has no Landlock (Linux 5.13+ with landlock in its LSM list)';
  if (abi < MIN_LANDLOCK_ABI) return `the kernel's Landlock is ABI ${abi}; the sandbox needs ABI ${MIN_LANDLOCK_ABI} (Linux 5.19+)`;
  return undefined;
}

/** The folders the ruleset lets a command change beneath: those bound writable, and the sandbox's own /dev and /proc. */
export function landlockFolders(writable: readonly string[]): string[] {
  return [...new Set([...writable, ...LANDLOCK_ALWAYS_WRITABLE])];
}

/** The argv prefix that applies the ruleset (writes allowed beneath `writable` only) and runs the rest. */
export function landlockPrefix(ll: { perl: string; abi: number }, writable: readonly string[]): string[] {
  const script = SCRIPT.replace('PRCTL', String(SYS_PRCTL[process.arch] ?? SYS_PRCTL.x64));
  const folders = landlockFolders(writable);
  return [ll.perl, '-e', script, '--', String(landlockAccess(ll.abi)), String(folders.length), ...folders];
}

/** The note when the ruleset cannot be applied. */
export function landlockNotice(problem: string): string {
  return `named pipes (FIFOs) outside the writable folders: ${problem}, so a command can still write into one a host program reads`;
}
