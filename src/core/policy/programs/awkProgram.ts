// A conservative reader of awk program text: it tokenizes (strings, regular expressions, comments,
// words, operators) and reports what an awk program can do besides printing: run commands
// (`system()`, pipes `|` and `|&`), read or write files (`getline`, output redirection `>`/`>>` in a
// `print`/`printf` statement, `ARGV`/`ARGC`), read the environment (`ENVIRON`, `PROCINFO`), load code (`@load`, `@include`). The regex/division choice follows
// awk's own rule (a `/` after an operand divides); a program it cannot tokenize is reported too.

export interface AwkFinding {
  /** The program runs shell commands (`system()`, a pipe). */
  runs?: boolean;
  /** What else makes the program more than a printer (it reads or writes files, loads code, cannot be read). */
  risk?: string;
}

const OPERAND_END = /^(?:[A-Za-z_][A-Za-z0-9_]*|[0-9][0-9.eE+-]*|\)|\]|"|\$)$/;
const KEYWORDS_BEFORE_REGEX = new Set(['print', 'printf', 'return', 'in', 'case', 'getline']);

export function readAwkProgram(text: string): AwkFinding {
  let i = 0;
  let prev = ''; // the previous significant token
  let inPrint = false;
  let depth = 0;
  const n = text.length;
  while (i < n) {
    const c = text[i];
    if (c === ' ' || c === '\t' || c === '\r') {
      i++;
      continue;
    }
    if (c === '\\' && text[i + 1] === '\n') {
      i += 2;
      continue;
    }
    if (c === '\n' || c === ';' || c === '{' || c === '}') {
      if (c !== '{' || depth === 0) inPrint = false;
      prev = c;
      i++;
      continue;
    }
    if (c === '#') {
      while (i < n && text[i] !== '\n') i++;
      continue;
    }
    if (c === '"') {
      i++;
      while (i < n && text[i] !== '"') {
        if (text[i] === '\\') i++;
        else if (text[i] === '\n') return { risk: 'cannot be read (an unterminated string)' };
        i++;
      }
      if (i >= n) return { risk: 'cannot be read (an unterminated string)' };
      i++;
      prev = '"';
      continue;
    }
    if (c === '/' && !(OPERAND_END.test(prev) && !KEYWORDS_BEFORE_REGEX.has(prev))) {
      // A regular expression: up to the unescaped `/` (brackets may hold `/`).
      i++;
      let bracket = false;
      while (i < n && (bracket || text[i] !== '/')) {
        if (text[i] === '\\') i++;
        else if (text[i] === '[') bracket = true;
        else if (text[i] === ']') bracket = false;
        else if (text[i] === '\n') return { risk: 'cannot be read (an unterminated regular expression)' };
        i++;
      }
      if (i >= n) return { risk: 'cannot be read (an unterminated regular expression)' };
      i++;
      prev = '"';
      continue;
    }
    if (/[A-Za-z_@]/.test(c)) {
      let j = i + 1;
      while (j < n && /[A-Za-z0-9_:]/.test(text[j])) j++;
      const word = text.slice(i, j);
      i = j;
      if (word.startsWith('@')) return { risk: `loads other code (\`${word}\`)` };
      if (word === 'system') return { runs: true };
      if (word === 'getline') return { risk: 'reads files or runs commands (`getline`)' };
      // `ARGV[1] = "../x"; ARGC = 2` changes the files it reads; ENVIRON holds the parent's secrets.
      if (word === 'ARGV' || word === 'ARGC') return { risk: `changes or reads the list of files it opens (\`${word}\`)` };
      if (word === 'ENVIRON' || word === 'PROCINFO') return { risk: `reads the environment (\`${word}\`)` };
      if (word === 'print' || word === 'printf') {
        inPrint = true;
        depth = 0;
      }
      prev = word;
      continue;
    }
    if (/[0-9.]/.test(c)) {
      let j = i + 1;
      while (j < n && /[0-9.eE]/.test(text[j])) j++;
      i = j;
      prev = '0';
      continue;
    }
    if (c === '|') {
      if (text[i + 1] === '|') {
        i += 2;
        prev = '||';
        continue;
      }
      return { runs: true };
    }
    if (c === '(' || c === '[') depth++;
    if (c === ')' || c === ']') depth = Math.max(0, depth - 1);
    if (c === '>' && inPrint && depth === 0) return { risk: 'writes a file (`print >`)' };
    prev = c;
    i++;
  }
  return {};
}
