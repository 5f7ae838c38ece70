// Every way a command line can change a variable, read off the parse tree and the analysed
// commands: assignments, declaration builtins (`export`, `declare`, `typeset`, `local`, `readonly`),
// `unset`, `export -n`, `printf -v`, `read`, `mapfile`/`readarray`, `getopts`, `wait -p`, `let`,
// `for NAME in`, `select NAME in`, arithmetic (`(( ))`, `$(( ))`, `$[ ]`, C-style `for`, subscripts,
// arithmetic test operands), `${NAME=…}`/`${NAME:=…}`, and `{NAME}>file` redirections. A change to a
// sensitive variable (sensitiveVariables.ts), a name known only at run time, a nameref, or an option
// that turns later words into environment settings (`set -k`, `set -a`) is reported with the
// variable and the form, and the command asks.
import type { Segment } from '../policyContracts';
import { isParsingLocaleName, localeCharsetReason } from './localeCharset';
import { assignedName, isSensitiveVariable, parsesAsUtf8, VARIABLE_REASON } from './sensitiveVariables';
import type { SyntaxNode } from './syntaxMirror';

/**
 * bash's own integer variables: a value assigned to one of them, in any form (`=`, `+=`, `read`,
 * `printf -v`, `declare`, `for NAME in`), is evaluated as arithmetic, and a subscript in it
 * (`OPTIND='a[$(cmd)]'`) runs the command. Found with bash 5.2 as the judge (`MAILCHECK` in an
 * interactive shell); LINENO, LINES, COLUMNS, HISTSIZE and the other numeric ones are plain strings.
 */
export const ARITHMETIC_ON_ASSIGNMENT: ReadonlySet<string> = new Set(['OPTIND', 'RANDOM', 'SRANDOM', 'HISTCMD', 'SECONDS', 'MAILCHECK']);

/** A change to this variable asks: it decides what runs, or bash evaluates its value as arithmetic. */
function watched(name: string): boolean {
  return isSensitiveVariable(name) || ARITHMETIC_ON_ASSIGNMENT.has(name);
}

/** The reason for a change to a watched variable. */
function changeReason(name: string, form: string): string {
  return ARITHMETIC_ON_ASSIGNMENT.has(name) ? VARIABLE_REASON.arithmeticValue(name, form) : VARIABLE_REASON.change(name, form);
}

/** The options each name-setting builtin takes (bash's own option strings; `:` = takes a value). */
const OPTION_SPECS: Readonly<Record<string, string>> = {
  read: 'Eersa:d:i:n:N:p:t:u:',
  mapfile: 'd:u:n:O:tC:c:s:',
  readarray: 'd:u:n:O:tC:c:s:',
  printf: 'v:',
  wait: 'fnp:',
  getopts: '',
  unset: 'fnv',
};

/** Options whose value is a variable name. */
const NAME_OPTIONS: Readonly<Record<string, string>> = { read: 'a', printf: 'v', wait: 'p' };

const DECLARATIONS: ReadonlySet<string> = new Set(['declare', 'typeset', 'local', 'export', 'readonly']);

interface ParsedOptions {
  /** Option letter → the values it was given (and whether each is only known at run time). */
  values: Map<string, Array<{ text: string; dynamic: boolean }>>;
  /** Letters given without a value. */
  flags: Set<string>;
  /** Index of the first operand. */
  operands: number;
  /** A word in the option part is only known at run time. */
  dynamic: boolean;
}

