// What the host's git configuration names inside the folders a sandboxed command may write to.
// `.git/config` is read-only, but it may hand git's trust to a file elsewhere: an `include.path`
// (`../.gitconfig` of the project, a dotfiles repository the user's ~/.gitconfig includes), a
// `core.hooksPath` (husky's `.husky/_`), a `core.fsmonitor`, a filter, diff or merge driver, a
// credential helper, an `alias.x = !script`, `init.templateDir`… A file the sandbox can rewrite there
// is as good as a hook: the host's next `git status` (VS Code runs it unasked) runs it. So the config
// git would read for each repository (system, global, the repository's own, every include, as git
// itself reads it: `git config --list --show-origin --includes`, which runs nothing) is read, and
//   - every config file it came from that lies in a writable folder,
//   - every path a key that names a program, a hook folder, a config file or a template names
// is mounted read-only (protectedMounts.ts). Such a path that does not exist yet is watched: made by
// a command, it is moved aside afterwards (newRepoQuarantine.ts).
import { spawnSync } from 'node:child_process';
import { lstatSync } from 'node:fs';
import * as path from 'node:path';
import { hostProgram } from '../../hostPrograms';

/**
 * The last part of a config key (lower case) whose value names a program or a file git runs or
 * reads as configuration: `include.path`, `core.hooksPath`, `diff.x.textconv`, `filter.x.clean`,
 * `credential.helper`, `gpg.program`, `hook.x.command`… (a suffix, so `mergetool.x.cmd` and
 * `sequence.editor` are caught without naming every section).
 */
const PROGRAM_OR_PATH_SUFFIXES = [
  'path', 'hookspath', 'fsmonitor', 'sshcommand', 'editor', 'pager', 'askpass', 'external', 'textconv', 'command', 'cmd', 'program',
  'helper', 'driver', 'clean', 'smudge', 'process', 'templatedir', 'attributesfile', 'gitproxy', 'difffilter', 'packobjectshook',
  'uploadpack', 'receivepack',
];

/** Sections whose every value may be a program (`alias.x = !sh run.sh`, `pager.log = ./p`). */
const PROGRAM_SECTIONS = ['alias', 'pager'];

/** Keys whose path is relative to the config file that sets it (the rest: to the work tree, where git runs them). */
const RELATIVE_TO_FILE = (key: string): boolean => key === 'include.path' || (key.startsWith('includeif.') && key.endsWith('.path'));

/** Keys whose absent path is a folder (a placeholder folder can stand there). */
export const FOLDER_KEYS: ReadonlySet<string> = new Set(['core.hookspath', 'init.templatedir']);

export interface ConfigReference {
  /** Absolute path (not resolved through symlinks). */
  path: string;
  /** The key that names it, or `file` for a config file git read. */
  key: string;
  /** Written as a path (`./x`, `a/b`, `/abs`, `~/x`, or a config include), not a bare word like `true`. */
  pathLike: boolean;
}

function namesProgramOrPath(key: string): boolean {
  const section = key.slice(0, key.indexOf('.'));
  if (PROGRAM_SECTIONS.includes(section)) return true;
  const last = key.slice(key.lastIndexOf('.') + 1);
  return PROGRAM_OR_PATH_SUFFIXES.some((s) => last === s || last.endsWith(s));
}

/** The words of a value that could be paths: split as a shell would roughly, quotes and a leading `!` dropped. */
function pathWords(value: string): string[] {
  const out: string[] = [];
  for (const raw of value.split(/[\s;|&()<>`]+/)) {
    const word = raw.replace(/^!+/, '').replace(/^["']+|["']+$/g, '');
    if (word === '' || word.startsWith('-') || word.includes('://') || word.startsWith('$')) continue;
    out.push(word);
  }
  return out;
}

function expand(word: string, base: string, home: string): string {
  if (word === '~') return home;
  if (word.startsWith('~/')) return path.join(home, word.slice(2));
  return path.resolve(base, word);
}

interface CacheEntry {
  key: string;
  refs: ConfigReference[];
}

const cache = new Map<string, CacheEntry>();
const MAX_CACHE = 1000;

function stateKey(files: readonly string[]): string {
  return files
    .map((f) => {
      try {
        const st = lstatSync(f);
        return `${f}:${st.ino}:${st.size}:${st.mtimeMs}:${st.ctimeMs}`;
      } catch {
        return `${f}:-`;
      }
    })
    .join('|');
}

/**
 * The paths the git config read in `cwd` (a work tree, or a folder that is no repository: then
 * the system and global config only) names, with `home` as `~`. Empty when git is not there;
 * undefined when git fails to read the config (then nothing says what it runs). Cached while the
 * config files it came from stay the same.
 */
export function gitConfigReferences(cwd: string, home: string, env: NodeJS.ProcessEnv = process.env): ConfigReference[] | undefined {
  const cached = cache.get(cwd);
  const fixed = [path.join(cwd, '.git', 'config'), path.join(cwd, '.git', 'config.worktree'), path.join(home, '.gitconfig'), path.join(env.XDG_CONFIG_HOME ?? path.join(home, '.config'), 'git', 'config'), '/etc/gitconfig'];
  if (cached) {
    const origins = cached.refs.filter((r) => r.key === 'file').map((r) => r.path);
    if (cached.key === stateKey([...fixed, ...origins])) return cached.refs;
  }
  const cleanEnv: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(env)) if (!k.startsWith('GIT_') || k === 'GIT_CONFIG_NOSYSTEM' || k.startsWith('GIT_CONFIG_')) cleanEnv[k] = v;
  cleanEnv.HOME = home;
  cleanEnv.GIT_TERMINAL_PROMPT = '0';
  // git from a trusted folder only (hostPrograms.ts): never one a command wrote on a PATH folder.
  const git = hostProgram('git');
  if (git === undefined) return [];
  const r = spawnSync(git, ['config', '--list', '--show-origin', '--includes', '--null'], { cwd, env: cleanEnv, encoding: 'utf8', timeout: 10_000, stdio: ['ignore', 'pipe', 'ignore'] });
  // git there but failing (a config it cannot parse, a timeout): what it would run is unknown.
  if (r.error === undefined && r.status !== 0) return undefined;
  if (r.error !== undefined && (r.error as NodeJS.ErrnoException).code !== 'ENOENT') return undefined;
  const refs: ConfigReference[] = [];
  if (typeof r.stdout === 'string') {
    const parts = r.stdout.split('\0');
    for (let i = 0; i + 1 < parts.length; i += 2) {
      const origin = parts[i];
      const entry = parts[i + 1];
      if (!origin.startsWith('file:')) continue;
      const file = path.resolve(cwd, origin.slice(5));
      refs.push({ path: file, key: 'file', pathLike: true });
      const nl = entry.indexOf('\n');
      if (nl < 0) continue;
      const key = entry.slice(0, nl).toLowerCase();
      const value = entry.slice(nl + 1);
      if (!namesProgramOrPath(key)) continue;
      const base = RELATIVE_TO_FILE(key) ? path.dirname(file) : cwd;
      for (const word of pathWords(value)) refs.push({ path: expand(word, base, home), key, pathLike: RELATIVE_TO_FILE(key) || word.includes('/') || word.startsWith('.') || word.startsWith('~') });
    }
  }
  const unique = [...new Map(refs.map((ref) => [`${ref.key}\0${ref.path}`, ref])).values()];
  if (cache.size >= MAX_CACHE) cache.clear();
  cache.set(cwd, { key: stateKey([...fixed, ...unique.filter((ref) => ref.key === 'file').map((ref) => ref.path)]), refs: unique });
  return unique;
}
