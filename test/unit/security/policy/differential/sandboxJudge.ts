// Bash as the judge: runs commands under real bash inside a throwaway bubblewrap sandbox (the
// root read-only, a fresh /tmp, no network, one writable workspace per case) with strace
// recording every program executed and every file opened for writing, created, renamed or
// removed. The workspaces live on the host, so the policy decides against the very files bash sees
// (a canary, a sub directory, a symlink pointing out of the workspace).
import { spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

/** What one command did under bash. */
export interface Observed {
  /** Basenames of every program successfully executed (bash's own first exec excluded). */
  executed: string[];
  /** Absolute paths written or removed, as the kernel saw them (process cwd applied). */
  written: Array<{ path: string; program: string }>;
  /** Absolute paths of every program successfully executed (bash's own first exec excluded). */
  executedPaths: string[];
  /** Absolute paths opened for reading (as written, cwd applied; links not resolved). */
  read: Array<{ path: string; program: string }>;
  /** Guarded workspace files whose content changed, and planted programs that ran (their mark). */
  tampered: string[];
}

const TRACED =
  'execve,open,openat,creat,mkdir,mkdirat,rmdir,unlink,unlinkat,rename,renameat,renameat2,link,linkat,symlink,symlinkat,truncate,chdir';
const WRITE_FLAGS = /O_WRONLY|O_RDWR|O_CREAT|O_TRUNC|O_APPEND/;
const CASE_TIMEOUT_S = 10;

/** Both tools present and bubblewrap able to create namespaces here. */
export function sandboxAvailable(): boolean {
  const ok = (cmd: string, args: string[]): boolean => spawnSync(cmd, args, { stdio: 'ignore', timeout: 20_000 }).status === 0;
  return ok('strace', ['-V']) && ok('bwrap', ['--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc', '--unshare-all', 'true']);
}

function unescape(s: string): string {
  return s.replace(/\\(x[0-9a-fA-F]{2}|[0-7]{1,3}|.)/g, (_m, e: string) => {
    if (e[0] === 'x') return String.fromCharCode(parseInt(e.slice(1), 16));
    if (/^[0-7]/.test(e)) return String.fromCharCode(parseInt(e, 8));
    return ({ n: '\n', t: '\t', r: '\r', v: '\v', f: '\f' } as Record<string, string>)[e] ?? e;
  });
}

/** Argument tokens of a syscall line: dirfds with their decoded path, and strings. */
type Arg = { fd: string } | { str: string };
const ARG = /(?:AT_FDCWD|\d+)<([^>]*)>|"((?:[^"\\]|\\.)*)"/g;

function argsOf(text: string): Arg[] {
  const out: Arg[] = [];
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- the capture group of the alternative that did not match is undefined
  for (const m of text.matchAll(ARG)) out.push(m[1] !== undefined ? { fd: m[1] } : { str: unescape(m[2] ?? '') });
  return out;
}

/**
 * Parses one per-process strace file (`-ff -y`). A file without an exec is a fork or a thread of
 * the program before it (pids only grow in the sandbox's namespace): it inherits that program.
 * Returns the program the process ended up running.
 */