/** bash's internal getopt: clusters (`-rp`), values attached or in the next word, `--` ends options. */
function parseOptions(argv: readonly string[], dynamic: readonly boolean[], spec: string, plus: boolean): ParsedOptions {
  const out: ParsedOptions = { values: new Map(), flags: new Set(), operands: argv.length, dynamic: false };
  let i = 1;
  while (i < argv.length) {
    const t = argv[i];
    // A run-time word may expand to options unless it starts with literal text that is no option.
    if (dynamic[i] && /^[-+$`]/.test(t)) {
      out.dynamic = true;
      out.operands = i;
      return out;
    }
    if (t === '--') {
      out.operands = i + 1;
      return out;
    }
    if (t.length < 2 || !(t.startsWith('-') || (plus && t.startsWith('+')))) break;
    for (let k = 1; k < t.length; k++) {
      const c = t[k];
      const at = spec.indexOf(c);
      if (at >= 0 && spec[at + 1] === ':') {
        const attached = k + 1 < t.length;
        const value = attached ? t.slice(k + 1) : argv.at(i + 1);
        const valueDynamic = attached ? dynamic[i] : dynamic.at(i + 1) === true;
        if (!attached) i++;
        if (value !== undefined) out.values.set(c, [...(out.values.get(c) ?? []), { text: value, dynamic: valueDynamic }]);
        break;
      }
      out.flags.add(c);
    }
    i++;
  }
  out.operands = i;
  return out;
}

/** The first reason a command's words change a variable that matters, or undefined. */
export function argvVariableChange(argv: readonly string[], dynamic: readonly boolean[]): string | undefined {
  const name = argv.at(0);
  if (name === undefined || dynamic[0]) return undefined;
  const named = (form: string, target: string, isDynamic: boolean): string | undefined => {
    if (isDynamic) return VARIABLE_REASON.dynamicName(form);
    const bare = /^[A-Za-z_][A-Za-z0-9_]*/.exec(target)?.[0];
    if (bare === undefined) return undefined; // not a name: bash refuses it and sets nothing
    if (isParsingLocaleName(bare)) return localeCharsetReason(bare);
    return watched(bare) ? changeReason(bare, form) : undefined;
  };
  if (DECLARATIONS.has(name)) {
    const opts = parseOptions(argv, dynamic, 'aAfFgiIlnprtuxS', true);
    if (opts.dynamic) return VARIABLE_REASON.dynamicName(`\`${name}\``);
    if (opts.flags.has('f') || opts.flags.has('F')) return undefined; // functions, not variables
    if (opts.flags.has('n') && name !== 'export') return VARIABLE_REASON.nameref(`\`${name} -n\``);
    if (opts.flags.has('i')) return VARIABLE_REASON.integerAttribute(`\`${name} -i\``);
    const form = opts.flags.has('n') ? '`export -n`' : `\`${name}\``;
    const printOnly = opts.flags.has('p') && argv.slice(opts.operands).every((t) => !t.includes('='));
    if (printOnly) return undefined;
    for (let i = opts.operands; i < argv.length; i++) {
      const t = argv[i];
      // The builtin sees the word after quote removal: `export P\ATH=x` and `export "PATH"=x` set PATH.
      const eq = t.indexOf('=');
      const namePart = eq < 0 ? t : t.slice(0, eq);
      // `export "$n"=1`: the name part holds an expansion.
      const nameDynamic = dynamic[i] && /[$`]/.test(namePart);
      const clean = namePart.replace(/\\(.)/gs, '$1').replace(/['"]/g, '');
      // `export LANG=C.UTF-8` sets a locale bash reads later lines in: the value decides (localeCharset.ts).
      if (!nameDynamic && isParsingLocaleName(clean)) {
        if (eq >= 0 && (dynamic[i] || !parsesAsUtf8(clean, t.slice(eq + 1)))) return localeCharsetReason(clean);
        continue;
      }
      const r = named(form, clean, nameDynamic);
      if (r) return r;
    }
    return undefined;
  }
  if (name === 'let') {
    for (let i = 1; i < argv.length; i++) {
      const hit = arithmeticAssignment(argv[i]);
      if (hit) return VARIABLE_REASON.change(hit, '`let`');
    }
    return undefined;
  }
  if (name === 'set') return setOptionChange(argv, dynamic) ?? setHookChange(argv);
  if (name === 'shopt' && argv.includes('-s') && argv.includes('extdebug')) return VARIABLE_REASON.commandHook('shopt -s extdebug');
  if (name === 'trap') {
    const hook = argv.slice(1).find((t) => /^(DEBUG|RETURN|ERR)$/i.test(t));
    if (hook !== undefined && !argv.slice(1).some((t) => t === '-p' || t === '-l')) return VARIABLE_REASON.commandHook(`trap … ${hook}`);
  }
  const spec = Object.hasOwn(OPTION_SPECS, name) ? OPTION_SPECS[name] : undefined;
  if (spec === undefined) return undefined;
  const opts = parseOptions(argv, dynamic, spec, false);
  if (opts.values.has('C') && (name === 'mapfile' || name === 'readarray')) return VARIABLE_REASON.callback(`\`${name} -C\``);
  if (name === 'unset' && opts.flags.has('f')) return undefined;
  const form = (opt?: string): string => `\`${name}${opt ? ` -${opt}` : ''}\``;
  const nameOpt = Object.hasOwn(NAME_OPTIONS, name) ? NAME_OPTIONS[name] : undefined;
  if (opts.dynamic && (name !== 'printf' || opts.operands <= 1)) return VARIABLE_REASON.dynamicName(form());
  if (nameOpt) {
    for (const v of opts.values.get(nameOpt) ?? []) {
      const r = named(form(nameOpt), v.text, v.dynamic && /[$`]/.test(v.text));
      if (r) return r;
    }
  }
  // Which operands are names.
  let first = opts.operands;
  let last = argv.length;
  switch (name) {
    case 'printf':
    case 'wait':
      return undefined;
    case 'getopts':
      first = opts.operands + 1;
      last = Math.min(argv.length, first + 1);
      break;
    case 'mapfile':
    case 'readarray':
      last = Math.min(argv.length, first + 1);
      break;
    default:
      break;
  }
  for (let i = first; i < last; i++) {
    const r = named(form(), argv[i], dynamic[i]);
    if (r) return r;
  }
  return undefined;
}

/** `set -T` / `set -o functrace` / `set -E`: DEBUG, RETURN and ERR traps reach into functions and substitutions. */
function setHookChange(argv: readonly string[]): string | undefined {
  for (let i = 1; i < argv.length; i++) {
    const t = argv[i];
    if (t === '--' || !t.startsWith('-')) return undefined;
    if (/^-[a-zA-Z]*[TE]/.test(t.replace(/o.*$/, ''))) return VARIABLE_REASON.commandHook(`set ${t}`);
    if (t.endsWith('o') && /^(functrace|errtrace)$/.test(argv[i + 1] ?? '')) return VARIABLE_REASON.commandHook(`set -o ${argv[i + 1]}`);
  }
  return undefined;
}

/** `set -k`/`set -a` (and `-o keyword`/`-o allexport`): later `NAME=value` words reach programs' environments. */
function setOptionChange(argv: readonly string[], dynamic: readonly boolean[]): string | undefined {
  for (let i = 1; i < argv.length; i++) {
    const t = argv[i];
    if (dynamic[i]) return VARIABLE_REASON.shellOption(`set ${t}`);
    if (t === '--' || t === '-' || !/^[-+]/.test(t)) return undefined;
    if (t.startsWith('+')) {
      if (/o$/.test(t)) i++;
      continue;
    }
    if (/[ka]/.test(t.slice(1).replace(/o.*$/, ''))) return VARIABLE_REASON.shellOption(`set ${t}`);
    if (t.endsWith('o') && /^(keyword|allexport)$/.test(argv[i + 1] ?? '')) return VARIABLE_REASON.shellOption(`set -o ${argv[i + 1]}`);
    if (t.endsWith('o')) i++;
  }
  return undefined;
}

/**
 * The first sensitive name an arithmetic expression assigns (`PATH=1`, `PATH+=1`, `++PATH`, `PATH--`,
 * `PATH[0]=1`). Names the expression only reads are left alone: a value read as arithmetic can
 * itself assign, which the shape check (allowableShapes.ts) already refuses to auto-approve.
 */
export function arithmeticAssignment(expr: string): string | undefined {
  const re = /([A-Za-z_][A-Za-z0-9_]*)/g;
  for (let m = re.exec(expr); m; m = re.exec(expr)) {
    const name = m[1];
    if (!isSensitiveVariable(name)) continue;
    const before = expr.slice(0, m.index).replace(/\s+$/, '');
    let after = expr.slice(m.index + name.length).replace(/^\s+/, '');
    if (after.startsWith('[')) {
      const close = after.indexOf(']');
      after = close < 0 ? '' : after.slice(close + 1).replace(/^\s+/, '');
    }
    if (/(\+\+|--)$/.test(before) || /^(\+\+|--|<<=|>>=|[-+*/%&|^]?=(?!=))/.test(after)) return name;
  }
  return undefined;
}

/** Arithmetic contexts in the tree and the form each is reported as. */
function arithmeticForm(node: SyntaxNode, src: string): string | undefined {
  switch (node.type) {
    case 'arithmetic_expansion':
      return src.startsWith('$[', node.startIndex) ? '`$[ ]`' : '`$(( ))`';
    case 'compound_statement':
      return src[node.startIndex] === '(' ? '`(( ))`' : undefined;
    case 'c_style_for_statement':
      return '`for (( ))`';
    case 'subscript':
      return 'an array subscript';
    case 'test_command':
      return /\s-(eq|ne|lt|le|gt|ge)\s/.test(src.slice(node.startIndex, node.endIndex)) ? '`[[ ]]` arithmetic' : undefined;
    default:
      return undefined;
  }
}

/** Walks the tree (already bounded in depth by the shape check) for the syntax forms above. */
function treeVariableChange(node: SyntaxNode, src: string, tick: () => void): string | undefined {
  tick();
  // Sliced only where a form needs it: a 64 KiB line must not be copied once per node.
  const text = (): string => src.slice(node.startIndex, node.endIndex);
  switch (node.type) {
    case 'for_statement': {
      const variable = node.childForFieldName('variable');
      const keyword = node.child(0)?.type === 'select' ? 'select' : 'for';
      const name = variable ? src.slice(variable.startIndex, variable.endIndex) : '';
      if (watched(name)) return changeReason(name, `\`${keyword} ${name} in\``);
      if (isParsingLocaleName(name)) return localeCharsetReason(name);
      break;
    }
    case 'variable_assignment': {
      // A prefix of a command (`NAME=value cmd`) is the environment allowlist's business.
      if (node.parent?.type === 'command') break;
      const name = assignedName(text());
      if (name !== undefined && watched(name)) return changeReason(name, 'an assignment');
      if (name !== undefined && !parsesAsUtf8(name, text().slice(text().indexOf('=') + 1))) return localeCharsetReason(name);
      break;
    }
    case 'expansion': {
      const body = text();
      const m = /^\$\{([A-Za-z_][A-Za-z0-9_]*):?=/.exec(body);
      if (m && watched(m[1])) return changeReason(m[1], `\`\${${m[1]}:=…}\``);
      if (m && isParsingLocaleName(m[1])) return localeCharsetReason(m[1]);
      const inner = arithmeticAssignment(body.slice(2, -1).replace(/^[A-Za-z_][A-Za-z0-9_]*/, ''));
      if (inner) return VARIABLE_REASON.change(inner, 'arithmetic in a parameter expansion');
      break;
    }
    default: {
      const form = arithmeticForm(node, src);
      if (form) {
        const hit = arithmeticAssignment(text());
        if (hit) return VARIABLE_REASON.change(hit, form);
      }
    }
  }
  for (const child of node.namedChildren) {
    // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- web-tree-sitter builds namedChildren with unmarshalNode, which can return null, though its .d.ts says Node[]
    if (!child) continue;
    const r = treeVariableChange(child, src, tick);
    if (r) return r;
  }
  return undefined;
}

/** `{NAME}>file`, `{NAME}<&0`: bash stores the new descriptor's number in NAME (quote-blind, may over-ask). */
function fdVariableChange(src: string): string | undefined {
  const re = /(?:^|[\s;&|(){}])\{([A-Za-z_][A-Za-z0-9_]*)\}(?=[<>])/g;
  for (let m = re.exec(src); m; m = re.exec(src)) {
    if (watched(m[1])) return changeReason(m[1], `\`{${m[1]}}>\` redirection`);
  }
  return undefined;
}

/**
 * The first reason the line changes a variable that matters (see the header), or undefined. `tick`
 * is called for every node visited: the analysis's clock, which may throw to end a walk past its budget.
 */
export function findVariableChange(root: SyntaxNode, src: string, segments: readonly Segment[], tick: () => void = () => undefined): string | undefined {
  for (const seg of segments) {
    // tree-sitter gives a declaration's bare `variable_name` no static reading: a plain name is static.
    const dynamic = seg.argv.map((t, k) => (seg.dynamicArgs?.includes(k) ?? false) && !/^[A-Za-z_][A-Za-z0-9_]*$/.test(t));
    const r = argvVariableChange(seg.argv, dynamic);
    if (r) return r;
  }
  return treeVariableChange(root, src, tick) ?? fdVariableChange(src);
}
