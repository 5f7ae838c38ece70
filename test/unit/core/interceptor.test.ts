import * as assert from 'node:assert/strict';
import type { InterceptorRule, ShellAnalyzer } from '../../../src/core/contracts';
import {
  BLOCK_FALLBACK_MESSAGE,
  blockedMessage,
  DEFAULT_INTERCEPTOR_RULES,
  findInterception,
  interceptionCandidates,
  Interceptor,
  INTERCEPTOR_RETRY_NOTE,
} from '../../../src/core/interceptor';
import { createShellAnalyzer } from '../../../src/core/policy/analysis/shellAnalysis';

const ALL = () => true;

describe('core/interceptor', () => {
  let analyzer: ShellAnalyzer;
  before(async () => {
    analyzer = await createShellAnalyzer();
  });

  const hit = (command: string, rules: readonly InterceptorRule[] = DEFAULT_INTERCEPTOR_RULES, avail: (t: string) => boolean = ALL) =>
    findInterception(command, analyzer.analyze(command), rules, avail);
  /** The tool of the rule that blocks, or undefined. */
  const toolFor = (command: string, only?: string) => hit(command, DEFAULT_INTERCEPTOR_RULES, only ? (t) => t === only : ALL)?.rule.tool;

  it('has the ten default rules in the spec order', () => {
    assert.deepEqual(
      DEFAULT_INTERCEPTOR_RULES.map((r) => r.tool),
      ['read', 'grep', 'glob', 'edit', 'edit', 'edit', 'write', 'hub', 'hub', 'hub'],
    );
    assert.equal(DEFAULT_INTERCEPTOR_RULES[0]!.pattern, '^\\s*(cat|head|tail|less|more)\\s+');
    assert.equal(
      DEFAULT_INTERCEPTOR_RULES[0]!.message,
      'Use the `read` tool instead of cat/head/tail. It provides better context and handles binary files.',
    );
    assert.equal(DEFAULT_INTERCEPTOR_RULES[7]!.pattern, '^\\s*nohup\\s+|(?<!&)&\\s*$');
  });

  const table: Array<[string, string, string[], string[]]> = [
    ['read', 'read', ['cat test.txt', 'head -n 5 f', 'tail -f log', 'less x', 'more x'], ['catalog x', 'cat', 'echo cat x', 'concat a']],
    ['grep', 'grep', ['grep -rn foo src', 'rg foo', 'ripgrep x', 'ag x', 'ack x'], ['grepx a', 'egrep a f', 'printf "x\\n" | grep x']],
    ['glob', 'glob', ["find . -name '*.ts'", 'find . -type f', 'fd --type f x', 'locate -iname x'], ['find . -mtime 1', 'fd x']],
    ['sed -i', 'edit', ['sed -i s/a/b/ f', 'sed --in-place s/a/b/ f'], ['sed s/a/b/ f', 'sed -n 1p f']],
    ['perl -i', 'edit', ['perl -pi -e s/a/b/ f', 'perl -i -pe x f'], ['perl script.pl', "perl -e 'print 1'"]],
    ['awk inplace', 'edit', ["awk -i inplace '{print}' f"], ["awk '{print}' f"]],
    [
      'write',
      'write',
      ['echo hi > f.txt', 'echo hi >> f', 'echo hi >| f', 'printf x > $OUT', 'echo hi > ./dev/null', 'echo hi > /devices/x', 'echo a > /dev/null > out.txt', 'cat << EOF > out.txt\nhi\nEOF'],
      ['echo hi > /dev/null', 'echo hi > "/dev/null"', "echo hi > '/dev/stderr'", 'echo hi > /dev/tty', 'echo hi >&2', 'echo hi 2>&1', 'echo "a > b"', 'echo hi'],
    ],
    ['nohup/&', 'hub', ['nohup server', 'server &', 'npm run serve &'], ["printf 'server &'", 'a && b', 'ls']],
    ['services', 'hub', ['bun run dev', 'npm start', 'yarn dev --port 3', 'vite --host 0.0.0.0', 'next dev', 'nodemon app.js', 'lldb ./app', 'gdb a.out', 'docker compose up'], ['docker compose up -d', 'docker compose up --detach', 'npm run build', 'vitest run']],
    ['watch', 'hub', ['bun test --watch', 'tsc -w', 'jest --watch', 'cargo watch -w src -x test', 'pytest -w'], ['git diff -w', 'bun test', 'tsc -p .']],
  ];
  for (const [name, tool, blocked, allowed] of table) {
    describe(`default rule: ${name} (${tool})`, () => {
      for (const c of blocked) {
        it(`blocks ${JSON.stringify(c)}`, () => assert.equal(toolFor(c, tool), tool));
      }
      for (const c of allowed) {
        it(`lets ${JSON.stringify(c)} through`, () => assert.equal(toolFor(c, tool), undefined));
      }
    });
  }

  it('tail -f is caught by read before hub; cat heredoc by read before write (rule order)', () => {
    assert.equal(toolFor('tail -f log'), 'read');
    assert.equal(toolFor('cat << EOF > f\nx\nEOF'), 'read');
    assert.equal(toolFor('tail -f log', 'hub'), 'hub');
  });

  it('a rule applies only when its tool is available', () => {
    assert.equal(hit('cat test.txt', DEFAULT_INTERCEPTOR_RULES, () => false), undefined);
    assert.equal(hit('cat test.txt', DEFAULT_INTERCEPTOR_RULES, (t) => t === 'grep'), undefined);
  });

  it('an explicit empty rule list blocks nothing', () => {
    assert.equal(hit('cat test.txt', []), undefined);
  });

  it('custom rules; invalid regexes are skipped; flags are honoured and g/y state reset', () => {
    const rules: InterceptorRule[] = [
      { pattern: '(', tool: 't', message: 'bad' },
      { pattern: '^MAKE\\b', flags: 'gi', tool: 't', message: 'use the build tool' },
    ];
    assert.equal(hit('make all', rules)?.rule.message, 'use the build tool');
    assert.equal(hit('make all', rules)?.rule.message, 'use the build tool');
  });

  it('candidates: whole command, then segments, then segments without NAME=value prefixes', () => {
    const c = 'FOO=1 BAR="x y" grep x f && ls';
    assert.deepEqual(interceptionCandidates(c, analyzer.analyze(c)), [c, 'FOO=1 BAR="x y" grep x f', 'ls', 'grep x f']);
    assert.equal(toolFor('FOO=1 grep x f'), 'grep');
  });

  it('checks compound parts split on &&, ;, ||, &, newline', () => {
    for (const c of ['ls && cat f', 'ls; cat f', 'ls || cat f', 'ls & cat f', 'ls\ncat f']) {
      assert.equal(toolFor(c, 'read'), 'read', c);
    }
  });

  it('rules loop outside candidates: the first rule in order wins', () => {
    assert.equal(toolFor('grep x f && cat y'), 'read');
  });

  it('pipe consumers are exempt (v18); first stages are not', () => {
    const commit: InterceptorRule[] = [{ pattern: '^\\s*git\\s+commit\\b', tool: 'git', message: 'use git tool' }];
    assert.equal(hit('git add file | git commit -m message', commit), undefined);
    assert.equal(hit('git commit -m m | cat', commit)?.rule.tool, 'git');
    assert.equal(toolFor("printf 'x\\n' | grep x"), undefined);
    assert.equal(toolFor('grep x file | wc -l'), 'grep');
    assert.equal(toolFor('cat log | tr a b && grep err file', 'grep'), 'grep');
  });

  it('quoted, escaped and commented text is not a command', () => {
    const rules: InterceptorRule[] = [{ pattern: '^\\s*git\\s+commit\\b', tool: 'git', message: 'm' }];
    for (const c of ['echo "git commit"', 'echo git\\ commit', 'echo ok # git commit']) {
      assert.equal(hit(c, rules), undefined, c);
    }
  });

  it('commands nested in substitutions are left to the whole-command candidate', () => {
    assert.equal(toolFor('echo $(cat f)', 'read'), undefined);
    assert.equal(toolFor('bash -c "cat x"', 'read'), undefined);
  });

  it('block text: Blocked, blank line, Original command, then the retry note', () => {
    assert.equal(
      blockedMessage('Use read.', 'cd a && cat f'),
      `Blocked: Use read.\n\nOriginal command: cd a && cat f\n\n${INTERCEPTOR_RETRY_NOTE}`,
    );
    assert.equal(blockedMessage('', 'x'), `Blocked: ${BLOCK_FALLBACK_MESSAGE}\n\nOriginal command: x\n\n${INTERCEPTOR_RETRY_NOTE}`);
    assert.equal(BLOCK_FALLBACK_MESSAGE, 'Command blocked');
    assert.match(INTERCEPTOR_RETRY_NOTE, /same command again/);
  });

  describe('Interceptor (session memory)', () => {
    const check = (i: Interceptor, raw: string, commands: string[], sessionKey = 's1', rules = DEFAULT_INTERCEPTOR_RULES) =>
      i.check({ raw, commands: commands.map((command) => ({ command, analysis: analyzer.analyze(command) })), rules, toolAvailable: ALL, sessionKey });

    it('checks the raw command and then the cd-stripped one; quotes the raw command', () => {
      const rules: InterceptorRule[] = [{ pattern: '^make && make test$', tool: 'build', message: 'Use build.' }];
      const i = new Interceptor();
      assert.equal(check(i, 'cd x && make && make test', ['cd x && make && make test'], 's', rules), undefined);
      const msg = check(new Interceptor(), 'cd x && make && make test', ['cd x && make && make test', 'make && make test'], 's', rules);
      assert.equal(msg, blockedMessage('Use build.', 'cd x && make && make test'));
    });

    it('escape hatch: the same command again in the same session runs', () => {
      const i = new Interceptor();
      assert.ok(check(i, 'cat f', ['cat f'])?.startsWith('Blocked: '));
      assert.equal(check(i, 'cat f', ['cat f']), undefined);
      assert.equal(check(i, 'cat f', ['cat f']), undefined);
      assert.ok(check(i, 'cat g', ['cat g'])?.startsWith('Blocked: '), 'another command still blocks');
      assert.ok(check(i, 'cat f', ['cat f'], 's2')?.startsWith('Blocked: '), 'another session still blocks');
    });
  });
});
