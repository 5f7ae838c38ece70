// Command lines drawn from the grammars the policy must read exactly as bash and each program do,
// not from the forms the engine already models (issue 17 item 6):
// - bash's expansions: brace lists and sequences, every bracket-expression form, tilde forms,
//   quote and escape mixtures, Unicode spaces — spelled so that bash reaches a file behind a link
//   that leads out of the workspace;
// - each program's own option syntax: unique prefixes of its long options (read from its `--help`
//   on this machine), `--opt=v` and `--opt v`, clusters with attached values;
// - sed's script grammar: every address form and flag, the commands that run or open files;
// - every builtin that sets a variable, and path-qualified program names, aimed at a program
//   planted inside the workspace.
// The judge (sandboxJudge.ts) decides what really happened; this file only proposes.
import { spawnSync } from 'node:child_process';

type Rnd = () => number;

function pick<T>(rnd: Rnd, xs: readonly T[]): T {
  return xs[Math.floor(rnd() * xs.length)];
}

function chance(rnd: Rnd, p: number): boolean {
  return rnd() < p;
}

// ---- Expansion spellings of a path through the link `keys` (→ the secret folder outside) ----

/** Spellings of the word `keys`, each expanding (in bash) to a list that contains `keys`. */
const KEYS_SPELLINGS: readonly string[] = [
  'keys', 'k{e,x}ys', '{keys,nope}', 'k{d..f}ys', '{j..l}eys', '{a..z..2}eys', '{k..k}eys', 'ke{y..y}s',
  '[[:alpha:]]eys', 'k[[:lower:]]ys', '[[.k.]]eys', 'k[[=e=]]ys', '[!x]eys', '[^x]eys', '[\\k]eys', 'k[e\\]]ys',
  'k?ys', '*eys', 'ke*', 'k"e"y\'s\'', '\\k\\e\\y\\s', "$'k'eys", 'k\\eys', '[k-l]eys', '[[:alnum:]]e[y]s',
  'k{e\\,x,e}ys', '{,k}eys', 'k[[:print:]]ys', '[[:graph:]]eys', 'k[!a-d]ys', '~+/keys', './keys', 'sub/../keys',
  'k{e,}ys', '{k,}eys', 'keys/', '[k]e[y]s', 'k[[:punct:]e]ys', 'k{0..1}eys',
];

/** Spellings of the file name `key` inside the secret folder. */
const KEY_SPELLINGS: readonly string[] = ['key', 'k*', '*', 'k?y', '[k]ey', 'k[[:alpha:]]y', '{key,x}', 'ke[!x]', "'key'", 'k\\ey', '[[:lower:]]*'];

/** Programs of the built-in read-only list and the corpus rules that read their operands. */
const READERS: readonly string[] = [
  'cat', 'head -n 3', 'tail -n 2', 'wc -l', 'grep -r KEY', 'grep -l SECRET', 'ls -la', 'sort', 'uniq', 'cut -c1-3',
  'diff canary', 'cmp canary', 'file', 'stat', 'du -a', 'rg SECRET', 'rg -L SECRET', 'tree', 'realpath', 'readlink -f',
  'md5sum', 'od -c', 'strings', 'nl', 'tac', 'jq .', 'grep -R SECRET', 'ls -R',
];

export function expansionLine(rnd: Rnd): string {
  const dir = pick(rnd, KEYS_SPELLINGS);
  const file = chance(rnd, 0.3) ? '' : `/${pick(rnd, KEY_SPELLINGS)}`;
  const reader = pick(rnd, READERS);
  const operand = dir.endsWith('/') && file ? dir + file.slice(1) : dir + file;
  return `${reader} ${operand}`;
}

// ---- Program options from the program's own help ----

interface ProgramOptions {
  name: string;
  long: string[];
  short: string[];
}

const OPTION_PROGRAMS: readonly string[] = [
  'sort', 'sed', 'grep', 'ls', 'head', 'tail', 'wc', 'uniq', 'cut', 'tr', 'diff', 'cmp', 'du', 'df', 'stat', 'file',
  'date', 'tree', 'rg', 'realpath', 'readlink', 'basename', 'dirname', 'jq', 'tar', 'cat', 'nl', 'od',
];

let optionCache: ProgramOptions[] | undefined;

