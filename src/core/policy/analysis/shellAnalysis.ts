// Shell analysis with tree-sitter-bash: lists every simple command a line would run, including the
// ones nested in substitutions, bodies and re-parsed payloads (`bash -c`, `eval`, here-docs fed to a
// shell), normalised for matching. It fails closed: anything it cannot read with certainty marks
// the analysis `uncertain` (a parse error, a dynamic command name, a raw-text construct where
// tree-sitter and bash disagree, or no command at all), and the policy never allows that.
import * as fs from 'node:fs';
import * as path from 'node:path';
// `import = require` (not `import {}`) so esbuild resolves the package's CommonJS build: its ES
// module build reads `import.meta.url`, which is empty in the CJS bundle.
import TreeSitter = require('web-tree-sitter');
import type { Redirect, Segment, ShellAnalysis, ShellAnalyzer } from '../policyContracts';
import { LruCache } from '../../util/lruCache';
import { normalizeCommandText } from '../rules/ruleGlob';
import { checkShapes, CONSTRUCT } from './allowableShapes';
import { scanRawText } from './rawTextScan';
import { needsExpansion } from './wordExpansion';
import { isCodeLoadingAssignment, normalizeWords, OPAQUE, type Word } from './shellNormalize';
import { envPrefixRisk, prefixAssignmentsThatMatter } from './sensitiveVariables';
import { findVariableChange } from './variableWrites';
import { cpuNow } from '../../util/cpuClock';

import { mirrorTree, type SyntaxNode } from './syntaxMirror';
import { MAX_TREE_DEPTH } from './allowableShapes';
const { Language, Parser } = TreeSitter;

export const PARSER_WASM = 'web-tree-sitter.wasm';
export const BASH_WASM = 'tree-sitter-bash.wasm';
const CACHE_SIZE = 500;
/** `bash -c "eval 'sh -c …'"` nests; past this depth we stop and say so. */
const MAX_DEPTH = 8;
/**
 * Wall-clock budget for the whole analysis of one command: parsing and walking the tree, payloads
 * included. A hit makes the analysis uncertain (so the command prompts) rather than slow; with the
 * policy's own matching budget (policy.ts) a decision stays under 50 ms whatever the input. A short
 * command is analysed in well under a millisecond.
 */
const ANALYSIS_BUDGET_MS = 20;
/** Nodes visited between two looks at the clock. */
const TICKS_PER_CLOCK_CHECK = 64;

/** Thrown from deep in the walk when the budget is spent; caught by the walk that owns the tree. */
class AnalysisDeadline extends Error {}
/** Longer commands are not parsed at all (a documented limit: the decision stays fast and prompts). */
export const MAX_COMMAND_BYTES = 64 * 1024;

/** Why an analysis is uncertain. Tests assert these texts. */
export const UNCERTAIN = {
  empty: 'empty command',
  noCommand: 'no command found',
  syntax: (offset: number) => `syntax error at offset ${offset}`,
  deadline: 'the command took too long to analyse',
  tooDeep: 'commands nested too deeply',
  treeTooDeep: CONSTRUCT.tooDeep,
  failed: (message: string) => `the analysis failed (${message})`,
  tooLong: `command longer than ${MAX_COMMAND_BYTES / 1024} KiB`,
  dynamicName: (name: string) => `command name \`${name}\` is not static`,
  lineSeparator: 'carriage return or Unicode line separator outside a here-document',
  continuationInWord: 'line continuation inside a word',
  promptExpansion: 'parameter transformation `${…@…}`',
  heredocBacktick: 'backtick inside an unquoted here-document',
  heredocExpansion: (text: string) => `an expansion in an unquoted here-document that cannot be read: \`${text}\``,
  /** tree-sitter and bash put the word boundaries in different places (bash is the judge). */
  splitWord: (text: string) => `\`${text}\` is one word for bash but two for the parser`,
  redirectWords: (text: string) => `bash reads only the first word after the redirection in \`${text}\` as its target; the parser read more`,
  nested: (where: string, reason: string) => `${where}: ${reason}`,
} as const;

// ---- Raw-text red flags (where tree-sitter and bash read the same text differently) ----

function redFlag(text: string): string | undefined {
  if (/[\r\u2028\u2029\u0085\0]/.test(text)) return UNCERTAIN.lineSeparator;
  // bash joins `r\<newline>m` into `rm`; tree-sitter reads two words. A continuation after
  // whitespace (`cmd \<newline>  --flag`) is read the same by both.
  if (/[^\s]\\\n/.test(text)) return UNCERTAIN.continuationInWord;
  if (/\$\{[^}]*@[A-Za-z]\}/.test(text)) return UNCERTAIN.promptExpansion;
  return undefined;
}

// ---- Static text of words ----

function unescapeUnquoted(raw: string): string {
  return raw.replace(/\\\n/g, '').replace(/\\(.)/gs, '$1');
}

