import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { PolicyRule, RuleLayer, ShellAnalyzer } from '../../../../src/core/contracts';
import { BUILTIN_LAYER_SOURCE, BUILTIN_RULES } from '../../../../src/core/policy/rules/builtinRules';
import { decide } from '../../../../src/core/policy/policy';
import { withEnvRisk } from '../../../../src/core/policy/policyGate';
import { createShellAnalyzer } from '../../../../src/core/policy/analysis/shellAnalysis';
import { TEST_EXPANDER } from '../../core/policy/testExpander';

// Red-team classes found against the built-in read-only list (no user rules): each class is tried in
// several spellings, each asserted exactly, beside the everyday forms of the same programs that
// must stay allowed.
describe('core/policy red team: built-in list', () => {
  let analyzer: ShellAnalyzer;
  let ws: string;
  let secret: string;
  const layers: RuleLayer[] = [{ layer: 'builtin', source: BUILTIN_LAYER_SOURCE, rules: [...BUILTIN_RULES] }];
  before(async () => {
    analyzer = await createShellAnalyzer();
    ws = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-bash-redteam-'));
    fs.writeFileSync(path.join(ws, 'canary'), 'alive\n');
    fs.writeFileSync(path.join(ws, 'README.md'), '# readme\n');
    fs.mkdirSync(path.join(ws, 'src'));
    fs.mkdirSync(path.join(ws, '.vscode'));
    fs.writeFileSync(path.join(ws, '.vscode', 'settings.json'), '{}\n');
    fs.writeFileSync(path.join(ws, 'src', 'x.ts'), 'export const foo = 1;\n');
    fs.symlinkSync('/etc', path.join(ws, 'link'));
    // Two folders to compare; the second holds links to a folder and a file outside the workspace.
    secret = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-bash-redteam-secret-'));
    fs.writeFileSync(path.join(secret, 'key'), 'SECRET\n');
    fs.mkdirSync(path.join(ws, 'old', 'k'), { recursive: true });
    fs.writeFileSync(path.join(ws, 'old', 'kf'), 'other\n');
    fs.mkdirSync(path.join(ws, 'new'));
    fs.symlinkSync(secret, path.join(ws, 'new', 'k'));
    fs.symlinkSync(path.join(secret, 'key'), path.join(ws, 'new', 'kf'));
    fs.mkdirSync(path.join(ws, 'plainA'));
    fs.mkdirSync(path.join(ws, 'plainB'));
    fs.writeFileSync(path.join(ws, 'plainA', 'f'), 'a\n');
    fs.writeFileSync(path.join(ws, 'plainB', 'f'), 'b\n');
  });
  after(() => {
    fs.rmSync(ws, { recursive: true, force: true });
    fs.rmSync(secret, { recursive: true, force: true });
  });
  const run = (command: string, rules: RuleLayer[] | PolicyRule[] = layers) =>
    decide(analyzer.analyze(command), rules, { cwd: ws, workspaceRoots: [ws], expander: TEST_EXPANDER });
  const expectAll = (lines: readonly string[], decision: 'allow' | 'prompt' | 'deny', rules?: RuleLayer[] | PolicyRule[]) => {
    for (const line of lines) {
      const d = run(line, rules);
      assert.equal(d.decision, decision, `${JSON.stringify(line)}: ${d.reason}`);
    }
  };

  describe('descriptor devices reopen the file a redirection put on the descriptor', () => {
    // `/dev/stdout`, `/dev/stderr`, `/dev/stdin`, `/dev/fd/N` are opened again by path: after
    // `1<canary`, `>/dev/stdout` opens `canary` for writing and truncates it.
    it('asks when another redirection of the command opens a file, or for /dev/fd/N above 2', () => {
      expectAll(
        [
          'echo PWN 1<canary >/dev/stdout',
          'echo PWN 2<canary 2>/dev/stderr',
          'ls 0<canary 2>/dev/stdin',
          'cat README.md 0<canary >/dev/fd/0',
          'echo hi 5<canary >/dev/fd/5',
          'cat README.md 4<canary >>/dev/fd/4',
          'echo x < canary > /dev/stdin',
          'echo x >/dev/fd/7',
          'echo x 1<canary >|/dev/stdout',
          'echo x 2<canary &>/dev/stderr',
        ],
        'prompt',
      );
    });
    it('a rule with allowRedirects still asks before such a write reaches a protected path', () => {
      const rules: PolicyRule[] = [{ match: 'echo *', approval: 'allow', allowRedirects: true }];
      const d = run('echo {} 1<.vscode/settings.json >/dev/stdout', rules);
      assert.equal(d.decision, 'prompt', d.reason);
      assert.equal(d.kind, 'critical', d.reason);
    });
    it('everyday device redirections stay allowed', () => {
      expectAll(
        ['ls -la 2>/dev/null', 'grep -rn foo src 2>/dev/null | head -20', 'ls >/dev/stderr 2>&1', 'echo hi >&2', 'cat README.md > /dev/null', 'cat canary | echo x >/dev/stdin', 'cat <<< x >/dev/stdout'],
        'allow',
      );
    });
  });

  describe('package-manager read forms name a package npm fetches from a folder, a file, git or a URL', () => {
    // `npm view ../dir` prints the package.json of a folder outside the workspace; `user/repo` and
    // `git+…` clone with git; `file:x.tgz` and `http…` read or download a tarball.
    it('asks for every spec that is not a registry name', () => {
      expectAll(
        [
          'npm view ../secret', 'npm view /etc', 'npm view .', 'npm info ./', 'npm show ~/pkg', 'npm v file:../x.tgz',
          'npm view git+file:///tmp/x', 'npm view git+ssh://git@github.com/x/y', 'npm view github:x/y', 'npm view x/y',
          'npm view http://example.com/x.tgz', 'npm view react ../dir', 'npm outdated ../dir', 'npm ls ../dir', 'npm explain ../dir',
          'yarn info ../secret', 'yarn why file:../x', 'pnpm why ../x', 'npm view "$P"',
        ],
        'prompt',
      );
    });
    it('registry names, versions, tags and fields stay allowed', () => {
      expectAll(
        [
          'npm view react', 'npm view react version', 'npm view @types/node versions --json', 'npm view react@18 dependencies',
          'npm view react@latest dist.tarball', "npm view 'react@>=17 <19' version", 'npm info lodash', 'npm ls', 'npm ls react',
          'npm outdated', 'npm why react', 'npm explain @types/node', 'npm config get registry', 'npm config get @myscope:registry',
        ],
        'allow',
      );
    });
  });

  describe('a pathname pattern reads the directories it lists, whatever the program does with the names', () => {
    // `echo ~/.ssh/*` lists a folder outside as surely as `ls ~/.ssh`: bash read it to make the words.
    it('asks when a pattern in a text operand matches (or names) something outside the workspace', () => {
      expectAll(
        [
          'echo link/*', 'echo /etc/*', 'echo ~/.ssh/*', 'echo ~/*', "printf '%s\\n' ~/.ssh/*", 'printf %s link/p*', 'echo ../*',
          'echo link/passw[d]', 'echo [l]ink/*', 'echo l*/*', 'echo /e*/pass*', 'echo /proc/*/environ', 'echo -n link/*',
          'basename link/*', 'dirname /etc/*', 'type link/*', 'which link/*', 'echo */passwd',
        ],
        'prompt',
      );
    });
    it('asks for a pattern in a for/select word list (its words are not judged as paths)', () => {
      expectAll(
        ['for f in link/*; do echo $f; done', 'for f in ~/.ssh/*; do echo "$f"; done', 'select f in /etc/*; do echo $f; done', 'for f in a l?nk/[p]*; do echo $f; done', 'for f in */passwd; do echo $f; done'],
        'prompt',
      );
    });
    it('patterns inside the workspace stay allowed', () => {
      expectAll(['for f in a "b" c; do echo $f; done', 'for i in {1..3}; do echo $i; done', "for f in 'x*'; do echo $f; done"], 'allow');
      expectAll(['echo *.md', 'echo src/*', 'printf "%s\\n" src/*.ts', 'basename src/*.ts', 'echo *.none', 'ls src/*.ts', 'echo {a,b}', 'echo ~'], 'allow');
    });
  });

  describe('diff reads through the links inside a directory operand', () => {
    // `diff old new` compares `new/kf` (a link to a file outside) and prints its lines; with `-r` it
    // also walks `new/k` (a link to a folder outside). Only `--no-dereference` compares the links.
    it('asks when a directory operand holds a link that leads outside, in every spelling', () => {
      expectAll(
        ['diff old new', 'diff -r old new', 'diff -rq old new', 'diff --recursive old new', 'diff --recur old new', 'diff -Nru old new', 'diff -r -- old new', 'diff --from-file=old new', 'diff -r new --to-file=old', 'diff -r . plainA'],
        'prompt',
      );
    });
    it('files, folders without such links and --no-dereference stay allowed', () => {
      expectAll(['diff README.md canary', 'diff -u README.md canary', 'diff -r plainA plainB', 'diff -ru plainA plainB', 'diff -r --no-dereference old new', 'diff --no-deref -r old new'], 'allow');
    });
  });

  describe('readers that run a decompressor', () => {
    // `file -z` looks inside compressed files; for formats libmagic does not read itself it runs the
    // decompressor found on PATH (`lz4 -cd`, `zstd -cd`), as `rg -z` does.
    it('asks for file -z/-Z in every spelling', () => {
      expectAll(['file -z README.md', 'file -Z README.md', 'file --uncompress README.md', 'file --uncompress-n README.md', 'file -bz README.md', 'file -zb README.md', 'file -Lz README.md', 'rg -z foo', 'rg --search-zip foo'], 'prompt');
    });
    it('file without them stays allowed', () => {
      expectAll(['file README.md', 'file -b README.md', 'file --mime-type README.md', 'file -L README.md', 'file -i src/x.ts'], 'allow');
    });
  });

  describe('inert environment names with a value that names a file', () => {
    // glibc opens `TZ=/x`, `TZ=:/x` and `TZ=../../x` (under the zoneinfo folder) as a time-zone file,
    // and reads a locale from a folder named by `LC_*`/`LANG`; a value known only at run time may be either.
    it('asks for such values in a prefix, behind env, and in the env parameter', () => {
      expectAll(
        ['TZ=/etc/passwd date', 'TZ=:/etc/shadow date', "TZ=':/x' date", 'TZ="../../../x" date', 'TZ=~/x date', 'TZ=$Z date', 'LC_ALL=/tmp/x ls', 'LANG=/x ls', 'LANGUAGE=en:/x ls', 'TERM=/x ls', 'env TZ=/etc/localtime date', 'env LC_ALL=/x ls'],
        'prompt',
      );
      const allowed = run('date');
      assert.equal(allowed.decision, 'allow', allowed.reason);
      const risky: Array<Record<string, string>> = [{ TZ: '/etc/passwd' }, { TZ: ':../../x' }, { LC_ALL: '/tmp/x' }];
      for (const env of risky) assert.equal(withEnvRisk(allowed, env).decision, 'prompt', JSON.stringify(env));
      assert.equal(withEnvRisk(allowed, { TZ: 'Europe/Paris', LC_ALL: 'C.UTF-8', LANG: 'en_US.UTF-8' }).decision, 'allow');
    });
    it('names and zones stay allowed', () => {
      expectAll(['TZ=UTC date', 'TZ=America/New_York date', 'TZ=:Europe/Paris date', 'TZ=UTC0 date +%s', 'LC_ALL=C ls', 'LC_ALL=C.UTF-8 sort README.md', 'LANG=en_US.UTF-8 ls', 'LANGUAGE=en:de ls', 'TERM=xterm-256color ls', 'env LC_ALL=C grep foo README.md'], 'allow');
    });
  });

  describe('date: operands that set the clock, date strings that name a time-zone file', () => {
    // `date 0101000020` sets the system clock when the process may (root, CAP_SYS_TIME);
    // `date -d 'TZ="/x" now'` opens /x (strace), and so may every line of a `-f` file.
    it('asks for a clock-setting operand, a TZ="file" date string and -f, in every spelling', () => {
      expectAll(
        [
          'date 0101000020', 'date 010100002020.30', 'date -u 0101000020', 'date -- 0101000020', 'date +%s 0101000020',
          `date -d 'TZ="/etc/passwd" now'`, `date -d 'TZ="../../../x" now'`, `date --date='TZ=":/x" now'`, `date -d'TZ="/x"'`,
          `date --da='TZ="/x" now'`, `date -ud 'TZ="/x"'`, 'date -d "$D"', 'date -f README.md', 'date --file=README.md', 'date -fREADME.md',
        ],
        'prompt',
      );
    });
    it('printing forms stay allowed', () => {
      expectAll(['date', 'date +%s', "date '+%Y-%m-%d'", 'date -u +%Y-%m-%dT%H:%M:%SZ', 'date -d yesterday +%F', 'date -d @1700000000', `date -d 'TZ="Europe/Paris" 2020-01-01'`, 'date -r README.md', 'date --iso-8601=seconds', 'date -R'], 'allow');
    });
  });

  describe('git reads a repository nested inside the workspace', () => {
    // A nested repository's config is not guarded like the workspace's `.git/config`, and names
    // programs the read forms run: `diff.external` (git diff) and `filter.x.clean` (git status) ran
    // `touch` in a nested repository under `git -C nested diff` and `git -C nested status`.
    let outer: string;
    before(() => {
      fs.mkdirSync(path.join(ws, 'vendor', 'pkg', '.git'), { recursive: true });
      fs.mkdirSync(path.join(ws, 'vendor', 'pkg', 'lib'));
      // A workspace whose `.git` file points inside itself (not at a git directory the editor guards).
      outer = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-bash-redteam-gitfile-'));
      fs.mkdirSync(path.join(outer, 'inner', 'gd'), { recursive: true });
      fs.writeFileSync(path.join(outer, '.git'), 'gitdir: inner/gd\n');
    });
    after(() => fs.rmSync(outer, { recursive: true, force: true }));
    const inCwd = (command: string, cwd: string, roots: string[]) => decide(analyzer.analyze(command), layers, { cwd, workspaceRoots: roots, expander: TEST_EXPANDER });

    it('asks for every way of landing in the nested repository', () => {
      expectAll(
        ['git -C vendor/pkg diff', 'git -C vendor/pkg status', 'git -Cvendor/pkg log -p', 'git -C vendor -C pkg show', 'git -C vendor/pkg/lib diff', 'git -C src -C ../vendor/pkg status', 'git --git-dir=vendor/pkg/.git log', 'git --work-tree=vendor/pkg status', 'git --git-dir .git log'],
        'prompt',
      );
      for (const cwd of [path.join(ws, 'vendor', 'pkg'), path.join(ws, 'vendor', 'pkg', 'lib')]) {
        const d = inCwd('git status', cwd, [ws]);
        assert.equal(d.decision, 'prompt', d.reason);
      }
      assert.equal(inCwd('git diff', outer, [outer]).decision, 'prompt');
    });
    it('the workspace repository, and one outside the workspace, stay allowed', () => {
      expectAll(['git status', 'git log --oneline -5', 'git -C src status', 'git diff --stat', 'git -C vendor ls-files'], 'allow');
      assert.equal(inCwd('git status', path.join(ws, 'src'), [path.join(ws, 'src')]).decision, 'allow', 'the repository above the workspace root is not the agent\'s to write');
    });
  });

  describe('brace lists and patterns that change how many words a program gets', () => {
    // The spec judged the words as written; bash's brace and pathname expansion turn one written
    // word into several, so a position with a meaning moves: `uniq a.txt{,}` is `uniq a.txt a.txt`
    // (the second operand is uniq's output: strace showed a.txt truncated), `uniq ?1.txt` with two
    // matches writes the second.
    before(() => {
      fs.writeFileSync(path.join(ws, 'u1.txt'), 'a\na\n');
      fs.writeFileSync(path.join(ws, 'v1.txt'), 'b\n');
    });
    it('asks when the expanded words make a writer', () => {
      expectAll(['uniq README.md{,}', 'uniq -- README.md{,.out}', 'uniq -c {README.md,out}', 'uniq ?1.txt', 'uniq -c [uv]1.txt', 'uniq -- *1.txt', 'uniq -c {u1,v1}.txt'], 'prompt');
    });
    it('expanded words that stay readers are allowed', () => {
      expectAll(['uniq u?.txt', 'uniq -c README.md', 'cat {README.md,canary}', 'head -n 2 *1.txt', 'grep -n foo src/{x,y}.ts', 'wc -l *.txt'], 'allow');
    });
  });

  describe('git pretty formats that verify signatures', () => {
    // `%G?`, `%GS`, `%GK`, … make git verify each signed commit's signature, as `--show-signature`
    // does: strace showed `git log --format=%G?` exec /usr/bin/gpg (and write /tmp/.git_vtag_tmp*)
    // on a commit with a `gpgsig` header.
    it('asks for every signature placeholder and spelling', () => {
      expectAll(
        ['git log --format=%G?', 'git log --format=%GS', "git log --pretty='format:%h %GK'", 'git log --pretty=tformat:%GG', 'git show -s --format=%+GF', 'git log --pretty=%GP', "git log '--format=%h %-GT'", 'git log --oneline --format="% G?"'],
        'prompt',
      );
    });
    it('other placeholders, and a literal %G, stay allowed', () => {
      expectAll(['git log --format=%H', "git log --pretty='format:%h %an %s'", 'git log --format=%%G?', 'git show -s --format=%ad', 'git log --pretty=oneline', 'git log --format="%C(yellow)%h%Creset %s"'], 'allow');
    });
  });

  describe('unquoted expansions in option values and patterns split into several words', () => {
    // A value bash only knows at run time was trusted as one word where it is not a path (an
    // option's value, grep's or rg's pattern, a find primary's value); unquoted, bash splits it (and
    // globs the pieces), so it can carry options: under strace `f=' -o pwned'; sort -t ,$f a.txt`,
    // `git log --author=x$f` (f=' --output=pwned'), `find . -name x$f` (f=' -fprint pwned') and
    // `uniq -f 1$f` (f=' a.txt pwned') all wrote `pwned`.
    it('asks for an unquoted expansion where a word is not a path', () => {
      expectAll(
        [
          "f=' -o pwned'; sort -t ,$f README.md", "f=' -opwned'; sort -k 1$f README.md", "f=' -o pwned'; sort --key=1$f README.md",
          "f=' --output=pwned'; git log --author=x$f", "f=' --output=pwned'; git log -n 1$f", "f='x --output=pwned'; git log -S x$f",
          "f=' -fprint pwned'; find . -name x$f", "f=' -delete'; find . -path ./x$f", "f=' README.md pwned'; uniq -f 1$f",
          "f=' --pre=./x.sh'; rg a$f README.md", 'rg ${PATTERN} src', "f=' -D main'; git branch --list x$f", 'sort -t `printf ,` README.md',
          "f=' --rawfile x /etc/passwd'; jq --arg k v$f . README.md",
        ],
        'prompt',
      );
    });
    it('quoted expansions stay one word and stay allowed', () => {
      expectAll(["f=','; sort -t \"$f\" README.md", 'sort -k "1$n" README.md', "git log --author=\"$USER\"", "find . -name \"$n\"", "jq --arg k \"$v\" . README.md", "sort -t $',' README.md"], 'allow');
      // Programs that read no paths and whose options only shape output: the pieces are inert.
      expectAll(["printf '%s\\n' $HOME", 'dirname $PWD', "tr -d $'\\r'"], 'allow');
    });
  });

  describe('a pattern made with an expansion, or an unquoted expansion nobody can know, reads directories anywhere', () => {
    // The fuzzer's find (seed 1132478019): `$x` unset, bash matched `keys/*` and listed the folder the
    // link leads to. A value a persistent shell kept from an earlier call does the same for `echo $x`.
    it('asks when a pattern holds an expansion, quoted or not, in any word', () => {
      expectAll(
        ["echo `ls` & echo $(printf '%s\\n' keys/${x}*) || echo $(echo a\"b\"c)", 'echo keys/${x}*', 'echo keys/$x*', 'echo "$x"keys/*', 'echo ${x}keys/*', 'echo $HOME/*', 'echo $(echo keys)/*', 'echo `echo keys`/*', 'echo {$x,keys}/*', '[ -e keys/$x* ]'],
        'prompt',
      );
    });

    it('asks for an unquoted expansion whose value an earlier call could have set', () => {
      expectAll(["x='keys/*'; echo $x", 'echo $x', 'type -t $f', 'echo $(printf keys/*)', 'for f in $x; do echo "$f"; done', "for f in 'keys/*'; do echo $f; done", 'for f in a; do f=keys/x; echo $f; done', 'echo $OLDPWD'], 'prompt');
    });

    it('keeps quoted expansions, `$?`-like specials, restored variables and plain loop words allowed', () => {
      expectAll(['echo "$x"', 'echo "a $x b"', 'echo $? $# $$', "printf '%s\\n' $HOME $PATH", 'for f in a "b" c; do echo $f; done', 'echo "$(ls)"', '[[ -f $x ]] && echo y', 'echo $((1+2))'], 'allow');
    });
  });

  describe('jq loads a module by name', () => {
    // `modulemeta` reads a module from jq's search path like `import` does: strace showed
    // `jq -n '"a" | modulemeta'` stat `~/.jq/a.jq` and `~/.jq/a/a.jq`.
    it('asks for modulemeta as for import and include', () => {
      expectAll(['jq -n \'"a" | modulemeta\'', 'jq -n \'"x"|modulemeta|.deps\'', 'jq -n \'import "a" as a; 1\''], 'prompt');
      expectAll(['jq -r .name package.json', 'jq -n \'"module" | length\''], 'allow');
    });
  });

  describe('git reads a bare repository inside the workspace', () => {
    // git takes a directory that is itself a git directory (HEAD, objects/, refs/) as a bare
    // repository, with no `.git` entry: `git -C evil.git log -p` ran the `diff.x.textconv` of
    // `evil.git/config` (with `* diff=x` in `evil.git/info/attributes`) under strace.
    before(() => {
      for (const d of ['objects', 'refs', 'info']) fs.mkdirSync(path.join(ws, 'evil.git', d), { recursive: true });
      fs.writeFileSync(path.join(ws, 'evil.git', 'HEAD'), 'ref: refs/heads/main\n');
      fs.writeFileSync(path.join(ws, 'evil.git', 'config'), '[diff "x"]\n\ttextconv = touch PWNED\n');
      fs.mkdirSync(path.join(ws, 'evil.git', 'refs', 'heads', 'deep'), { recursive: true });
      // A linked worktree's git directory: HEAD and `commondir`, no objects of its own.
      fs.mkdirSync(path.join(ws, 'wt.git'));
      fs.writeFileSync(path.join(ws, 'wt.git', 'HEAD'), 'ref: refs/heads/main\n');
      fs.writeFileSync(path.join(ws, 'wt.git', 'commondir'), '../evil.git\n');
    });
    const inCwd = (command: string, cwd: string) => decide(analyzer.analyze(command), layers, { cwd, workspaceRoots: [ws], expander: TEST_EXPANDER });
    it('asks from the bare repository and from folders inside it', () => {
      expectAll(['git -C evil.git log -p', 'git -C evil.git show', 'git -Cevil.git diff', 'git -C src -C ../evil.git log', 'git -C evil.git/refs/heads/deep log -p', 'git -C wt.git log -p', 'git --bare -C evil.git log -p'], 'prompt');
      for (const cwd of [path.join(ws, 'evil.git'), path.join(ws, 'evil.git', 'refs')]) {
        const d = inCwd('git log -p', cwd);
        assert.equal(d.decision, 'prompt', d.reason);
        assert.match(d.reason, /evil\.git/);
      }
    });
    it('folders that only hold a HEAD or an objects folder are not git directories', () => {
      fs.mkdirSync(path.join(ws, 'notrepo', 'objects'), { recursive: true });
      fs.writeFileSync(path.join(ws, 'notrepo', 'HEAD'), 'x\n');
      expectAll(['git -C notrepo log --oneline', 'git -C src status', 'git status'], 'allow');
    });
  });
});