function parseTrace(text: string, out: Observed, first: boolean, inherited: string, successOnly = false): string {
  let cwd = '/';
  let program = inherited;
  let skipFirstExec = first;
  for (const line of text.split('\n')) {
    const m = /^(\w+)\((.*)\)\s+=\s+(-?\d+|\?)/.exec(line);
    if (!m) continue;
    const [, call, rest, ret] = m;
    const args = argsOf(rest);
    const fdcwd = /AT_FDCWD<([^>]*)>/.exec(rest);
    if (fdcwd) cwd = fdcwd[1];
    if (call === 'execve') {
      const file = args.find((a): a is { str: string } => 'str' in a)?.str ?? '';
      if (ret !== '0') continue;
      program = path.basename(file);
      if (skipFirstExec) {
        skipFirstExec = false;
        continue;
      }
      out.executed.push(program);
      out.executedPaths.push(path.resolve(cwd, file));
      continue;
    }
    if (call === 'chdir') {
      const dir = args.find((a): a is { str: string } => 'str' in a)?.str;
      if (dir !== undefined && ret === '0') cwd = path.resolve(cwd, dir);
      continue;
    }
    if ((call === 'open' || call === 'openat') && !WRITE_FLAGS.test(rest)) {
      let base = cwd;
      for (const a of args) {
        if ('fd' in a) base = a.fd;
        else {
          if (ret !== '-1' && !ret.startsWith('-')) out.read.push({ path: path.resolve(base, a.str), program });
          break;
        }
      }
      continue;
    }
    // Under the read-only fence an attempt the kernel refused changed nothing: only what succeeded counts.
    if (successOnly && ret.startsWith('-')) continue;
    // Which string arguments name a place written: all but a link's source and a symlink's target.
    let strings = 0;
    let base = cwd;
    for (const a of args) {
      if ('fd' in a) {
        base = a.fd;
        continue;
      }
      strings++;
      const isSource = (call === 'link' || call === 'linkat' || call === 'symlink' || call === 'symlinkat') && strings === 1;
      if (!isSource && a.str !== '') out.written.push({ path: path.resolve(base, a.str), program });
      base = cwd;
      if (call === 'open' || call === 'openat' || call === 'creat') break;
    }
  }
  return program;
}

export interface SandboxCase {
  command: string;
  /** The workspace directory (created by prepareWorkspaces). */
  workspace: string;
}

/** Programs planted inside each workspace under `bin/`: running one is running code the agent wrote. */
export const PLANTED_PROGRAMS = ['ls', 'cat', 'grep'] as const;
/** Workspace paths an allowed command must never write (the canary, editor settings, git hooks and config). */
export const GUARDED_PATHS = ['canary', '.vscode/settings.json', '.git/config', '.git/hooks'] as const;
/** The folder outside every workspace that `keys` links to: an allowed command must never read it. */
export const SECRET_DIR = 'secret';

/**
 * A fresh directory with one workspace per case: canary file, README.md, sub/, `link -> /etc`,
 * `keys -> <base>/secret` (a folder outside holding `key`), planted programs in `bin/`, editor
 * settings and a git repository.
 */
export function prepareWorkspaces(count: number): { base: string; workspaces: string[]; dispose: () => void } {
  const base = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-bash-judge-'));
  const secret = path.join(base, SECRET_DIR);
  fs.mkdirSync(secret);
  fs.writeFileSync(path.join(secret, 'key'), 'SECRET KEY\n');
  const template = path.join(base, 'template');
  fs.mkdirSync(path.join(template, 'sub'), { recursive: true });
  fs.mkdirSync(path.join(template, 'bin'));
  fs.mkdirSync(path.join(template, '.vscode'));
  fs.writeFileSync(path.join(template, '.vscode', 'settings.json'), '{}\n');
  for (const name of PLANTED_PROGRAMS) fs.writeFileSync(path.join(template, 'bin', name), '#!/bin/sh\necho planted > "$(dirname "$0")/../PWNED"\n', { mode: 0o755 });
  spawnSync('git', ['init', '-q', template], { stdio: 'ignore' });
  const workspaces: string[] = [];
  for (let i = 0; i < count; i++) {
    const ws = path.join(base, `ws-${i}`);
    fs.cpSync(template, ws, { recursive: true });
    fs.writeFileSync(path.join(ws, 'canary'), 'alive\n');
    fs.writeFileSync(path.join(ws, 'README.md'), 'readme KEY\n');
    fs.symlinkSync('/etc', path.join(ws, 'link'));
    fs.symlinkSync(secret, path.join(ws, 'keys'));
    workspaces.push(ws);
  }
  return { base, workspaces, dispose: () => fs.rmSync(base, { recursive: true, force: true }) };
}

/** What changed in a workspace that no allowed command may change, judged on the files themselves. */
function tamperedIn(ws: string): string[] {
  const out: string[] = [];
  const read = (rel: string): string | undefined => {
    try {
      return fs.readFileSync(path.join(ws, rel), 'utf8');
    } catch {
      return undefined;
    }
  };
  if (read('canary') !== 'alive\n') out.push('the canary was changed or removed');
  if (read('.vscode/settings.json') !== '{}\n') out.push('.vscode/settings.json was changed or removed');
  if (fs.existsSync(path.join(ws, 'PWNED'))) out.push('a program planted in the workspace ran');
  return out;
}

