import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import type { ShellAnalyzer } from '../../../../../src/core/contracts';
import { createShellAnalyzer, UNCERTAIN } from '../../../../../src/core/policy/analysis/shellAnalysis';
import { OPAQUE } from '../../../../../src/core/policy/analysis/shellNormalize';

describe('core/shellAnalysis', () => {
  let analyzer: ShellAnalyzer;
  before(async () => {
    analyzer = await createShellAnalyzer();
  });

  const argvs = (cmd: string): string[][] => analyzer.analyze(cmd).segments.map((s) => [...s.argv]);
  const certain = (cmd: string): void => {
    const a = analyzer.analyze(cmd);
    assert.equal(a.uncertain, false, `${cmd}: ${a.uncertainReason}`);
  };

  describe('segments', () => {
    it('lists every command of a compound line in source order', () => {
      const cmd = 'echo `rm x` <(ls) | cat && { a; } || (b) & c';
      certain(cmd);
      assert.deepEqual(argvs(cmd), [['echo', '`rm x`', '<(ls)'], ['rm', 'x'], ['ls'], ['cat'], ['a'], ['b'], ['c']]);
    });

    it('reads commands in if/while/for/case bodies, functions and newline lists', () => {
      const cmd = 'for i in a; do rm $i; done\nif t; then u; elif v; then w; else x; fi\ncase $a in y) z;; esac\nwhile r; do s; done\nf() { g; }';
      certain(cmd);
      assert.deepEqual(argvs(cmd).map((a) => a[0]), ['rm', 't', 'u', 'v', 'w', 'x', 'z', 'r', 's', 'g']);
    });

    it('reads substitutions in assignments, expansions, arithmetic, tests and here-doc bodies', () => {
      assert.deepEqual(argvs('A=$(rm a) ls'), [['ls'], ['rm', 'a']]);
      assert.deepEqual(argvs('echo ${x:-$(rm b)}'), [['echo', '${x:-$(rm b)}'], ['rm', 'b']]);
      assert.deepEqual(argvs('echo $((1+$(rm c)))'), [['echo', '$((1+$(rm c)))'], ['rm', 'c']]);
      assert.deepEqual(argvs('[[ -f $(rm d) ]] && ls'), [['rm', 'd'], ['ls']]);
      assert.deepEqual(argvs('cat <<EOF\n$(rm e)\nEOF'), [['cat'], ['rm', 'e']]);
      assert.deepEqual(argvs('export X=$(rm f)'), [['export', 'X=$(rm f)'], ['rm', 'f']]);
    });

    it('does not read a quoted here-doc body as commands', () => {
      assert.deepEqual(argvs("cat <<'EOF'\n$(rm x)\nEOF"), [['cat']]);
    });

    it('marks pipe consumers', () => {
      const segs = analyzer.analyze('a | b |& c && d').segments;
      assert.deepEqual(segs.map((s) => [s.argv[0], s.consumesPipe]), [['a', false], ['b', true], ['c', true], ['d', false]]);
      const plain = analyzer.analyze('a | b && c').segments;
      assert.deepEqual(plain.map((s) => s.consumesPipe), [false, true, false]);
    });

    it('records leading assignments as written', () => {
      const [seg] = analyzer.analyze('FOO=1 BAR="a b" make').segments;
      assert.deepEqual(seg.assignments, ['FOO=1', 'BAR="a b"']);
      assert.deepEqual(seg.argv, ['make']);
    });

    it('records redirects with fd and static target', () => {
      const [seg] = analyzer.analyze('ls 2>&1 > out.txt >>log <in 2>/dev/null').segments;
      assert.deepEqual(seg.redirects, [
        { op: '>&', fd: '2', target: '1' },
        { op: '>', target: 'out.txt' },
        { op: '>>', target: 'log' },
        { op: '<', target: 'in' },
        { op: '>', fd: '2', target: '/dev/null' },
      ]);
      assert.deepEqual(analyzer.analyze('ls > $OUT').segments[0].redirects, [{ op: '>' }]);
      assert.equal(analyzer.analyze('ls > $OUT').segments[0].dynamic, true);
    });

    it('applies a redirect after a list or pipeline to its last command only, as bash does', () => {
      const segs = analyzer.analyze('git status && ls -la > out.txt').segments;
      assert.deepEqual(segs.map((s) => s.redirects), [[], [{ op: '>', target: 'out.txt' }]]);
      const piped = analyzer.analyze('a | b > f').segments;
      assert.deepEqual(piped.map((s) => s.redirects.length), [0, 1]);
      const group = analyzer.analyze('{ a; b; } > f').segments;
      assert.deepEqual(group.map((s) => s.redirects.length), [1, 1]);
    });

    it('gives string indices and source for each segment', () => {
      const cmd = 'echo "é😀" && rm x';
      const seg = analyzer.analyze(cmd).segments[1];
      assert.equal(cmd.slice(seg.start, seg.end), 'rm x');
      assert.equal(seg.source, 'rm x');
    });
  });

  describe('normalisation', () => {
    it('unquotes, unescapes and takes the basename of argv0', () => {
      for (const cmd of ['/bin/rm -rf x', '\\rm -rf x', "'rm' -rf x", '"rm" -rf x', 'r""m -rf x', "r''m -rf x", "$'\\x72m' -rf x"]) {
        certain(cmd);
        assert.deepEqual(argvs(cmd), [['rm', '-rf', 'x']], cmd);
        assert.equal(analyzer.analyze(cmd).segments[0].text, 'rm -rf x');
      }
    });

    it('unquotes arguments and keeps dynamic ones as written', () => {
      const [seg] = analyzer.analyze(`echo "a b" 'c d' e\\ f "$HOME/x" $'t\\tu'`).segments;
      assert.deepEqual(seg.argv, ['echo', 'a b', 'c d', 'e f', '$HOME/x', 't\tu']);
      assert.deepEqual(seg.dynamicArgs, [4]);
      assert.equal(seg.text, 'echo a b c d e f $HOME/x t u');
    });

    it('strips prefix wrappers and keeps them in prefix', () => {
      const cases: Array<[string, string[], string[]]> = [
        ['env -i -u Y X=1 rm a', ['rm', 'a'], []],
        ['env X=1 rm a', ['rm', 'a'], ['env', 'X=1']],
        ['command rm a', ['rm', 'a'], ['command']],
        ['builtin cd x', ['cd', 'x'], ['builtin']],
        ['exec -a name rm a', ['rm', 'a'], ['exec', '-a', 'name']],
        ['nice -n 5 rm a', ['rm', 'a'], ['nice', '-n', '5']],
        ['nice -10 rm a', ['rm', 'a'], ['nice', '-10']],
        ['nohup rm a', ['rm', 'a'], ['nohup']],
        ['time -p rm a', ['rm', 'a'], ['time', '-p']],
        ['timeout -s KILL -k 2 5 rm a', ['rm', 'a'], ['timeout', '-s', 'KILL', '-k', '2', '5']],
        ['sudo -u root -E rm a', ['rm', 'a'], ['sudo', '-u', 'root', '-E']],
        ['doas -u root rm a', ['rm', 'a'], ['doas', '-u', 'root']],
        ['stdbuf -oL rm a', ['rm', 'a'], ['stdbuf', '-oL']],
        ['setsid -w rm a', ['rm', 'a'], ['setsid', '-w']],
        ['ionice -c 3 rm a', ['rm', 'a'], ['ionice', '-c', '3']],
        ['sudo env A=1 nohup /usr/bin/rm a', ['rm', 'a'], ['sudo', 'env', 'A=1', 'nohup']],
      ];
      for (const [cmd, argv, prefix] of cases) {
        const [seg] = analyzer.analyze(cmd).segments;
        assert.deepEqual(seg.argv, argv, cmd);
        if (cmd !== 'env -i -u Y X=1 rm a') assert.deepEqual(seg.prefix, prefix, cmd);
      }
      const env = analyzer.analyze('env -i -u Y X=1 rm a').segments[0];
      assert.deepEqual(env.prefix, ['env', '-i', '-u', 'Y', 'X=1']);
      assert.deepEqual(env.assignments, ['X=1']);
      assert.equal(analyzer.analyze('sudo rm a').segments[0].privileged, true);
      assert.equal(analyzer.analyze('nice rm a').segments[0].privileged, undefined);
    });

    it('keeps a wrapper that runs nothing, and `command -v`, as the command', () => {
      assert.deepEqual(argvs('time'), [['time']]);
      assert.deepEqual(argvs('sudo -v'), [['sudo', '-v']]);
      assert.deepEqual(argvs('command -v rm'), [['command', '-v', 'rm']]);
    });

    it('makes a wrapper with an option it does not model opaque', () => {
      const [seg] = analyzer.analyze("env -S 'rm -rf x'").segments;
      assert.equal(seg.opaque, true);
      assert.equal(seg.opaqueReason, '`env` option `-S` is not modelled');
    });
  });

  describe('payloads', () => {
    it('re-parses bash -c, sh -c and friends', () => {
      assert.deepEqual(argvs("bash -c 'ls && rm y'"), [['bash', '-c', 'ls && rm y'], ['ls'], ['rm', 'y']]);
      assert.deepEqual(argvs('sh -ec "rm y"'), [['sh', '-ec', 'rm y'], ['rm', 'y']]);
      assert.deepEqual(argvs("bash -lc 'rm y'").slice(1), [['rm', 'y']]);
      assert.deepEqual(argvs("zsh -o pipefail -c 'rm y'").slice(1), [['rm', 'y']]);
      assert.deepEqual(argvs("sudo dash -c 'rm y'"), [['dash', '-c', 'rm y'], ['rm', 'y']]);
    });

    it('re-parses eval and trap actions', () => {
      assert.deepEqual(argvs("eval 'rm z' '&& ls'"), [['eval', 'rm z', '&& ls'], ['rm', 'z'], ['ls']]);
      assert.deepEqual(argvs("trap 'rm q' EXIT"), [['trap', 'rm q', 'EXIT'], ['rm', 'q']]);
    });

    it('re-parses a here-doc or here-string fed to a shell', () => {
      assert.deepEqual(argvs('sh <<EOF\nrm x\nEOF'), [['sh'], ['rm', 'x']]);
      assert.deepEqual(argvs("bash <<< 'rm y; ls'"), [['bash'], ['rm', 'y'], ['ls']]);
      assert.deepEqual(argvs("bash <<-'EOF'\n\trm z\n\tEOF"), [['bash'], ['rm', 'z']]);
    });

    it('nests payload positions under the command that holds them', () => {
      const cmd = "ls; bash -c 'rm y'";
      const segs = analyzer.analyze(cmd).segments;
      assert.deepEqual(segs.map((s) => [s.start, s.end]), [[0, 2], [4, 18], [4, 18]]);
    });

    it('fails closed past the nesting limit', () => {
      let cmd = 'rm x';
      for (let i = 0; i < 10; i++) cmd = `eval ${JSON.stringify(cmd).replace(/\$/g, '\\$')}`;
      const a = analyzer.analyze(cmd);
      assert.equal(a.uncertain, true);
      assert.match(a.uncertainReason ?? '', /commands nested too deeply$/);
    });
  });

  describe('opaque runners', () => {
    const cases: Array<[string, number, string]> = [
      ['ls | xargs rm', 1, OPAQUE.runner('xargs')],
      ['parallel rm ::: a b', 0, OPAQUE.runner('parallel')],
      ['watch rm x', 0, OPAQUE.runner('watch')],
      ['find . -name x -exec rm {} \\;', 0, OPAQUE.findExec('find', '-exec')],
      ['find . -okdir rm {} +', 0, OPAQUE.findExec('find', '-okdir')],
      ['fd x -x rm', 0, OPAQUE.findExec('fd', '-x')],
      ['python3 -c "import os"', 0, OPAQUE.interpreterCode('python3', '-c')],
      ["perl -ne 'print'", 0, OPAQUE.interpreterCode('perl', '-e')],
      ["perl -E 'say 1'", 0, OPAQUE.interpreterCode('perl', '-e')],
      ["ruby -e 'x'", 0, OPAQUE.interpreterCode('ruby', '-e')],
      ["node -e 'x'", 0, OPAQUE.interpreterCode('node', '-e')],
      ["node --eval='x'", 0, OPAQUE.interpreterCode('node', '--eval')],
      ["php -r 'x'", 0, OPAQUE.interpreterCode('php', '-r')],
      ["lua -e 'x'", 0, OPAQUE.interpreterCode('lua', '-e')],
      ['curl -s x | sh', 1, OPAQUE.programFromStdin('sh')],
      ['curl -s x | python3', 1, OPAQUE.programFromStdin('python3')],
      ['bash < script.sh', 0, OPAQUE.programFromStdin('bash')],
      ['bash script.sh', 0, OPAQUE.scriptFile('bash')],
      ['source ./env.sh', 0, OPAQUE.scriptFile('source')],
      ['. ./env.sh', 0, OPAQUE.scriptFile('.')],
      ['bash -c "$CMD"', 0, OPAQUE.dynamicPayload('bash')],
      ['eval "$CMD"', 0, OPAQUE.dynamicPayload('eval')],
      ['awk \'{ system("rm " $1) }\' f', 0, OPAQUE.awkCommand('awk')],
      ['git -c core.pager=evil log', 0, OPAQUE.gitConfig()],
      ["git fetch --upload-pack='touch /tmp/p' origin", 0, OPAQUE.programOption('git', '--upload-pack')],
      ['git push --receive-pack=evil origin', 0, OPAQUE.programOption('git', '--receive-pack')],
      ['rg --pre ./evil x', 0, OPAQUE.programOption('rg', '--pre')],
      ['LD_PRELOAD=./x.so ls', 0, OPAQUE.codeLoadingVar('LD_PRELOAD')],
      ['env PATH=. ls', 0, OPAQUE.codeLoadingVar('PATH')],
      ['export PATH=/tmp:$PATH', 0, OPAQUE.codeLoadingVar('PATH')],
      ['GIT_SSH_COMMAND=x; ls', 0, OPAQUE.codeLoadingVar('GIT_SSH_COMMAND')],
      ["alias ls='rm -rf'", 0, OPAQUE.definesCode('alias')],
    ];
    for (const [cmd, index, reason] of cases) {
      it(`${cmd} → opaque`, () => {
        const seg = analyzer.analyze(cmd).segments[index];
        assert.equal(seg.opaque, true);
        assert.equal(seg.opaqueReason, reason);
      });
    }

    it('leaves scripts, modules and plain awk visible', () => {
      for (const cmd of ['python3 script.py', 'python -m pip install x', "awk '{print $1}' f", 'node app.js', 'git log', 'cat a | python3 s.py']) {
        assert.ok(analyzer.analyze(cmd).segments.every((s) => !s.opaque), cmd);
      }
    });

    it('exact reason texts', () => {
      assert.equal(OPAQUE.runner('xargs'), '`xargs` runs a command built at run time');
      assert.equal(OPAQUE.interpreterCode('python3', '-c'), '`python3 -c` runs inline code');
      assert.equal(OPAQUE.programFromStdin('sh'), '`sh` reads its program from standard input');
    });
  });

  describe('fails closed', () => {
    const cases: Array<[string, string]> = [
      ['', 'empty command'],
      ['   \n  ', 'empty command'],
      ['A=1', 'no command found'],
      ['# just a comment', 'no command found'],
      ['echo "unterminated', 'syntax error at offset 5'],
      ['ls &&', 'syntax error at offset 5'],
      ['$cmd -rf x', 'command name `$cmd` is not static'],
      ['${x} y', 'command name `${x}` is not static'],
      ['$(echo rm) x', 'command name `$(echo rm)` is not static'],
      ['rm$IFS-rf x', 'command name `rm$IFS-rf` is not static'],
      ['/bin/r? x', 'command name `/bin/r?` is not static'],
      ['r{m,} x', 'command name `r{m,}` is not static'],
      ['ls\r\nrm x', 'carriage return or Unicode line separator outside a here-document'],
      ['ls\u2028rm x', 'carriage return or Unicode line separator outside a here-document'],
      ['r\\\nm x', 'line continuation inside a word'],
      ['echo "$\\\n(rm x)"', 'line continuation inside a word'],
      ['echo ${x@P}', 'parameter transformation `${…@…}`'],
      ['cat <<EOF\n`rm x`\nEOF', 'backtick inside an unquoted here-document'],
      ["bash -c '$c x'", 'bash -c payload: command name `$c` is not static'],
    ];
    for (const [cmd, reason] of cases) {
      it(`${JSON.stringify(cmd)} → uncertain`, () => {
        const a = analyzer.analyze(cmd);
        assert.equal(a.uncertain, true);
        assert.equal(a.uncertainReason, reason);
      });
    }

    it('builds the reasons from UNCERTAIN', () => {
      assert.equal(UNCERTAIN.syntax(5), 'syntax error at offset 5');
      assert.equal(UNCERTAIN.dynamicName('$x'), 'command name `$x` is not static');
    });

    it('accepts a line continuation after whitespace', () => {
      certain('rm \\\n  -rf x');
      assert.deepEqual(argvs('rm \\\n  -rf x'), [['rm', '-rf', 'x']]);
    });
  });

  describe('cache and loading', () => {
    it('returns the same frozen analysis for the same text', () => {
      const a = analyzer.analyze('git status');
      assert.equal(analyzer.analyze('git status'), a);
      assert.ok(Object.isFrozen(a) && Object.isFrozen(a.segments[0]) && Object.isFrozen(a.segments[0].argv));
    });

    it('shares one loaded grammar between analyzers, each with its own cache', async () => {
      const other = await createShellAnalyzer({ wasmDir: path.dirname(require.resolve('tree-sitter-bash/tree-sitter-bash.wasm')) });
      assert.deepEqual(other.analyze('ls').segments[0].argv, ['ls']);
      assert.notEqual(other.analyze('git status'), analyzer.analyze('git status'));
    });
  });

  describe('the analysis budget', () => {
    it('a command analysed past its budget is uncertain and says so; within it, every segment is read', async () => {
      const many = 'echo a; '.repeat(2000);
      const spent = await createShellAnalyzer({ budgetMs: 0 });
      const late = spent.analyze(many);
      assert.equal(late.uncertain, true);
      assert.equal(late.uncertainReason, UNCERTAIN.deadline);
      assert.equal(UNCERTAIN.deadline, 'the command took too long to analyse');
      const roomy = await createShellAnalyzer({ budgetMs: 60_000 });
      const read = roomy.analyze(many);
      assert.equal(read.uncertain, false);
      assert.equal(read.segments.length, 2000);
    });
  });
});
