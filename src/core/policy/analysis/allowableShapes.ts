// Auto-approval is a whitelist of syntax, not the absence of known tricks: a command may be allowed
// only when every node of its tree-sitter tree is of a kind whose bash meaning is certain (plain and
// quoted words, `$NAME`/`${NAME}`, pipes, lists, `{ }`/`( )`/`if`/`while`/`for` bodies, command
// substitutions whose commands are analysed like any other, redirects of a simple command).
// Anything else (arithmetic fed by names, indirect or substring expansion, function definitions,
// `case`, redirects hung on a compound command, …) is named and keeps the command at prompt.
//
// The walk is iterative; the copy of the tree it reads (syntaxMirror.ts) measures the depth, so
// 5,000 nested `{ }` make a clear "too deep" answer instead of overflowing the JavaScript stack in
// the recursive analysis.
import { cpuNow } from '../../util/cpuClock';
import { isSensitiveVariable } from './sensitiveVariables';
import { globs } from './wordExpansion';
import type { SyntaxNode } from './syntaxMirror';

/** Deeper trees are not walked at all: the analysis is recursive. */
export const MAX_TREE_DEPTH = 256;

/** Names of what keeps a command from being allowable. Tests assert these texts. */
export const CONSTRUCT = {
  tooDeep: `syntax nested more than ${MAX_TREE_DEPTH} levels deep`,
  node: (what: string) => `${what} is not in the set of constructs the policy reads exactly as bash does`,
  functionDefinition: 'function definition (its body runs later, under any redirect it carries)',
  arithmetic: 'arithmetic that reads variables (array subscripts run code)',
  arithmeticCommand: 'arithmetic command `(( ))`',
  expansion: (text: string) => `parameter expansion \`${text.slice(0, 40)}\` (only plain \`$NAME\`/\`\${NAME}\` are certain)`,
  subscript: 'array subscript (evaluated as arithmetic, which can run code)',
  arrayAssignment: 'array assignment',
  compoundRedirect: 'redirect on a compound command (`{ }`, `( )`, `if`, loops, `[[ ]]`, `(( ))`, `case`)',
  testArithmetic: (op: string) => `\`[[ … ${op} … ]]\` with an operand that is not a number (evaluated as arithmetic)`,
  testVariable: (op: string) => `\`[[ ${op} … ]]\` (evaluates an array subscript)`,
  declaration: (keyword: string) => `\`${keyword}\` with attributes or subscripts`,
  loopPattern: (word: string) => `a pathname pattern \`${word.slice(0, 40)}\` in a \`for\`/\`select\` word list (bash reads the directories it names; the words are not judged as paths)`,
  patternFromExpansion: (word: string) =>
    `a pathname pattern \`${word.slice(0, 40)}\` built from an expansion (bash matches it against directories nobody can name before it runs)`,
  unquotedExpansion: (what: string) =>
    `an unquoted \`${what.slice(0, 40)}\` in a word (bash splits its value and matches any pattern in it against the filesystem, reading directories anywhere)`,
} as const;

/** Kinds that are certain wherever they appear (their children are checked on their own). */
const CERTAIN: ReadonlySet<string> = new Set([
  'program', 'list', 'pipeline', 'command_name', 'word', 'string', 'string_content', 'raw_string',
  'ansi_c_string', 'translated_string', 'concatenation', 'number', 'comment', 'subshell', 'if_statement',
  'elif_clause', 'else_clause', 'while_statement', 'do_group', 'negated_command',
  'command_substitution', 'process_substitution', 'file_redirect', 'file_descriptor', 'herestring_redirect',
  'heredoc_redirect', 'heredoc_start', 'heredoc_body', 'heredoc_content', 'heredoc_end', 'variable_assignments',
  'special_variable_name', 'brace_expression', 'test_operator', 'regex', 'extglob_pattern',
  'parenthesized_expression',
]);

