// Per-program option specs as data: every option a program accepts, with its syntax (flag, value
// required, value optional) and its effect (plain, reads a path, writes a path, runs a program, reads
// a list of file names, …). An option a spec does not list makes the command ask: the specs are
// whitelists, and the parser (getopt.ts) reads each word with the program's own syntax.
//
// Options are written as in the programs' own `--help`, one line per option with its aliases:
//   '-o, --output=FILE @writes'   short and long, value required (the short form takes it too)
//   '-i[SUFFIX], --in-place[=SUFFIX] @inplace'   value optional (attached only)
//   '--color[=WHEN]'   long only, optional value; no `@effect` means plain
//   '-t SEP'           short only, value required
//   '--format=F (attached)'   the value must be attached (`--format=F`, never `--format F`)
// The canonical spelling of an option is its first long name, else its short one.

/** What an option (or its value) does. */
export type Effect =
  /** Changes only what is printed or how. */
  | 'plain'
  /** Its value is a path the program reads (checked against the workspace like an operand). */
  | 'reads'
  /** Its value is a path the program creates or replaces. */
  | 'writes'
  /** Makes the program rewrite its operands in place (`sed -i`). */
  | 'inplace'
  /** Its value names a program, or the option makes the program run one. */
  | 'runs'
  /** Its value is a file (or `-`, stdin) holding a list of file names to read: unseen paths. */
  | 'fileList'
  /** Its value is a file holding program text the analysis cannot see (`sed -f`, `awk -f`). */
  | 'script'
  /** Its value sets configuration that can name programs or files. */
  | 'config'
  /** Understood, but not something to approve without a person (`date --set`). */
  | 'ask';

export type ArgKind = 'none' | 'required' | 'optional';

export interface OptionDef {
  /** The canonical spelling: `--output`, or `-o` when there is no long name. */
  canonical: string;
  /** The short letter, when there is one. */
  short?: string;
  /** The long name (without `--`), when there is one. */
  long?: string;
  arg: ArgKind;
  /** A required value that must be attached (`--format=X`; git's revision options). */
  attachedOnly?: boolean;
  effect: Effect;
}

/** What a program's operands are. */
export type OperandKind =
  /** Paths it reads. */
  | 'reads'
  /** Not paths (text, names, numbers). */
  | 'none'
  /** The first is a pattern or program text unless an option gave one (`grep`, `sed`, `jq`); the rest are read. */
  | 'patternThenReads';

export interface ProgramSpec {
  name: string;
  /** Where the option list was read from (program, version, `--help`/man). */
  source: string;
  /** getopt_long: any unique prefix of a long option is that option. */
  prefixes: boolean;
  /** GNU permutation: options may follow operands (until `--`). */
  permute: boolean;
  /** `-20` (head, tail, grep's context) is a plain option. */
  numeric?: boolean;
  /** Long options may also be written with one dash (`-help`), as with jq and X programs. */
  singleDashLong?: boolean;
  /** `--` is an ordinary word, not the end of options (bash's `echo`). */
  noDoubleDash?: boolean;
  operands: OperandKind;
  /** Options that supply the pattern/program, so the first operand is a path again (`grep -e`). */
  patternGivenBy?: readonly string[];
  shorts: ReadonlyMap<string, OptionDef>;
  longs: ReadonlyMap<string, OptionDef>;
}

export interface SpecSource {
  name: string;
  source: string;
  prefixes?: boolean;
  permute?: boolean;
  numeric?: boolean;
  singleDashLong?: boolean;
  noDoubleDash?: boolean;
  operands: OperandKind;
  patternGivenBy?: readonly string[];
  options: readonly string[];
}

const EFFECTS: ReadonlySet<string> = new Set(['plain', 'reads', 'writes', 'inplace', 'runs', 'fileList', 'script', 'config', 'ask']);

/** Compiles one `--help`-style option line; throws on a malformed line (a spec bug, caught by its test). */
function compileLine(line: string): { shorts: string[]; longs: string[]; def: Omit<OptionDef, 'canonical'> & { canonical: string } } {
  let effect: Effect = 'plain';
  const shorts: string[] = [];
  const longs: string[] = [];
  let arg: ArgKind = 'none';
  let attachedOnly = false;
  for (const raw of line.split(/\s+/)) {
    const tok = raw.trim().replace(/,$/, '');
    if (tok === '') continue;
    if (tok === '(attached)') {
      attachedOnly = true;
      continue;
    }
    if (tok.startsWith('@')) {
      const e = tok.slice(1);
      if (!EFFECTS.has(e)) throw new Error(`unknown effect ${tok} in ${line}`);
      effect = e as Effect;
      continue;
    }
    let m = /^--([A-Za-z0-9][A-Za-z0-9_-]*)(\[=[^\]]*\]|=\S*)?$/.exec(tok);
    if (m) {
      longs.push(m[1]);
      const value = m.at(2);
      if (value?.startsWith('[')) arg = 'optional';
      else if (value !== undefined && arg === 'none') arg = 'required';
      continue;
    }
    m = /^-([^-\s])(\[[^\]]*\])?$/.exec(tok);
    if (m) {
      shorts.push(m[1]);
      if (m.at(2) !== undefined) arg = 'optional';
      continue;
    }
    if (!tok.startsWith('-')) {
      // A value name after a short-only option (`-t SEP`).
      if (arg === 'none') arg = 'required';
      continue;
    }
    throw new Error(`cannot read option spelling ${JSON.stringify(tok)} in ${JSON.stringify(line)}`);
  }
  if (shorts.length === 0 && longs.length === 0) throw new Error(`no option in ${JSON.stringify(line)}`);
  const short = shorts.at(0);
  const long = longs.at(0);
  const canonical = long !== undefined ? `--${long}` : `-${short ?? ''}`;
  return {
    shorts,
    longs,
    def: { canonical, ...(short !== undefined ? { short } : {}), ...(long !== undefined ? { long } : {}), arg, ...(attachedOnly ? { attachedOnly } : {}), effect },
  };
}

export function defineProgram(src: SpecSource): ProgramSpec {
  const shorts = new Map<string, OptionDef>();
  const longs = new Map<string, OptionDef>();
  for (const line of src.options) {
    const c = compileLine(line);
    for (const s of c.shorts) {
      if (shorts.has(s)) throw new Error(`-${s} listed twice in ${src.name}`);
      shorts.set(s, c.def);
    }
    for (const l of c.longs) {
      if (longs.has(l)) throw new Error(`--${l} listed twice in ${src.name}`);
      longs.set(l, c.def);
    }
  }
  return {
    name: src.name,
    source: src.source,
    prefixes: src.prefixes ?? true,
    permute: src.permute ?? true,
    ...(src.numeric ? { numeric: true } : {}),
    ...(src.singleDashLong ? { singleDashLong: true } : {}),
    ...(src.noDoubleDash ? { noDoubleDash: true } : {}),
    operands: src.operands,
    ...(src.patternGivenBy ? { patternGivenBy: src.patternGivenBy } : {}),
    shorts,
    longs,
  };
}