function unescapeDoubleQuoted(raw: string): string {
  return raw.replace(/\\\n/g, '').replace(/\\([$`"\\])/g, '$1');
}

/** Unquoted `* ? [` or a brace expansion (`{a,b}`, `{1..3}`): bash may turn the word into other words. */
function isExpandable(raw: string): boolean {
  let inBrace = -1;
  for (let i = 0; i < raw.length; i++) {
    const c = raw[i];
    if (c === '\\') {
      i++;
      continue;
    }
    if (c === '*' || c === '?' || c === '[') return true;
    if (c === '{') inBrace = i;
    else if (c === '}' && inBrace >= 0) {
      const inner = raw.slice(inBrace + 1, i);
      if (inner.includes(',') || inner.includes('..')) return true;
      inBrace = -1;
    }
  }
  return false;
}

const ANSI_C_ESCAPES: Readonly<Record<string, string>> = {
  n: '\n', t: '\t', r: '\r', a: '\x07', b: '\b', e: '\x1b', E: '\x1b', f: '\f', v: '\v',
  '\\': '\\', "'": "'", '"': '"', '?': '?',
};

function decodeAnsiC(body: string): string {
  return body.replace(/\\(x[0-9a-fA-F]{1,2}|u[0-9a-fA-F]{1,4}|U[0-9a-fA-F]{1,8}|[0-7]{1,3}|c.|.)/gs, (m, e: string) => {
    if (/^[xuU]./.test(e)) {
      const code = parseInt(e.slice(1), 16);
      return code <= 0x10ffff ? String.fromCodePoint(code) : '\ufffd';
    }
    if (/^[0-7]/.test(e)) return String.fromCharCode(parseInt(e, 8));
    if (e.startsWith('c')) return String.fromCharCode(e.charCodeAt(1) & 31);
    return ANSI_C_ESCAPES[e] ?? m;
  });
}

interface Walk {
  src: string;
  depth: number;
  segments: Segment[];
  uncertainReason?: string;
  /** The first construct outside the allowable whitelist (see allowableShapes.ts, rawTextScan.ts). */
  construct?: string;
  /** cpuNow() past which parsing and walking stop (shared with nested payloads). */
  deadline: number;
  /** Nodes visited since the last look at the clock. */
  ticks: number;
}

/** Counts a visited node; past the deadline, abandons the walk (AnalysisDeadline). */
function tick(w: Walk): void {
  if (++w.ticks < TICKS_PER_CLOCK_CHECK) return;
  w.ticks = 0;
  if (cpuNow() > w.deadline) throw new AnalysisDeadline();
}

function markUncertain(w: Walk, reason: string): void {
  if (w.uncertainReason === undefined) w.uncertainReason = reason;
}

function wordOf(node: SyntaxNode, w: Walk): Word {
  const word = wordText(node, w);
  word.raw = w.src.slice(node.startIndex, node.endIndex);
  return word;
}

function wordText(node: SyntaxNode, w: Walk): Word {
  const raw = w.src.slice(node.startIndex, node.endIndex);
  switch (node.type) {
    case 'word':
      return { text: unescapeUnquoted(raw), dynamic: false, expandable: isExpandable(raw) };
    case 'number':
      return { text: raw, dynamic: false, expandable: false };
    case 'brace_expression':
      // `{1..3}`, `{01..10}`: a sequence bash expands (segmentExpansion.ts asks bash for its words).
      return { text: raw, dynamic: false, expandable: true };
    case 'raw_string':
      return { text: raw.slice(1, -1), dynamic: false, expandable: false };
    case 'ansi_c_string':
      return { text: decodeAnsiC(raw.slice(2, -1)), dynamic: false, expandable: false };
    case 'string':
      return joinParts(node, w, node.startIndex + 1, node.endIndex - 1, true);
    case 'translated_string': {
      const inner = node.namedChildren.find((c) => c.type === 'string');
      return inner ? wordOf(inner, w) : { text: raw, dynamic: true, expandable: false };
    }
    case 'concatenation':
      return joinParts(node, w, node.startIndex, node.endIndex, false);
    case 'process_substitution':
      // `<(…)` is one word, `/dev/fd/N`.
      return { text: raw, dynamic: true, expandable: false };
    default:
      // An unquoted `$x`, `${x}`, `$(…)`, `` `…` ``, `$((…))`: bash splits the value and globs the pieces.
      return { text: raw, dynamic: true, splits: true, expandable: false };
  }
}

/** Joins a string's or concatenation's parts, keeping the source text between named children. */
function joinParts(node: SyntaxNode, w: Walk, from: number, to: number, quoted: boolean): Word {
  let text = '';
  let dynamic = false;
  let splits = false;
  let expandable = false;
  // The unquoted source with quoted parts blanked out: a brace can span parts (`r{m,}` is four
  // tree-sitter words), so expansion is judged on the whole word.
  let globView = '';
  let pos = from;
  const gap = (end: number): void => {
    if (end <= pos) return;
    const raw = w.src.slice(pos, end);
    text += quoted ? unescapeDoubleQuoted(raw) : unescapeUnquoted(raw);
    globView += raw;
  };
  for (const child of node.namedChildren) {
    if (child.startIndex < from || child.endIndex > to) continue;
    gap(child.startIndex);
    if (child.type === 'string_content') {
      text += unescapeDoubleQuoted(w.src.slice(child.startIndex, child.endIndex));
    } else {
      const part = wordOf(child, w);
      text += part.text;
      dynamic ||= part.dynamic;
      splits ||= !quoted && part.splits === true;
      expandable ||= part.expandable;
      globView += child.type === 'word' ? w.src.slice(child.startIndex, child.endIndex) : '_';
    }
    pos = child.endIndex;
  }
  gap(to);
  if (!quoted && isExpandable(globView)) expandable = true;
  // `"$"` alone is a literal dollar, but a `$` token before other text can start an expansion
  // tree-sitter did not see (`"$\<newline>(…)"`): the red-flag scan covers that case.
  return splits ? { text, dynamic, splits, expandable } : { text, dynamic, expandable };
}

// ---- Redirects ----

interface ParsedRedirect {
  redirect: Redirect;
  /** Dynamic target (`> $OUT`). */
  dynamic: boolean;
  /** Here-doc or here-string text fed to the command's stdin. */
  stdinText?: string;
  /** The stdin text contains expansions done by the outer shell. */
  stdinDynamic?: boolean;
}

const STATEMENT_TYPES: ReadonlySet<string> = new Set([
  'program', 'list', 'compound_statement', 'subshell', 'do_group', 'if_statement', 'elif_clause',
  'else_clause', 'while_statement', 'for_statement', 'c_style_for_statement', 'case_statement',
  'case_item', 'function_definition', 'negated_command', 'test_command', 'variable_assignments',
]);

interface Ctx {
  redirects: ParsedRedirect[];
  consumesPipe: boolean;
  /** Redirects that tree-sitter hung on a whole list or pipeline but bash applies to its last command. */
  tail?: { start: number; end: number; redirects: ParsedRedirect[] };
  /** The node that really is the next pipeline stage when tree-sitter misnests `a | b |& c && d`. */
  pipeHead?: { start: number; end: number };
}

const FRESH: Ctx = { redirects: [], consumesPipe: false };

function operatorOf(node: SyntaxNode): string {
  let op = '';
  for (const child of node.children) {
    if (!child.isNamed) op += child.type;
    else if (op) break;
  }
  return op;
}

/**
 * Parses one redirect node. Here-doc redirects can also carry the rest of the line in tree-sitter
 * (`cat <<EOF | sh`, `sh <<EOF > out`); those pieces come back as extra redirects and follow-ups.
 */
function parseRedirect(node: SyntaxNode, w: Walk, out: ParsedRedirect[], followUps: SyntaxNode[]): void {
  if (node.type === 'file_redirect') {
    const fd = node.childForFieldName('descriptor');
    const dests = node.childrenForFieldName('destination');
    // bash takes exactly one word as the target; the words after it are the command's arguments,
    // which tree-sitter hangs on the redirect (`cat < a /etc/shadow`).
    if (dests.length > 1) markUncertain(w, UNCERTAIN.redirectWords(w.src.slice(node.startIndex, node.endIndex)));
    const words = dests.map((d) => wordOf(d, w));
    const redirect: Redirect = { op: operatorOf(node) };
    if (fd) redirect.fd = fd.text;
    const dynamic = words.some((x) => x.dynamic);
    if (words.length > 0 && !dynamic) redirect.target = words.map((x) => x.text).join(' ');
    if (!dynamic && words.some((x) => x.raw !== undefined && needsExpansion(x.raw))) redirect.targetRaw = words.map((x) => x.raw ?? x.text).join(' ');
    out.push({ redirect, dynamic });
    for (const d of dests) descend(d, w);
    return;
  }
  if (node.type === 'herestring_redirect') {
    const value = node.namedChildren.at(0);
    const word = value ? wordOf(value, w) : { text: '', dynamic: false, expandable: false };
    const redirect: Redirect = { op: '<<<' };
    if (!word.dynamic) redirect.target = word.text;
    out.push({ redirect, dynamic: word.dynamic, stdinText: word.text, stdinDynamic: word.dynamic });
    if (value) descend(value, w);
    return;
  }
  if (node.type === 'heredoc_redirect') {
    let op = '<<';
    let delimiter = '';
    let body: SyntaxNode | undefined;
    const extra: ParsedRedirect[] = [];
    for (const child of node.children) {
      if (!child.isNamed) {
        if (child.type === '<<' || child.type === '<<-') op = child.type;
        continue;
      }
      switch (child.type) {
        case 'heredoc_start':
          delimiter = child.text;
          break;
        case 'heredoc_body':
          body = child;
          break;
        case 'heredoc_end':
          break;
        case 'file_redirect':
        case 'herestring_redirect':
          parseRedirect(child, w, extra, followUps);
          break;
        default:
          // A word after the delimiter (`cat <<EOF /etc/x`) is an argument of the command for bash.
          if (!STATEMENT_TYPES.has(child.type) && !['pipeline', 'command', 'redirected_statement', 'comment'].includes(child.type)) {
            markUncertain(w, UNCERTAIN.redirectWords(w.src.slice(node.startIndex, child.endIndex)));
          }
          followUps.push(child);
      }
    }
    const quoted = /['"\\]/.test(delimiter);
    let text = body ? w.src.slice(body.startIndex, body.endIndex) : '';
    if (op === '<<-') text = text.replace(/^\t+/gm, '');
    const bodyDynamic = !quoted && /[$`]/.test(text);
    if (!quoted && text.includes('`')) markUncertain(w, UNCERTAIN.heredocBacktick);
    if (body && !quoted) {
      descend(body, w);
      walkMissedExpansions(body, w);
    }
    out.push({ redirect: { op, target: delimiter.replace(/['"\\]/g, '') }, dynamic: false, stdinText: text, stdinDynamic: bodyDynamic });
    out.push(...extra);
  }
}

// ---- Here-document bodies ----

/** Characters after `$` that make a simple parameter expansion (`$HOME`, `$1`, `$?`). */
const SIMPLE_PARAMETER = /^(?:[A-Za-z_][A-Za-z0-9_]*|[0-9@*#?!$-])/;

/**
 * tree-sitter-bash's here-document scanner misses expansions on lines that start with a space or
 * a tab (`cat <<EOF` / `  $(cmd)` / `EOF` is plain text to it, and so is the rest of that body),
 * and bash expands them all. So the body of an unquoted here-document is read again the way bash
 * reads it: `\` escapes the next character, and every `$(`, `${`, `$((` or `$[` the parser did not
 * already give a node is parsed on its own (at the start of a here-document line, where the scanner
 * reads it) and walked like any other substitution. One that cannot be read makes the line uncertain.
 */
function walkMissedExpansions(body: SyntaxNode, w: Walk): void {
  const ends = new Map<number, number>();
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- web-tree-sitter builds namedChildren with unmarshalNode, which can return null, though its .d.ts says Node[]
  for (const child of body.namedChildren) if (child && child.type !== 'heredoc_content') ends.set(child.startIndex, child.endIndex);
  const end = body.endIndex;
  let i = body.startIndex;
  while (i < end) {
    tick(w);
    const c = w.src[i];
    if (c === '\\') {
      i += 2;
      continue;
    }
    if (c !== '$') {
      i++;
      continue;
    }
    const seen = ends.get(i);
    if (seen !== undefined) {
      i = Math.max(seen, i + 1);
      continue;
    }
    const next = w.src[i + 1] ?? '';
    if (next === '(' || next === '{' || next === '[') {
      const length = walkExpansionAlone(w, i, end);
      if (length === undefined) {
        markUncertain(w, UNCERTAIN.heredocExpansion(w.src.slice(i, Math.min(end, i + 40))));
        return;
      }
      i += length;
      continue;
    }
    i += 1 + (SIMPLE_PARAMETER.exec(w.src.slice(i + 1, i + 256))?.[0].length ?? 0);
  }
}

/**
 * The length of the expansion `text` starts with, parsed as the start of a here-document body;
 * undefined when there is none, or (unless `anyway`) when the parse has an error.
 */
function firstExpansionLength(w: Walk, p: TreeSitter.Parser, head: string, text: string, delimiter: string, anyway: boolean): number | undefined {
  // Each parse reads the rest of the body: the analysis budget bounds a body of many such lines.
  if (cpuNow() > w.deadline) throw new AnalysisDeadline();
  let calls = 0;
  const tail = `${text.endsWith('\n') ? '' : '\n'}${delimiter}\n`;
  const tree = p.parse(head + text + tail, null, { progressCallback: () => ++calls % 32 === 0 && cpuNow() > w.deadline });
  if (!tree) {
    p.reset();
    throw new AnalysisDeadline();
  }
  try {
    if (!anyway && tree.rootNode.hasError) return undefined;
    const find = (node: TreeSitter.Node): TreeSitter.Node | undefined => {
      if (node.type === 'heredoc_body') return node;
      for (const child of node.namedChildren) {
        // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- see walkMissedExpansions
        const hit = child ? find(child) : undefined;
        if (hit) return hit;
      }
      return undefined;
    };
    const first = find(tree.rootNode)?.namedChild(0);
    if (first && first.type !== 'heredoc_content' && first.startIndex === head.length && first.endIndex > head.length + 1) {
      return Math.min(first.endIndex - head.length, text.length);
    }
    return undefined;
  } finally {
    tree.delete();
  }
}

/**
 * Parses the expansion at `at` as the first thing of a here-document body of its own, walks it, and
 * returns its length, or undefined when no expansion starts there.
 */
function walkExpansionAlone(w: Walk, at: number, end: number): number | undefined {
  const p = parser;
  if (!p) return undefined;
  const rest = w.src.slice(at, end);
  let delimiter = 'AGENT_BASH_HEREDOC';
  while (rest.includes(delimiter)) delimiter += '_';
  const head = `:<<${delimiter}\n`;
  // Most expansions end on their own line: that line is tried alone first (a parse without an
  // error), then the rest of the body, so a body of many such lines is not parsed again and again.
  const lineEnd = rest.indexOf('\n');
  const candidates = lineEnd >= 0 && lineEnd + 1 < rest.length ? [rest.slice(0, lineEnd + 1), rest] : [rest];
  let length: number | undefined;
  for (const [k, candidate] of candidates.entries()) {
    const last = k === candidates.length - 1;
    length = firstExpansionLength(w, p, head, candidate, delimiter, last);
    if (length !== undefined) break;
  }
  if (length === undefined) return undefined;
  if (w.depth + 1 > MAX_DEPTH) {
    markUncertain(w, UNCERTAIN.tooDeep);
    return length;
  }
  // Walked as a here-document of its own, so shapes, variable changes and nesting are all checked;
  // the `:` that holds it is left out.
  const text = `${head}${rest.slice(0, length)}\n${delimiter}\n`;
  const inner = runWalk(text, w.depth + 1, w.deadline);
  for (const seg of inner.segments) {
    if (seg.start === 0) continue;
    seg.start = at + Math.max(0, seg.start - head.length);
    seg.end = Math.min(at + length, at + Math.max(0, seg.end - head.length));
    w.segments.push(seg);
  }
  const where = 'here-document';
  if (inner.uncertainReason !== undefined) markUncertain(w, UNCERTAIN.nested(where, inner.uncertainReason));
  if (inner.construct !== undefined && w.construct === undefined) w.construct = UNCERTAIN.nested(where, inner.construct);
  return length;
}

// ---- The walk ----

/** Finds substitutions inside word-level nodes and walks their commands. */
function descend(node: SyntaxNode, w: Walk): void {
  tick(w);
  const t = node.type;
  if (t === 'command_substitution' || t === 'process_substitution') {
    // `$(< file)` reads the file with no command: a segment with no argv that carries the redirect.
    // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- web-tree-sitter builds namedChildren with unmarshalNode, which can return null, though its .d.ts says Node[]
    const reads = node.namedChildren.filter((c): c is SyntaxNode => c !== null && c.type === 'file_redirect');
    if (reads.length > 0) {
      const parsed: ParsedRedirect[] = [];
      for (const r of reads) parseRedirect(r, w, parsed, []);
      pushSegment(w, node, [], [], { redirects: parsed, consumesPipe: false }, []);
    }
    // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- web-tree-sitter builds namedChildren with unmarshalNode, which can return null, though its .d.ts says Node[]
    for (const child of node.namedChildren) if (child && child.type !== 'file_redirect') visit(child, w, FRESH);
    return;
  }
  if (node.childCount === 0) return;
  // Only nodes whose text can hold a substitution are worth descending into.
  if (!/[$`<>]/.test(w.src.slice(node.startIndex, node.endIndex))) return;
  for (const child of node.namedChildren) descend(child, w);
}

function visit(node: SyntaxNode, w: Walk, ctx: Ctx): void {
  tick(w);
  const tail = ctx.tail;
  if (tail && node.startIndex === tail.start && node.endIndex === tail.end && node.type !== 'list' && node.type !== 'pipeline') {
    ctx = { redirects: [...ctx.redirects, ...tail.redirects], consumesPipe: ctx.consumesPipe };
  }
  const head = ctx.pipeHead;
  if (head && node.startIndex === head.start && node.endIndex === head.end) {
    ctx = { ...ctx, consumesPipe: true, pipeHead: undefined };
  }
  switch (node.type) {
    case 'command':
      visitCommand(node, w, ctx);
      return;
    case 'redirected_statement':
      visitRedirected(node, w, ctx);
      return;
    case 'pipeline': {
      let first = true;
      for (const child of node.namedChildren) {
        if (first) visit(child, w, ctx);
        else if (child.type === 'list') {
          // tree-sitter reads `a | b |& c && d` as `a | (b |& c && d)`; bash pipes into the list's
          // first element only.
          let lead: SyntaxNode = child;
          while (lead.type === 'list' && lead.namedChild(0)) lead = lead.namedChild(0) as SyntaxNode;
          visit(child, w, { ...ctx, consumesPipe: false, pipeHead: { start: lead.startIndex, end: lead.endIndex } });
        } else visit(child, w, { ...ctx, consumesPipe: true });
        first = false;
      }
      return;
    }
    case 'declaration_command':
    case 'unset_command':
      visitDeclaration(node, w, ctx);
      return;
    case 'variable_assignment':
      visitAssignment(node, w, ctx);
      return;
    case 'comment':
      return;
    default:
      if (STATEMENT_TYPES.has(node.type)) {
        for (const child of node.namedChildren) visit(child, w, ctx);
      } else {
        descend(node, w);
      }
  }
}

function visitRedirected(node: SyntaxNode, w: Walk, ctx: Ctx): void {
  const redirects: ParsedRedirect[] = [];
  const followUps: SyntaxNode[] = [];
  let body: SyntaxNode | null = null;
  for (let i = 0; i < node.childCount; i++) {
    const child = node.child(i);
    if (!child || !child.isNamed) continue;
    if (node.fieldNameForChild(i) === 'body') body = child;
    else parseRedirect(child, w, redirects, followUps);
  }
  if (body && (body.type === 'list' || body.type === 'pipeline')) {
    // `a && b > f` and `a | b > f` redirect only `b`, though tree-sitter attaches `> f` to the list.
    let last: SyntaxNode = body;
    while (last.type === 'list' || last.type === 'pipeline') {
      const children = last.namedChildren.filter((c) => c.type !== 'comment');
      const next = children.at(-1);
      if (!next) break;
      last = next;
    }
    visit(body, w, { ...ctx, tail: { start: last.startIndex, end: last.endIndex, redirects } });
  } else {
    const inner: Ctx = { ...ctx, redirects: [...ctx.redirects, ...redirects] };
    if (body) visit(body, w, inner);
    else pushSegment(w, node, [], [], inner, []);
  }
  for (const f of followUps) {
    if (f.type === 'pipeline') {
      for (const stage of f.namedChildren) visit(stage, w, { ...ctx, consumesPipe: true });
    } else {
      visit(f, w, ctx);
    }
  }
}

function visitCommand(node: SyntaxNode, w: Walk, ctx: Ctx): void {
  const words: Word[] = [];
  const assignments: string[] = [];
  const own: ParsedRedirect[] = [];
  const followUps: SyntaxNode[] = [];
  const nested: SyntaxNode[] = [];
  let wordEnd = -1;
  for (let i = 0; i < node.childCount; i++) {
    const child = node.child(i);
    if (!child || !child.isNamed) continue;
    const field = node.fieldNameForChild(i);
    // Two words with nothing between them are one word for bash (`[\k]eys` is `[`, `\k]eys` to the parser).
    const wordLike = field === 'name' || field === 'argument' || child.type === 'variable_assignment';
    if (wordLike) {
      if (child.startIndex === wordEnd) markUncertain(w, UNCERTAIN.splitWord(w.src.slice(child.startIndex - 1, child.endIndex)));
      wordEnd = child.endIndex;
    }
    if (field === 'name') {
      const inner = child.namedChild(0) ?? child;
      words.push(wordOf(inner, w));
      nested.push(inner);
    } else if (field === 'argument') {
      words.push(wordOf(child, w));
      nested.push(child);
    } else if (field === 'redirect') {
      parseRedirect(child, w, own, followUps);
    } else if (child.type === 'variable_assignment') {
      assignments.push(w.src.slice(child.startIndex, child.endIndex));
      nested.push(child);
    } else {
      nested.push(child);
    }
  }
  const inner: Ctx = { ...ctx, redirects: [...ctx.redirects, ...own] };
  pushSegment(w, node, words, assignments, inner, nested);
  for (const f of followUps) visit(f, w, ctx);
}

function visitDeclaration(node: SyntaxNode, w: Walk, ctx: Ctx): void {
  const words: Word[] = [];
  const assignments: string[] = [];
  for (const child of node.children) {
    if (!child.isNamed) {
      // The keyword (`export`, `local`, `declare`, `unset`, …) is an anonymous token.
      if (/^[a-z]+$/.test(child.type)) words.push({ text: child.type, dynamic: false, expandable: false });
      continue;
    }
    const text = w.src.slice(child.startIndex, child.endIndex);
    if (child.type === 'variable_assignment') {
      assignments.push(text);
      words.push({ text, dynamic: /[$`]/.test(text), expandable: false });
    } else {
      words.push(wordOf(child, w));
    }
  }
  const seg = pushSegment(w, node, words, [], ctx, node.namedChildren);
  const risky = assignments.map(isCodeLoadingAssignment).find((n) => n !== undefined);
  if (risky && words[0]?.text !== 'local' && !seg.opaque) {
    seg.opaque = true;
    seg.opaqueReason = OPAQUE.codeLoadingVar(risky);
  }
}

/** A bare `NAME=value` statement only matters when NAME changes which code later commands load. */
function visitAssignment(node: SyntaxNode, w: Walk, ctx: Ctx): void {
  const text = w.src.slice(node.startIndex, node.endIndex);
  const risky = isCodeLoadingAssignment(text);
  if (risky) {
    const seg = pushSegment(w, node, [], [text], ctx, [node]);
    seg.opaque = true;
    seg.opaqueReason = OPAQUE.codeLoadingVar(risky);
  } else {
    descend(node, w);
  }
}



/** Keeps the source of words bash will expand, and the command names as written (see Segment). */
function recordWrittenWords(seg: Segment, argvWords: readonly Word[], heads: readonly Word[]): void {
  const rawOf = (word: Word): string | undefined => (!word.dynamic && word.raw !== undefined && needsExpansion(word.raw) ? word.raw : undefined);
  const argvRaw = argvWords.map((word) => rawOf(word) ?? null);
  if (argvRaw.some((r) => r !== null)) seg.argvRaw = argvRaw;
  const names = heads.map((word) => {
    const raw = rawOf(word);
    return raw === undefined ? { text: word.text } : { text: word.text, raw };
  });
  if (names.some((n) => n.raw !== undefined || n.text.includes('/'))) seg.names = names;
}

function isOutputRedirect(r: ParsedRedirect): boolean {
  return r.redirect.op.includes('>');
}

function pushSegment(w: Walk, node: SyntaxNode, words: Word[], assignments: string[], ctx: Ctx, nested: SyntaxNode[]): Segment {
  const norm = normalizeWords(words);
  const source = w.src.slice(node.startIndex, node.endIndex);
  const seg: Segment = {
    text: normalizeCommandText(norm.argv.join(' ')),
    argv: norm.argv,
    assignments: [...assignments, ...norm.wrapperAssignments],
    redirects: ctx.redirects.map((r) => r.redirect),
    consumesPipe: ctx.consumesPipe,
    opaque: false,
    dynamic: false,
    start: node.startIndex,
    end: node.endIndex,
    source,
  };
  if (norm.prefix.length > 0) seg.prefix = norm.prefix;
  if (norm.privileged) seg.privileged = true;
  recordWrittenWords(seg, norm.argvWords ?? [], norm.heads ?? []);
  if (norm.optionPaths.length > 0) seg.optionPaths = norm.optionPaths;
  const dynamicArgs = norm.argvDynamic.flatMap((d, k) => (d ? [k] : []));
  if (dynamicArgs.length > 0) seg.dynamicArgs = dynamicArgs;
  if (dynamicArgs.length > 0 || ctx.redirects.some((r) => r.dynamic && isOutputRedirect(r))) seg.dynamic = true;
  const head = words.at(norm.prefix.length);
  if (head && (head.dynamic || head.expandable)) markUncertain(w, UNCERTAIN.dynamicName(head.text));

  let opaqueReason = norm.opaqueReason;
  const prefixes = prefixAssignmentsThatMatter(seg.assignments, norm.argv);
  const risky = prefixes.map(isCodeLoadingAssignment).find((n) => n !== undefined);
  if (!opaqueReason && risky) opaqueReason = OPAQUE.codeLoadingVar(risky);
  if (!opaqueReason && norm.argv.length > 0) opaqueReason = envPrefixRisk(prefixes);

  let payload = norm.payload;
  if (!opaqueReason && norm.readsProgramFromStdin) {
    const stdin = [...ctx.redirects].reverse().find((r) => r.stdinText !== undefined || r.redirect.op === '<');
    const name = norm.argv[0];
    if (norm.readsProgramFromStdin === 'shell' && stdin?.stdinText !== undefined && !ctx.consumesPipe) {
      if (stdin.stdinDynamic) opaqueReason = OPAQUE.dynamicPayload(name);
      // Parsed even when dynamic, so a deny rule still sees the commands that are written out.
      payload = { kind: 'stdin', text: stdin.stdinText };
    } else {
      opaqueReason = OPAQUE.programFromStdin(name);
    }
  }
  if (opaqueReason) {
    seg.opaque = true;
    seg.opaqueReason = opaqueReason;
  }
  w.segments.push(seg);
  for (const n of nested) descend(n, w);
  if (payload) analyzePayload(w, seg, payload.kind, payload.text);
  return seg;
}

function analyzePayload(w: Walk, outer: Segment, kind: string, text: string): void {
  if (w.depth + 1 > MAX_DEPTH) {
    markUncertain(w, UNCERTAIN.tooDeep);
    return;
  }
  const inner = runWalk(text, w.depth + 1, w.deadline);
  for (const seg of inner.segments) {
    // Nested positions are relative to the payload; report the outer command's range instead.
    seg.start = outer.start;
    seg.end = outer.end;
    w.segments.push(seg);
  }
  const where = `${outer.argv[0]} ${kind === 'shell -c' ? '-c' : kind} payload`;
  if (inner.uncertainReason !== undefined) markUncertain(w, UNCERTAIN.nested(where, inner.uncertainReason));
  if (inner.construct !== undefined && w.construct === undefined) w.construct = UNCERTAIN.nested(where, inner.construct);
}

// ---- Parsing ----

let parser: TreeSitter.Parser | undefined;

function firstError(node: TreeSitter.Node): number {
  if (node.isError || node.isMissing) return node.startIndex;
  for (const child of node.children) {
    if (child.hasError) return firstError(child);
    if (child.isMissing) return child.startIndex;
  }
  return node.startIndex;
}

function runWalk(text: string, depth: number, deadline: number): Walk {
  const w: Walk = { src: text, depth, segments: [], deadline, ticks: 0 };
  if (text.trim() === '') {
    markUncertain(w, UNCERTAIN.empty);
    return w;
  }
  if (Buffer.byteLength(text, 'utf8') > MAX_COMMAND_BYTES) {
    markUncertain(w, UNCERTAIN.tooLong);
    return w;
  }
  const flag = redFlag(text);
  if (flag) markUncertain(w, flag);
  const raw = scanRawText(text);
  if (raw !== undefined) w.construct = raw;
  const p = parser;
  if (!p) throw new Error('shell analyzer used before it was loaded');
  // Looked at every 32 calls: the parser calls back often, and a CPU clock reading costs about a microsecond.
  let calls = 0;
  const tree = p.parse(text, null, { progressCallback: () => ++calls % 32 === 0 && cpuNow() > deadline });
  if (!tree) {
    p.reset();
    markUncertain(w, UNCERTAIN.deadline);
    return w;
  }
  try {
    const tsRoot = tree.rootNode;
    // One copy of the tree for the three walks (syntaxMirror.ts). Depth first: the walks below
    // recurse, and a tree this deep is not worth reading anyway.
    const mirrored = mirrorTree(tsRoot, text, MAX_TREE_DEPTH, deadline);
    if (mirrored.tooSlow) {
      markUncertain(w, UNCERTAIN.deadline);
      return w;
    }
    if (mirrored.tooDeep) {
      markUncertain(w, UNCERTAIN.treeTooDeep);
      return w;
    }
    const root = mirrored.root;
    const shapes = checkShapes(root, text, deadline);
    if (shapes.tooSlow) {
      markUncertain(w, UNCERTAIN.deadline);
      return w;
    }
    if (shapes.construct !== undefined && w.construct === undefined) w.construct = shapes.construct;
    if (tsRoot.hasError) markUncertain(w, UNCERTAIN.syntax(firstError(tsRoot)));
    visit(root, w, FRESH);
    // A change to a variable that decides what runs is named before any other construct.
    const change = findVariableChange(root, text, w.segments, () => tick(w));
    if (change !== undefined) w.construct = change;
  } catch (err) {
    if (!(err instanceof AnalysisDeadline)) throw err;
    // What was found so far stays (a deny rule may still match it); the whole is uncertain.
    markUncertain(w, UNCERTAIN.deadline);
  } finally {
    tree.delete();
  }
  if (w.segments.length === 0) markUncertain(w, UNCERTAIN.noCommand);
  // Source order (a here-doc's substitutions are found before the command that reads them);
  // the sort is stable, so a payload's commands stay right after the command that holds them.
  w.segments.sort((a, b) => a.start - b.start);
  return w;
}

function analyzeUncached(command: string, budgetMs: number): ShellAnalysis {
  let w: Walk;
  try {
    w = runWalk(command, 0, cpuNow() + budgetMs);
  } catch (err) {
    // Fail closed: a bug in the walk must never become an allow, nor a crash of the caller.
    w = { src: command, depth: 0, segments: [], deadline: 0, ticks: 0, uncertainReason: UNCERTAIN.failed(err instanceof Error ? err.message : String(err)) };
  }
  const analysis: ShellAnalysis = { command, segments: w.segments, uncertain: w.uncertainReason !== undefined };
  if (w.uncertainReason !== undefined) analysis.uncertainReason = w.uncertainReason;
  if (w.construct !== undefined) analysis.construct = w.construct;
  return deepFreeze(analysis);
}

/** Cached analyses are shared between callers, so they are frozen. */
function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value)) deepFreeze(v);
  }
  return value;
}

// ---- Loading ----

function wasmDirs(opts?: { wasmDir?: string }): { parserWasm: string; bashWasm: string } {
  if (opts?.wasmDir) {
    return { parserWasm: path.join(opts.wasmDir, PARSER_WASM), bashWasm: path.join(opts.wasmDir, BASH_WASM) };
  }
  // The esbuild bundle copies both files beside dist/extension.js and dist/cli.js.
  const here = __dirname;
  if (fs.existsSync(path.join(here, PARSER_WASM)) && fs.existsSync(path.join(here, BASH_WASM))) {
    return { parserWasm: path.join(here, PARSER_WASM), bashWasm: path.join(here, BASH_WASM) };
  }
  return {
    parserWasm: require.resolve(`web-tree-sitter/${PARSER_WASM}`),
    bashWasm: require.resolve(`tree-sitter-bash/${BASH_WASM}`),
  };
}

/**
 * Everyday shapes, repeated: analysing them once at load compiles the parser's WebAssembly and the
 * walk's code, so the first real decision meets warm code and its budget measures the command,
 * not the process's start (a fresh CLI needed over 20 ms for `echo a; ` × 50 otherwise).
 */
const WARM_UP = [
  'git status --short && ls -la src/dir | grep -n "pattern" 2>/dev/null > out.txt',
  'for f in a b; do echo "$f" $(date +%s) `pwd` ${HOME}; done; x=1 env FOO=bar npm run test -- --watch=false',
  'cat <<EOF | sort | uniq -c\nline $HOME\nEOF',
  "bash -c 'echo hi; rm -f x' || { echo no; exit 3; } &",
  'if [ -f a ]; then cat a; elif [[ -n $B ]]; then echo "$((1 + 2))"; fi; case $x in a) echo;; esac; f() { :; }',
].join('\n');
const WARM_UP_ROUNDS = 5;

let warmed = false;

function warmUp(): void {
  if (warmed) return;
  warmed = true;
  for (let i = 0; i < WARM_UP_ROUNDS; i++) analyzeUncached(`${WARM_UP}\n# ${i}`, Number.POSITIVE_INFINITY);
}

let loading: Promise<void> | undefined;

function load(opts?: { wasmDir?: string }): Promise<void> {
  if (!loading) {
    const files = wasmDirs(opts);
    loading = (async () => {
      await Parser.init({ locateFile: () => files.parserWasm });
      const language = await Language.load(files.bashWasm);
      const p = new Parser();
      p.setLanguage(language);
      parser = p;
    })();
    // A failed load (missing wasm) may be retried with other options.
    loading.catch(() => {
      loading = undefined;
    });
  }
  return loading;
}

/** Loads the grammar once per process; every analyzer shares it and keeps its own cache. */
export async function createShellAnalyzer(opts?: {
  wasmDir?: string;
  /** Tests: the analysis budget (default ANALYSIS_BUDGET_MS). */
  budgetMs?: number;
  /** `later`: warm up right after this returns (an editor's activation), not before (a CLI's one decision). */
  warmUp?: 'now' | 'later';
}): Promise<ShellAnalyzer> {
  await load(opts);
  if (opts?.warmUp === 'later') setImmediate(warmUp);
  else warmUp();
  const cache = new LruCache<string, ShellAnalysis>(CACHE_SIZE);
  return {
    analyze(command: string): ShellAnalysis {
      const hit = cache.get(command);
      if (hit) return hit;
      const analysis = analyzeUncached(command, opts?.budgetMs ?? ANALYSIS_BUDGET_MS);
      cache.set(command, analysis);
      return analysis;
    },
  };
}