/** Runs the cases (one sandbox for the batch, one bash per case) and reads what each did. */
/**
 * The kernel as a second judge: each case runs behind `prefix(case, i)` (the launcher's read-only
 * fence), and only the writes that succeeded count.
 */
export interface FencedJudge {
  prefix(c: SandboxCase, i: number, dir: string): string[];
}

/**
 * The launcher, copied where the judge's sandbox can run it: the judge mounts a fresh `/tmp`, so a
 * checkout under `/tmp` (a CI clone) would hide its own `dist/`.
 */
export function stageLauncher(base: string, launcher: string): string {
  const staged = path.join(base, 'agent-bash-launch');
  if (!fs.existsSync(staged)) fs.copyFileSync(launcher, staged);
  fs.chmodSync(staged, 0o755);
  return staged;
}

export async function judgeBatch(base: string, cases: readonly SandboxCase[], tag: string, stubs: Readonly<Record<string, string>> = {}, fence?: FencedJudge): Promise<Observed[]> {
  const dir = path.join(base, `batch-${tag}`);
  fs.mkdirSync(dir, { recursive: true });
  // Stubbed programs: the file at the real path is replaced (read-only) inside the sandbox only.
  const stubArgs: string[] = [];
  Object.entries(stubs).forEach(([target, script], k) => {
    const file = path.join(dir, `stub-${k}`);
    fs.writeFileSync(file, script, { mode: 0o755 });
    stubArgs.push('--ro-bind', file, fs.realpathSync(target));
  });
  const lines: string[] = ['set +e'];
  cases.forEach((c, i) => {
    fs.writeFileSync(path.join(dir, `${i}.cmd`), c.command);
    fs.mkdirSync(path.join(dir, `t${i}`));
    const prefix = fence ? `${fence.prefix(c, i, dir).map((w) => JSON.stringify(w)).join(' ')} ` : '';
    lines.push(
      `cd ${JSON.stringify(c.workspace)} && timeout -s KILL ${CASE_TIMEOUT_S} strace -ff -qq -y -s 4096 -e trace=${TRACED} ` +
        `-o ${JSON.stringify(path.join(dir, `t${i}`, 't'))} ${prefix}bash -c "$(cat ${JSON.stringify(path.join(dir, `${i}.cmd`))})" </dev/null >/dev/null 2>&1`,
    );
  });
  lines.push('exit 0');
  fs.writeFileSync(path.join(dir, 'driver.sh'), `${lines.join('\n')}\n`);
  const args = [
    '--ro-bind', '/', '/', '--tmpfs', '/tmp', '--dir', '/tmp/home', '--setenv', 'HOME', '/tmp/home',
    '--bind', base, base, ...stubArgs, '--dev', '/dev', '--proc', '/proc', '--unshare-all', '--die-with-parent',
    'bash', path.join(dir, 'driver.sh'),
  ];
  await new Promise<void>((resolve, reject) => {
    const child = spawn('bwrap', args, { stdio: ['ignore', 'ignore', 'pipe'], detached: true });
    let err = '';
    child.stderr.on('data', (d: Buffer) => {
      if (err.length < 4096) err += d.toString();
    });
    const guard = setTimeout(() => {
      try {
        process.kill(-(child.pid as number), 'SIGKILL');
      } catch {
        // already gone
      }
    }, (cases.length * CASE_TIMEOUT_S + 30) * 1000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(guard);
      if (code === 0) resolve();
      else reject(new Error(`bwrap exited ${code}: ${err}`));
    });
  });
  return cases.map((_c, i) => {
    const out: Observed = { executed: [], written: [], executedPaths: [], read: [], tampered: tamperedIn(cases[i].workspace) };
    const traceDir = path.join(dir, `t${i}`);
    const files = fs
      .readdirSync(traceDir)
      .map((f) => ({ f, pid: Number(f.split('.')[1]) }))
      .sort((a, b) => a.pid - b.pid);
    let program = 'bash';
    files.forEach(({ f }, k) => {
      program = parseTrace(fs.readFileSync(path.join(traceDir, f), 'utf8'), out, k === 0, program, fence !== undefined);
    });
    return out;
  });
}
