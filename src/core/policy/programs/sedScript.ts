// A parser for GNU sed scripts (sed 4.9's grammar, checked against `sed --debug`, which prints the
// program it compiled): addresses (`N`, `$`, `first~step`, `/re/` and `\cREc` with `I`/`M` flags,
// `addr1,+N`, `addr1,~N`, `0,/re/`, `!`), `{ }` blocks, `a`/`i`/`c` text in the one-line and the
// classic forms, `s` with any delimiter, escapes and flags (`g`, `p`, `N`, `i`/`I`, `m`/`M`, `e`,
// `w FILE`), `y`, `e`, `r`, `R`, `w`, `W`, `F`, `z`, `l`, `q`/`Q` with an exit code, `b`/`t`/`T`
// labels, `:label`, `=`, `v`, comments. What it reports: the commands, the files read and written,
// whether a command is run. A script it cannot read is an error (the command asks).

export interface SedScript {
  /** Command letters in order (`s`, `p`, `{`, …). */
  commands: string[];
  /** `e` commands and `s///e`: the script runs shell commands. */
  runs: boolean;
  /** Files `w`, `W` and `s///w` write (`/dev/stdout` and `/dev/stderr` are output, not files). */
  writes: string[];
  /** Files `r` and `R` read. */
  reads: string[];
  error?: string;
}

const SIMPLE = new Set(['=', 'd', 'D', 'F', 'g', 'G', 'h', 'H', 'n', 'N', 'p', 'P', 'x', 'z']);
const SPECIAL_OUTPUT = new Set(['/dev/stdout', '/dev/stderr']);

class SedError extends Error {}

/** Characters of a `y` string: an escaped character counts once. */
function charCount(s: string): number {
  return s.replace(/\\[\s\S]/g, '.').length;
}

