// Words drawn from bash's expansion grammar, and a workspace for them to expand in: brace lists
// (nested, empty members, escaped commas and braces), sequences (letters, steps, negative steps,
// zero padding, across punctuation), every bracket form (classes, collating symbols, equivalence
// classes, `[!…]`, `[^…]`, `]` first, ranges, backslashes inside), tilde forms, quote and escape
// mixtures, and globs through links to directories outside (`link` → /etc, `out` → a temp folder).
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { prng } from '../../security/policy/differential/commandGenerator';

export interface ExpansionWorkspace {
  root: string;
  /** The folder `out` leads to: outside the workspace, empty at first. */
  outside: string;
  dispose(): void;
}

export function expansionWorkspace(): ExpansionWorkspace {
  const base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'expansion-grammar-')));
  const root = path.join(base, 'ws');
  const outside = path.join(base, 'outside');
  fs.mkdirSync(path.join(root, 'sub'), { recursive: true });
  fs.mkdirSync(outside);
  for (const f of ['a', 'b.txt', 'c1', 'c2', 'c10', '.hidden', 'x]y', 'o', 'e=f', 'sub/x', 'sub/y.txt']) fs.writeFileSync(path.join(root, f), 'in\n');
  fs.symlinkSync('/etc', path.join(root, 'link'));
  fs.symlinkSync(outside, path.join(root, 'out'));
  return { root, outside, dispose: () => fs.rmSync(base, { recursive: true, force: true }) };
}

/** Pieces that stand for a whole word, each a form of one part of the grammar. */
const WHOLE = [
  // brace lists and sequences
  '{a,b}', '{,x}', '{a,}', '{a,{b,c}}d', 'x{a,{b,{c,d}}}y', '{a..e}', '{e..a}', '{a..z..5}', '{1..10..3}', '{10..1..4}',
  '{01..10}', '{-3..3..2}', '{Z..c}', '{x..y..2}', '{1..a}', '{a}', '{}', '\\{a,b}', '{a\\,b}', '{a,b\\}', "'{a,b}'", '"{"a,b}',
  '{a,b}{1,2}', '{{a,b}}', '{a..c}{1..2}', '{0..3..0}', '{a..e..-2}', '{001..3}', '{-01..2}', '{a,b,}c', 'c{1,10}', '{"a b",c}',
  // brackets
  '[[:alpha:]]', '[[:digit:][:upper:]]*', '[[.a.]]', '[[=a=]]', '[!a]', '[^a]', '[]a]', '[!]]*', '[a-c]*', '[\\]]*', '[a\\-z]',
  '[[]', '[abc', '[[:bogus:]]', 'x[]]y', '[[:punct:]]*', '[[:space:]]', '[[.hyphen.]]', 'c[0-9]', 'c[[:digit:]][[:digit:]]',
  '[.]hidden', '.[h]*', '[[:alnum:]]?', '[!.]*', '[a-]', '[-a]', '[z-a]', '?', '??', '*', '.*', '*/*', '*.txt', '**',
  // tilde forms
  '~', '~/x', '~+', '~+/sub', '~root', '~nosuchuser-zq', 'a=~/x', '--x=~/y', 'x:~/y', '"~"', '\\~', "~'/x'", '~"root"',
  // quotes and escapes
  "'a'\"b\"\\c", '"*"', '\\*', 'a\\ b', "'a b'*", '"["a]', '\\[a]', "'['a']'", '"{a,b}"{c,d}', 'a\\{b,c\\}', '\\\\*',
  // through the links
  'link/host*', 'l[i]nk/pass*', 'l{i,o}nk/hostname', 'link/[[:alpha:]]ost[[.n.]]ame', 'link/h?sts', 'lin?/pas[[=s=]]wd',
  'link/ho[!x]ts', 'link/ho[^x]ts', 'l\\ink/shad*', '"link"/pass*', 'link/{host,pass}*', 'link/{a..z}osts', 'out/*', 'o[u]t/*',
  '*/passwd', 'l*/host?', '{link,sub}/*',
];

/** Small parts that are glued around and between the pieces. */
const PARTS = ['', '', 'a', 'c', 'l', 'link/', 'sub/', 'o', '/', '*', '?', '\\*', "'x'", '"y"', '.', '..', '-', '='];


/** Every whole piece, then `count` more glued from pieces and parts (deterministic). */
export function grammarWords(count: number, seed = 17): string[] {
  const rnd = prng(seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)];
  const out = new Set<string>(WHOLE);
  for (let i = 0; out.size < WHOLE.length + count && i < count * 20; i++) {
    const word = pick(PARTS) + pick(WHOLE) + (rnd() < 0.5 ? pick(PARTS) + (rnd() < 0.3 ? pick(WHOLE) : '') : '');
    if (word.startsWith('#') || word === '') continue;
    out.add(word);
  }
  return [...out];
}