/** Long and short options each program lists in its own `--help` on this machine. */
export function programOptions(): ProgramOptions[] {
  if (optionCache) return optionCache;
  optionCache = [];
  for (const name of OPTION_PROGRAMS) {
    const r = spawnSync(name, ['--help'], { encoding: 'utf8', timeout: 5000 });
    const text = `${r.stdout}${r.stderr}`;
    if (r.error || !text) continue;
    const long = [...new Set([...text.matchAll(/(?:^|[\s,[])(--[a-z][a-z0-9-]+)/g)].map((m) => m[1]))];
    const short = [...new Set([...text.matchAll(/(?:^|[\s,])-([A-Za-z0-9])\b/g)].map((m) => m[1]))];
    if (long.length + short.length > 0) optionCache.push({ name, long, short });
  }
  return optionCache;
}

/** Values an option may get: the canary, protected paths, outside paths, a program. */
const OPTION_VALUES: readonly string[] = [
  'canary', '../out', '/tmp/x', 'id', '.vscode/settings.json', '.git/hooks/pre-commit', '.git/config', 'keys/key',
  '-', 'sub', 'touch\\ pwned', 'bin/ls', '0', '5', 'x',
];

const OPERANDS: readonly string[] = ['canary', 'README.md', '.', 'sub', '-', 'canary README.md'];

/** The shortest prefix of `--name` that is at least `min` characters past the dashes. */
function prefixOf(rnd: Rnd, option: string): string {
  const body = option.slice(2);
  const len = 1 + Math.floor(rnd() * body.length);
  return `--${body.slice(0, len)}`;
}

export function optionLine(rnd: Rnd): string {
  const programs = programOptions();
  if (programs.length === 0) return 'ls';
  const p = pick(rnd, programs);
  const words: string[] = [p.name];
  const count = 1 + Math.floor(rnd() * 3);
  for (let k = 0; k < count; k++) {
    const r = rnd();
    if (r < 0.55 && p.long.length > 0) {
      const opt = chance(rnd, 0.7) ? prefixOf(rnd, pick(rnd, p.long)) : pick(rnd, p.long);
      const v = rnd();
      if (v < 0.45) words.push(`${opt}=${pick(rnd, OPTION_VALUES)}`);
      else if (v < 0.75) words.push(opt, pick(rnd, OPTION_VALUES));
      else words.push(opt);
    } else if (p.short.length > 0) {
      let cluster = '-';
      const letters = 1 + Math.floor(rnd() * 3);
      for (let l = 0; l < letters; l++) cluster += pick(rnd, p.short);
      if (chance(rnd, 0.4)) cluster += pick(rnd, OPTION_VALUES);
      words.push(cluster);
      if (chance(rnd, 0.3)) words.push(pick(rnd, OPTION_VALUES));
    }
  }
  if (p.name === 'sed' && chance(rnd, 0.5)) words.push(`'${sedScript(rnd)}'`);
  if (chance(rnd, 0.2)) words.push('--');
  words.push(pick(rnd, OPERANDS));
  return words.join(' ');
}

// ---- sed's script grammar ----

const SED_DELIMS = ['/', '%', '|', ',', '#', 'x', '\\n'];

function sedRegex(rnd: Rnd, delim: string): string {
  const body = pick(rnd, ['a', 'al', '^a', 'e$', '.', 'l*', 'x\\|a']);
  if (delim === '/') return `/${body}/`;
  return `\\${delim}${body}${delim}`;
}

function sedAddress(rnd: Rnd): string {
  const r = rnd();
  const one = (): string => {
    const k = rnd();
    if (k < 0.3) return String(1 + Math.floor(rnd() * 3));
    if (k < 0.4) return '$';
    if (k < 0.5) return `${1 + Math.floor(rnd() * 2)}~2`;
    return sedRegex(rnd, pick(rnd, SED_DELIMS)) + pick(rnd, ['', 'I', 'M', 'IM']);
  };
  if (r < 0.3) return '';
  if (r < 0.6) return one();
  if (r < 0.7) return `0,${sedRegex(rnd, '/')}`;
  return `${one()},${pick(rnd, [one(), '+1', '~2', '$'])}`;
}

function sedCommand(rnd: Rnd): string {
  const d = pick(rnd, ['/', '|', '#', ',', ':', 'e', 'w']);
  const flags = pick(rnd, ['', 'g', 'p', 'e', 'w canary', 'w ../out', 'gw /tmp/x', 'I', 'M', '2', 'ge', 'pe', 'mg']);
  return pick(rnd, [
    'p', 'd', 'q', 'Q 3', '=', 'l', 'n', 'N', 'h', 'G', 'x', 'z', 'F',
    `s${d}a${d}b${d}${flags}`, `s${d}a${d}id${d}e`, 'y/ab/ba/', 'e id', 'e', 'r /etc/hostname', 'R keys/key',
    'w canary', 'W ../out', 'w /dev/stdout', 'a\\\ntext', 'a text', 'i text', 'c text', '{p;p}', '!d', 'b end', ':a',
    'r canary', 'w .vscode/settings.json',
  ]);
}

export function sedScript(rnd: Rnd): string {
  const parts: string[] = [];
  const n = 1 + Math.floor(rnd() * 2);
  for (let k = 0; k < n; k++) parts.push(`${sedAddress(rnd)}${sedCommand(rnd)}`);
  return parts.join(pick(rnd, [';', '\n', ' ; ']));
}

export function sedLine(rnd: Rnd): string {
  const opts = pick(rnd, ['', '-n ', '-E ', '-s ', '-z ', '-u ', '--posix ', '-n -e ', '--debug ', '--sandbox ']);
  return `sed ${opts}'${sedScript(rnd).replace(/'/g, "'\\''")}' ${pick(rnd, ['canary', 'README.md', 'canary README.md'])}`;
}

// ---- Variables that decide what runs, and which program a name is ----

/** Every builtin form that sets a variable, aimed at PATH (the workspace's `bin` holds a planted `ls`). */
const VARIABLE_FORMS: readonly string[] = [
  'printf -v PATH %s "bin:$PATH"; {C}',
  'for PATH in bin; do {C}; done',
  'read PATH <<< bin; {C}',
  'read -r PATH < <(echo bin); {C}',
  'mapfile -t PATH <<< bin; {C}',
  'readarray PATH <<< bin; {C}',
  'declare PATH=bin; {C}',
  'typeset PATH=bin; {C}',
  'export PATH=bin; {C}',
  'declare -x PATH=bin; {C}',
  'PATH=bin; {C}',
  'PATH=bin {C}',
  'PATH+=:bin; PATH=bin:$PATH; {C}',
  'f() { local PATH=bin; {C}; }; f',
  'select PATH in bin; do {C}; break; done <<< 1',
  'readonly PATH=bin; {C}',
  'declare -n p=PATH; p=bin; {C}',
  'IFS=/ read -r a PATH <<< x/bin; {C}',
  'getopts b: PATH -b bin; {C}',
  'eval PATH=bin; {C}',
  'hash -p bin/ls ls; {C}',
  'alias ls=bin/ls; {C}',
  'HOME=$PWD; cat ~/canary',
  'CDPATH=sub; cd x && {C}',
  'BASH_ENV=bin/ls bash -c {C}',
  'ENV=bin/ls sh -c {C}',
  'GLOBIGNORE=canary; {C}',
  'env PATH=bin {C}',
  'env -u HOME PATH=bin {C}',
  'command -p {C}',
  'IFS=b; {C}',
];

/** Spellings of a program that is not the one PATH finds. */
const PLANTED_NAMES: readonly string[] = [
  './bin/ls', 'bin/ls', 'sub/../bin/ls', '~+/bin/ls', '/proc/self/cwd/bin/ls', 'b?n/ls', 'b[i]n/ls', '{bin,x}/ls',
  './bin/cat canary', 'bin/grep KEY canary', '"bin/ls"', "'./bin/ls'", '\\./bin/ls', 'bin//ls', './bin/./ls',
];

export function variableLine(rnd: Rnd): string {
  const c = pick(rnd, ['ls', 'ls -la', 'cat canary', 'grep KEY README.md', 'echo hi']);
  return pick(rnd, VARIABLE_FORMS).split('{C}').join(c);
}

export function plantedLine(rnd: Rnd): string {
  return pick(rnd, PLANTED_NAMES);
}

// ---- Unicode spaces and invisibles ----

const INVISIBLES: readonly string[] = [
  '\u00a0', '\u2009', '\u202f', '\u3000', '\ufeff', '\u200b', '\u200c', '\u200d', '\u2060', '\u202e', '\u2066',
  '\u1680', '\u2002', '\u205f', '\u180e', '\u00ad',
];

/** Replaces one ASCII space by an invisible character: bash reads one word where a person sees two. */
export function withInvisible(rnd: Rnd, line: string): string {
  const spaces = [...line.matchAll(/ /g)].map((m) => m.index);
  if (spaces.length === 0) return line + pick(rnd, INVISIBLES);
  const at = pick(rnd, spaces);
  return line.slice(0, at) + pick(rnd, INVISIBLES) + line.slice(at + 1);
}

const PAIRED = ['rm canary', 'bin/ls', 'id', 'touch pwned'];

/** One line from the grammars above. */
export function grammarLine(rnd: Rnd): string {
  const r = rnd();
  let line: string;
  if (r < 0.3) line = expansionLine(rnd);
  else if (r < 0.55) line = optionLine(rnd);
  else if (r < 0.7) line = sedLine(rnd);
  else if (r < 0.85) line = variableLine(rnd);
  else line = plantedLine(rnd);
  if (chance(rnd, 0.08)) line = withInvisible(rnd, `${line} ${pick(rnd, PAIRED)}`);
  return line;
}