/** Special parameters whose values never hold a pattern character: `$?`, `$#`, `$$`, `$!`, `$-`. */
const PATTERN_FREE_SPECIAL = /^\$(?:[?#$!-]|\{[?#$!-]\})$/;
const EXPANSION_TYPES: ReadonlySet<string> = new Set(['simple_expansion', 'expansion', 'command_substitution']);

/** The expansions that make up `word` (not those inside a command substitution's commands), each with whether it stands in double quotes. */
function expansionsIn(word: SyntaxNode): Array<{ node: SyntaxNode; quoted: boolean }> {
  const found: Array<{ node: SyntaxNode; quoted: boolean }> = [];
  const stack: Array<{ node: SyntaxNode; quoted: boolean }> = [{ node: word, quoted: false }];
  while (stack.length > 0) {
    const { node, quoted } = stack.pop() as { node: SyntaxNode; quoted: boolean };
    if (EXPANSION_TYPES.has(node.type)) {
      found.push({ node, quoted });
      continue;
    }
    for (const child of node.namedChildren) {
      // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- web-tree-sitter's namedChildren may hold null
      if (child) stack.push({ node: child, quoted: quoted || node.type === 'string' });
    }
  }
  return found;
}

/**
 * Why a word bash will split and match against the filesystem keeps the command from being allowable:
 * a pattern with an expansion in it (`keys/${x}*`, `$HOME/*`, `"$d"/*`) names directories no one can
 * know before it runs; an unquoted expansion (`$x`, `$(cmd)`) may hold a pattern itself, whatever an
 * earlier call of a persistent shell left in it. Quoted expansions and `$?`-like specials are certain.
 */
function wordProblem(word: SyntaxNode, src: string): string | undefined {
  const found = expansionsIn(word);
  if (found.length === 0) return undefined;
  const raw = text(word, src);
  // The pattern characters of the word itself: each expansion's own text (`$?`, `${x}`, `$(ls *)`)
  // stands as one plain letter for this look.
  let own = raw;
  for (const e of [...found].sort((a, b) => b.node.startIndex - a.node.startIndex)) {
    own = `${own.slice(0, e.node.startIndex - word.startIndex)}x${own.slice(e.node.endIndex - word.startIndex)}`;
  }
  if (globs(own)) return CONSTRUCT.patternFromExpansion(raw);
  const bare = found.find((e) => !e.quoted && !PATTERN_FREE_SPECIAL.test(text(e.node, src)) && !patternFree(e.node, src));
  return bare ? CONSTRUCT.unquotedExpansion(text(bare.node, src)) : undefined;
}

/** `$NAME` / `${NAME}` → NAME (undefined for any other expansion). */
function plainName(expansion: string): string | undefined {
  return /^\$\{?([A-Za-z_][A-Za-z0-9_]*)\}?$/.exec(expansion)?.[1];
}

/**
 * A variable whose value cannot hold a pattern an earlier call planted: a sensitive one (restored to
 * its start value before every call, and any change to it in this line asks; not OLDPWD or bash's own
 * BASH_*, which carry), or the variable of an enclosing `for` over words that are plain text, which
 * its body never names otherwise (no assignment, `read`, `printf -v`…) and whose words could only
 * match in the working directory (no `/` beside a pattern character).
 */
function patternFree(expansion: SyntaxNode, src: string): boolean {
  const name = plainName(text(expansion, src));
  if (name === undefined) return false;
  if (isSensitiveVariable(name) && name !== 'OLDPWD' && !name.startsWith('BASH')) return true;
  for (let p = expansion.parent; p; p = p.parent) {
    if (p.type !== 'for_statement') continue;
    const variable = p.childForFieldName('variable');
    if (!variable || text(variable, src) !== name) continue;
    const values = p.childrenForFieldName('value');
    const staticWords = values.every((v) => {
      if (expansionsIn(v).length > 0) return false;
      const plain = text(v, src).replace(/['"\\]/g, '');
      return !/[*?[]/.test(plain) || !plain.includes('/');
    });
    const body = p.childForFieldName('body');
    const bodyText = body ? text(body, src).replace(new RegExp(`\\$\\{?${name}\\}?(?![A-Za-z0-9_])`, 'g'), '') : '';
    const named = new RegExp(`(?:^|[^A-Za-z0-9_])${name}(?![A-Za-z0-9_])`).test(bodyText);
    return values.length > 0 && staticWords && !named;
  }
  return false;
}

/** The first problem of these words. */
function wordsProblem(words: readonly SyntaxNode[], src: string): string | undefined {
  for (const w of words) {
    const problem = wordProblem(w, src);
    if (problem) return problem;
  }
  return undefined;
}

/** Where a bare variable name is only a name (not arithmetic). */
const NAME_PARENTS: ReadonlySet<string> = new Set([
  'simple_expansion', 'expansion', 'variable_assignment', 'for_statement', 'declaration_command', 'unset_command',
]);

const READABLE: Readonly<Record<string, string>> = {
  case_statement: '`case` statement',
  case_item: '`case` item',
  c_style_for_statement: 'C-style `for` loop (arithmetic)',
  ternary_expression: 'arithmetic expression',
  postfix_expression: 'arithmetic expression',
};

const SIMPLE_EXPANSION = /^\$(?:[A-Za-z_][A-Za-z0-9_]*|[0-9]|[@*#?$!-])$/;
const BRACED_EXPANSION = /^\$\{(?:[A-Za-z_][A-Za-z0-9_]*|[0-9]+|[@*#?$!-])\}$/;
const NUMERIC_ARITHMETIC = /^\$\(\([\s0-9+\-*/%()<>=!&|^~]*\)\)$/;
const ARITHMETIC_TEST_OPS = /^-(?:eq|ne|lt|le|gt|ge)$/;
const SUBSCRIPT_TEST_OPS = /^-[vR]$/;
const PLAIN_DECLARATIONS: ReadonlySet<string> = new Set(['export', 'local', 'readonly']);

function text(node: SyntaxNode, src: string): string {
  return src.slice(node.startIndex, node.endIndex);
}

/** The last command-like element of a list or pipeline: where bash applies the list's redirect. */
function lastElement(node: SyntaxNode): SyntaxNode {
  let last = node;
  while (last.type === 'list' || last.type === 'pipeline') {
    let next: SyntaxNode | null = null;
    for (let k = last.namedChildCount - 1; k >= 0; k--) {
      const c = last.namedChild(k);
      if (c && c.type !== 'comment') {
        next = c;
        break;
      }
    }
    if (!next) break;
    last = next;
  }
  return last;
}

function checkRedirected(node: SyntaxNode): string | undefined {
  const body = node.childForFieldName('body');
  if (!body || body.type === 'command') return undefined;
  if ((body.type === 'list' || body.type === 'pipeline') && lastElement(body).type === 'command') return undefined;
  return CONSTRUCT.compoundRedirect;
}

function checkBinary(node: SyntaxNode, src: string, parent: string): string | undefined {
  if (parent !== 'test_command' && parent !== 'binary_expression' && parent !== 'parenthesized_expression' && parent !== 'unary_expression') {
    return CONSTRUCT.arithmetic;
  }
  const op = node.childForFieldName('operator');
  const opText = op ? text(op, src) : '';
  if (!ARITHMETIC_TEST_OPS.test(opText)) return undefined;
  const left = node.childForFieldName('left');
  const right = node.childForFieldName('right');
  const numeric = (n: SyntaxNode | null): boolean => n !== null && /^-?[0-9]+$/.test(text(n, src));
  return numeric(left) && numeric(right) ? undefined : CONSTRUCT.testArithmetic(opText);
}

function checkUnary(node: SyntaxNode, src: string, parent: string): string | undefined {
  if (parent !== 'test_command' && parent !== 'binary_expression' && parent !== 'parenthesized_expression' && parent !== 'unary_expression') {
    return CONSTRUCT.arithmetic;
  }
  const op = node.childForFieldName('operator');
  const opText = op ? text(op, src) : '';
  return SUBSCRIPT_TEST_OPS.test(opText) ? CONSTRUCT.testVariable(opText) : undefined;
}

function checkDeclaration(node: SyntaxNode, src: string): string | undefined {
  const keyword = node.child(0)?.type ?? '';
  if (node.type === 'declaration_command' && !PLAIN_DECLARATIONS.has(keyword)) return CONSTRUCT.declaration(keyword);
  for (const child of node.namedChildren) {
    // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- web-tree-sitter builds namedChildren with unmarshalNode, which can return null, though its .d.ts says Node[]
    if (!child) continue;
    if (child.type === 'variable_name' || child.type === 'variable_assignment') continue;
    // A flag (`export -n`, `unset -f`) or a word that may hold a subscript: not plain.
    if (child.type === 'word' && /^[A-Za-z_][A-Za-z0-9_]*$/.test(text(child, src))) continue;
    return CONSTRUCT.declaration(keyword);
  }
  return undefined;
}

/** Why this one node keeps the command from being allowable, or undefined when it is certain. */
function checkNode(node: SyntaxNode, src: string, parent: string): string | undefined {
  const t = node.type;
  switch (t) {
    case 'compound_statement':
      // tree-sitter reads `(( x ))` as a `{ }` group holding a name.
      return src[node.startIndex] === '{' ? undefined : CONSTRUCT.arithmeticCommand;
    case 'redirected_statement':
      return checkRedirected(node);
    case 'simple_expansion':
      return SIMPLE_EXPANSION.test(text(node, src)) ? undefined : CONSTRUCT.expansion(text(node, src));
    case 'expansion':
      return BRACED_EXPANSION.test(text(node, src)) ? undefined : CONSTRUCT.expansion(text(node, src));
    case 'arithmetic_expansion':
      return NUMERIC_ARITHMETIC.test(text(node, src)) ? undefined : CONSTRUCT.arithmetic;
    case 'variable_name':
      return NAME_PARENTS.has(parent) ? undefined : CONSTRUCT.arithmetic;
    case 'variable_assignment': {
      const name = node.childForFieldName('name');
      if (name && name.type !== 'variable_name') return CONSTRUCT.subscript;
      if (node.childForFieldName('value')?.type === 'array') return CONSTRUCT.arrayAssignment;
      return undefined;
    }
    case 'subscript':
      return CONSTRUCT.subscript;
    case 'array':
      return CONSTRUCT.arrayAssignment;
    case 'function_definition':
      return CONSTRUCT.functionDefinition;
    case 'binary_expression':
      return checkBinary(node, src, parent);
    case 'unary_expression':
      return checkUnary(node, src, parent);
    case 'declaration_command':
    case 'unset_command':
      return checkDeclaration(node, src);
    case 'for_statement':
      for (const value of node.childrenForFieldName('value')) {
        if (globs(text(value, src)) && expansionsIn(value).length === 0) return CONSTRUCT.loopPattern(text(value, src));
      }
      return wordsProblem(node.childrenForFieldName('value'), src);
    case 'command':
      // The arguments (the name is judged as the program); an assignment prefix is not split or matched.
      return wordsProblem(node.childrenForFieldName('argument'), src);
    case 'test_command':
      // `[ … ]` is the test builtin: its words are split and matched; `[[ … ]]` matches nothing.
      // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- web-tree-sitter's namedChildren may hold null
      return src.startsWith('[[', node.startIndex) ? undefined : wordsProblem(node.namedChildren.filter((c) => c && c.type !== 'test_operator'), src);
    case 'ERROR':
      return undefined; // a syntax error makes the whole analysis uncertain, with its offset
    default:
      if (CERTAIN.has(t)) return undefined;
      return CONSTRUCT.node(READABLE[t] ?? `\`${t}\``);
  }
}

export interface ShapeCheck {
  /** The first construct outside the whitelist, if any. */
  construct?: string;
  /** The deadline passed before every node was checked. */
  tooSlow?: boolean;
}

/** Nodes checked between two looks at the clock. */
const NODES_PER_CLOCK_CHECK = 256;

/**
 * Checks every named node of the tree (copied by syntaxMirror.ts, which has already refused a tree
 * deeper than MAX_TREE_DEPTH), depth first in source order, iteratively; the first problem is kept
 * (the walk goes on only to watch the deadline).
 */
export function checkShapes(root: SyntaxNode, src: string, deadline = Infinity): ShapeCheck {
  let construct: string | undefined;
  // Inside a numeric `$(( ))` (judged on its text) the expression nodes need no second look.
  let quietBelow = -1;
  let nodes = 0;
  const stack: Array<{ node: SyntaxNode; depth: number; parent: string }> = [{ node: root, depth: 0, parent: '' }];
  while (stack.length > 0) {
    const { node, depth, parent } = stack.pop() as { node: SyntaxNode; depth: number; parent: string };
    if (++nodes % NODES_PER_CLOCK_CHECK === 0 && cpuNow() > deadline) return { tooSlow: true };
    const type = node.type;
    if (quietBelow >= 0 && depth <= quietBelow) quietBelow = -1;
    if (construct === undefined && quietBelow < 0 && node.isNamed && !CERTAIN.has(type)) {
      construct = checkNode(node, src, parent);
      if (construct === undefined && type === 'arithmetic_expansion') quietBelow = depth;
    }
    const children = node.children;
    for (let k = children.length - 1; k >= 0; k--) stack.push({ node: children[k], depth: depth + 1, parent: type });
  }
  return construct === undefined ? {} : { construct };
}