export function parseSedScript(text: string): SedScript {
  const out: SedScript = { commands: [], runs: false, writes: [], reads: [] };
  let i = 0;
  let depth = 0;
  const peek = (): string | undefined => text[i];
  const fail = (why: string): never => {
    throw new SedError(`${why} at character ${i + 1}`);
  };
  const isBlank = (c: string | undefined): boolean => c === ' ' || c === '\t';
  const skipBlanks = (): void => {
    while (isBlank(peek())) i++;
  };
  /** Text up to the end of the line (filenames, `e` commands, labels after `:`). */
  const restOfLine = (): string => {
    const nl = text.indexOf('\n', i);
    const end = nl < 0 ? text.length : nl;
    const s = text.slice(i, end);
    i = end;
    return s;
  };
  /** The end of a command: blanks, then `;`, newline, end, `}` or `#` (the last two left for the loop). */
  const endOfCommand = (): void => {
    skipBlanks();
    const c = peek();
    if (c === undefined || c === '\n' || c === ';') {
      if (c !== undefined) i++;
      return;
    }
    if (c === '}' || c === '#') return;
    fail(`extra characters after command (\`${c}\`)`);
  };
  /** The end (exclusive) of the bracket expression opening at `text[at]` (`[`), or -1 when unterminated. */
  const bracketEnd = (at: number): number => {
    let j = at + 1;
    if (text[j] === '^') j++;
    if (text[j] === ']') j++;
    while (j < text.length && text[j] !== '\n') {
      const c = text[j];
      if (c === '[' && (text[j + 1] === ':' || text[j + 1] === '.' || text[j + 1] === '=')) {
        const close = text.indexOf(`${text[j + 1]}]`, j + 2);
        if (close >= 0 && !text.slice(j + 2, close).includes('\n')) {
          j = close + 2;
          continue;
        }
      }
      if (c === ']') return j + 1;
      j++;
    }
    return -1;
  };
  /**
   * Text up to the unescaped delimiter `d` (the delimiter is consumed). In a regular expression the
   * delimiter does not end it inside a bracket expression (`s/[/]/x/`), as GNU sed reads it.
   */
  const delimited = (d: string, regex = false): string => {
    let s = '';
    for (;;) {
      const c = peek();
      if (c === undefined || c === '\n') fail('unterminated regular expression or replacement');
      if (regex && c === '[') {
        const end = bracketEnd(i);
        if (end < 0) fail('unterminated bracket expression');
        s += text.slice(i, end);
        i = end;
        continue;
      }
      i++;
      if (c === d) return s;
      if (c === '\\') {
        const n = peek();
        if (n === undefined) fail('unterminated regular expression or replacement');
        i++;
        s += `\\${n}`;
        continue;
      }
      s += c;
    }
  };
  const regexAddress = (d: string | undefined): void => {
    if (d === undefined || d === '\n' || d === '\\') return fail('bad regular expression delimiter');
    delimited(d, true);
    for (;;) {
      skipBlanks();
      const f = peek();
      if (f === 'I' || f === 'M') i++;
      else return;
    }
  };
  const number = (): boolean => {
    const m = /^\d+/.exec(text.slice(i));
    if (!m) return false;
    i += m[0].length;
    return true;
  };
  /** One address; false when there is none here. */
  const address = (second: boolean): boolean => {
    const c = peek();
    if (c === '/') {
      i++;
      regexAddress('/');
      return true;
    }
    if (c === '\\') {
      i++;
      const d = peek();
      i++;
      regexAddress(d);
      return true;
    }
    if (c === '$') {
      i++;
      return true;
    }
    if (second && (c === '+' || c === '~')) {
      i++;
      if (!number()) fail(`expected a number after \`${c}\``);
      return true;
    }
    if (number()) {
      skipBlanks();
      if (!second && peek() === '~') {
        i++;
        skipBlanks();
        if (!number()) fail('expected a step after `~`');
      }
      return true;
    }
    return false;
  };
  const label = (): void => {
    skipBlanks();
    while (i < text.length && !/[;\n\s]/.test(text[i])) i++;
    endOfCommand();
  };
  /** `a`, `i`, `c` text: `a\` NEWLINE lines, or GNU's one-line `a text`; backslash-newline continues. */
  const appendText = (): void => {
    skipBlanks();
    if (peek() === '\\') {
      i++;
      if (peek() === '\n') i++;
      else skipBlanks();
    }
    for (;;) {
      const c = peek();
      if (c === undefined) return;
      i++;
      if (c === '\\') {
        i++; // the escaped character, a newline included
        continue;
      }
      if (c === '\n') return;
    }
  };
  const substituteFlags = (): void => {
    for (;;) {
      const f = peek();
      if (f === undefined) return;
      if (f === 'g' || f === 'p' || f === 'i' || f === 'I' || f === 'm' || f === 'M' || isBlank(f) || /\d/.test(f)) {
        i++;
        continue;
      }
      if (f === 'e') {
        out.runs = true;
        i++;
        continue;
      }
      if (f === 'w') {
        i++;
        skipBlanks();
        const file = restOfLine();
        if (file === '') fail('missing filename in `s///w`');
        if (!SPECIAL_OUTPUT.has(file)) out.writes.push(file);
        return;
      }
      if (f === ';' || f === '\n') {
        i++;
        return;
      }
      if (f === '}' || f === '#') return;
      fail(`unknown option to \`s\` (\`${f}\`)`);
    }
  };

  try {
    for (;;) {
      while (i < text.length && (isBlank(text[i]) || text[i] === '\n' || text[i] === ';')) i++;
      if (i >= text.length) break;
      if (peek() === '#') {
        restOfLine();
        continue;
      }
      let addresses = 0;
      if (address(false)) {
        addresses = 1;
        skipBlanks();
        if (peek() === ',') {
          i++;
          skipBlanks();
          if (!address(true)) fail('unexpected `,`');
          addresses = 2;
        }
      }
      skipBlanks();
      if (peek() === '!') {
        i++;
        skipBlanks();
        if (peek() === '!') fail('multiple `!`s');
      }
      const cmd = peek();
      if (cmd === undefined) fail('missing command');
      if ((cmd === ':' || cmd === '}') && addresses > 0) fail(`\`${cmd}\` takes no address`);
      if ((cmd === 'q' || cmd === 'Q') && addresses > 1) fail(`\`${cmd}\` takes one address`);
      i++;
      out.commands.push(cmd as string);
      if (SIMPLE.has(cmd as string)) {
        endOfCommand();
      } else if (cmd === '{') {
        depth++;
      } else if (cmd === '}') {
        if (depth === 0) fail('unexpected `}`');
        depth--;
        endOfCommand();
      } else if (cmd === 'a' || cmd === 'i' || cmd === 'c') {
        appendText();
      } else if (cmd === ':') {
        skipBlanks();
        if (peek() === undefined || /[;\n]/.test(peek() as string)) fail('`:` lacks a label');
        label();
      } else if (cmd === 'b' || cmd === 't' || cmd === 'T') {
        label();
      } else if (cmd === 'l' || cmd === 'L' || cmd === 'q' || cmd === 'Q') {
        skipBlanks();
        number();
        endOfCommand();
      } else if (cmd === 'v') {
        label();
      } else if (cmd === 'e') {
        out.runs = true;
        skipBlanks();
        restOfLine();
      } else if (cmd === 'r' || cmd === 'R' || cmd === 'w' || cmd === 'W') {
        skipBlanks();
        const file = restOfLine();
        if (file === '') fail(`missing filename for \`${cmd}\``);
        if (cmd === 'r' || cmd === 'R') {
          if (file !== '/dev/stdin') out.reads.push(file);
        } else if (!SPECIAL_OUTPUT.has(file)) {
          out.writes.push(file);
        }
      } else if (cmd === 's') {
        const d = peek();
        if (d === undefined || d === '\n' || d === '\\') fail('bad delimiter for `s`');
        i++;
        delimited(d as string, true);
        delimited(d as string);
        substituteFlags();
      } else if (cmd === 'y') {
        const d = peek();
        if (d === undefined || d === '\n' || d === '\\') fail('bad delimiter for `y`');
        i++;
        if (charCount(delimited(d as string)) !== charCount(delimited(d as string))) fail('strings for `y` are different lengths');
        endOfCommand();
      } else {
        fail(`unknown command \`${cmd as string}\``);
      }
    }
    if (depth > 0) fail('unmatched `{`');
  } catch (err) {
    if (!(err instanceof SedError)) throw err;
    out.error = err.message;
  }
  return out;
}
