// A seeded generator of command lines for the differential test: everyday commands the corpus
// rules allow, hostile shapes from the corpus with random payloads, random compositions of them,
// and byte-level mutations that splice risky fragments (escapes, control characters, quotes,
// substitutions, subscripts, redirects) into any position.
import { grammarLine } from './grammarGenerator';
import { FIXED, PAYLOADS, TEMPLATES } from './hostileCorpus';

/** mulberry32: small, fast, and the same sequence for the same seed everywhere. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const BENIGN = [
  'ls', 'ls -la', 'ls sub', 'echo hi', 'echo "$HOME"', 'echo $HOME', "echo 'a b'", 'cat canary', 'cat README.md',
  'grep -rn KEY .', 'grep KEY README.md', 'git status', 'git log --oneline', 'npm test', 'echo $((1+2))',
  'cat canary | grep alive', 'echo ${HOME}', 'ls -la | grep x', 'cat README.md canary', 'grep -c x canary',
  'echo a"b"c', "echo $'x\\ty'", 'ls sub/', 'git log -1', 'echo "$(ls)"', 'echo `ls`', 'cat < canary',
  'echo hi 2>/dev/null', 'ls 2>&1', 'grep x <<< "$HOME"', 'cat <<EOF\nhi\nEOF', "cat <<'EOF'\n$x\nEOF",
];

const EXTRA_PAYLOADS = [...PAYLOADS, 'touch pwn', 'mkdir ~/d', 'cp canary /tmp/c', 'sh -c id', '/usr/bin/id', 'tee ../t'];

const SEPARATORS = ['; ', ' && ', ' || ', ' | ', '\n', ' & ', ';'];

const CONTEXTS: ReadonlyArray<(c: string) => string> = [
  (c) => c,
  (c) => `echo $(${c})`,
  (c) => `echo "$(${c})"`,
  (c) => `echo \`${c}\``,
  (c) => `{ ${c}; }`,
  (c) => `(${c})`,
  (c) => `if true; then ${c}; fi`,
  (c) => `for i in 1; do ${c}; done`,
  (c) => `cat <(${c})`,
  (c) => `ls | ${c}`,
  (c) => `cat <<EOF\n$(${c})\nEOF`,
];

/** Fragments spliced into random positions: each is something bash and a parser may read differently. */
const FRAGMENTS = [
  '\\ ', '\\\t', '\\#', '#', '\v', '\f', '\r', '\\\n', '\n', ';', '&&', '|', '&', '$(', ')', '`', '\\`', "'", '"',
  '$[', '$((x))', '${!x}', '${z:x}', 'a[$(id)]', '((', '))', '[[ -v x ]]', '{', '}', '>', '> ~/x', '> ../x', '<<E"O"F\n',
  '<<\\EOF\n', '~/', '../', 'link/', '*', '{a,b}', '$x', '${x}', 'x=1 ', 'f(){ id; }; ', 'IFS=/ ', 'declare -n ',
  ' -exec id ', ' --output=../o', ' --pre=id', '\u2028', '\u00a0', '\\x', '$\'\\n\'', '$"x"',
];

function pick<T>(rnd: () => number, xs: readonly T[]): T {
  return xs[Math.floor(rnd() * xs.length)];
}

function hostile(rnd: () => number): string {
  const r = rnd();
  if (r < 0.6) {
    const templates = pick(rnd, Object.values(TEMPLATES));
    return pick(rnd, templates).split('{P}').join(pick(rnd, EXTRA_PAYLOADS));
  }
  if (r < 0.85) return pick(rnd, pick(rnd, Object.values(FIXED)));
  return pick(rnd, EXTRA_PAYLOADS);
}

function atom(rnd: () => number): string {
  return rnd() < 0.55 ? pick(rnd, BENIGN) : hostile(rnd);
}

function mutate(rnd: () => number, text: string): string {
  let out = text;
  const edits = 1 + Math.floor(rnd() * 3);
  for (let k = 0; k < edits; k++) {
    const at = Math.floor(rnd() * (out.length + 1));
    const op = rnd();
    if (op < 0.7) out = out.slice(0, at) + pick(rnd, FRAGMENTS) + out.slice(at);
    else if (op < 0.85) out = out.slice(0, at) + out.slice(at + 1 + Math.floor(rnd() * 3));
    else out = out.slice(0, at) + pick(rnd, EXTRA_PAYLOADS) + out.slice(at);
  }
  return out;
}

/** One generated command line: half from the grammars (grammarGenerator.ts), half composed and mutated. */
export function generate(rnd: () => number): string {
  if (rnd() < 0.5) {
    const line = grammarLine(rnd);
    return rnd() < 0.2 ? `${line}${pick(rnd, SEPARATORS)}${pick(rnd, CONTEXTS)(atom(rnd))}` : line;
  }
  const parts = 1 + Math.floor(rnd() * 3);
  let line = '';
  for (let k = 0; k < parts; k++) {
    const piece = pick(rnd, CONTEXTS)(atom(rnd));
    line += k === 0 ? piece : pick(rnd, SEPARATORS) + piece;
  }
  return rnd() < 0.5 ? mutate(rnd, line) : line;
}
