import * as assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { UrlResolver } from '../../../src/core/contracts';
import {
  expandCwdUrl,
  expandEnvUrls,
  expandInternalUrls,
  resolveLocalUrl,
  shellQuote,
  withLocalScheme,
} from '../../../src/core/internalUrls';

/** Resolves `scheme://rest` to `/r/scheme/rest`, except the names listed as unknown. */
class FakeUrlResolver implements UrlResolver {
  calls: Array<[string, string]> = [];
  constructor(private readonly unknown: string[] = [], private readonly throwing: string[] = []) {}
  resolve(scheme: string, url: string): string | undefined {
    this.calls.push([scheme, url]);
    if (this.throwing.includes(url)) throw new Error('router exploded');
    if (this.unknown.includes(url)) return undefined;
    return `/r/${scheme}/${url.slice(scheme.length + 3)}`;
  }
}

const cmd = (text: string, r: UrlResolver = new FakeUrlResolver()) => expandInternalUrls(text, { resolver: r, escape: true });

describe('core/internalUrls', () => {
  it('expands every scheme as a bare token, shell-quoted', () => {
    for (const s of ['skill', 'agent', 'artifact', 'plan', 'memory', 'rule', 'local']) {
      assert.equal(cmd(`cat ${s}://a/b.md`), `cat '/r/${s}/a/b.md'`);
    }
  });

  it('passes the scheme and the full URL to the resolver', () => {
    const r = new FakeUrlResolver();
    cmd('cat skill://x/y.md', r);
    assert.deepEqual(r.calls, [['skill', 'skill://x/y.md']]);
  });

  it('leaves other schemes and plain text alone', () => {
    for (const t of ['curl https://x.org/a', 'echo file:///tmp', 'ls skills/', 'echo skill:/x', 'echo hello']) {
      assert.equal(cmd(t), t);
    }
  });

  it('needs something after scheme://', () => {
    assert.equal(cmd('grep -rn "skill://" src'), 'grep -rn "skill://" src');
    assert.equal(cmd("grep -rn 'memory://' src"), "grep -rn 'memory://' src");
  });

  it('escapes single quotes in the path', () => {
    const r: UrlResolver = { resolve: () => "/r/it's here" };
    assert.equal(cmd('cat skill://q', r), `cat '/r/it'\\''s here'`);
    assert.equal(shellQuote("a'b"), `'a'\\''b'`);
  });

  it('replaces whole quoted tokens, dropping their quotes', () => {
    assert.equal(cmd(`cat 'skill://my skill/a.md'`), `cat '/r/skill/my skill/a.md'`);
    assert.equal(cmd(`cat "artifact://7"`), `cat '/r/artifact/7'`);
    assert.equal(cmd(`cp x --to="local://out dir/f"`), `cp x --to='/r/local/out dir/f'`);
  });

  it('ends a bare token at whitespace, quotes, ), backtick, backslash and shell operators', () => {
    assert.equal(cmd('cat skill://a;ls'), `cat '/r/skill/a';ls`);
    assert.equal(cmd('cat skill://a|wc'), `cat '/r/skill/a'|wc`);
    assert.equal(cmd('cat skill://a>o'), `cat '/r/skill/a'>o`);
    assert.equal(cmd('x=$(cat skill://a)'), `x=$(cat '/r/skill/a')`);
    assert.equal(cmd('cat skill://a\\ b'), `cat '/r/skill/a'\\ b`);
  });

  it('expands after = and at the very start', () => {
    assert.equal(cmd('tool --file=rule://r1'), `tool --file='/r/rule/r1'`);
    assert.equal(cmd('memory://m'), `'/r/memory/m'`);
  });

  it('leaves a URL that is part of a larger quoted string alone', () => {
    assert.equal(cmd(`echo 'the literal memory://x string'`), `echo 'the literal memory://x string'`);
    assert.equal(cmd(`echo "see skill://x for more"`), `echo "see skill://x for more"`);
  });

  it('expands inside command substitutions, which start a fresh quoting context', () => {
    assert.equal(cmd(`echo "$(cat skill://x)"`), `echo "$(cat '/r/skill/x')"`);
    assert.equal(cmd('echo "`cat skill://x`"'), "echo \"`cat '/r/skill/x'`\"");
    assert.equal(cmd(`echo "$(cat "$(cat skill://deep)")"`), `echo "$(cat "$(cat '/r/skill/deep')")"`);
    assert.equal(cmd(`echo $(echo (a) skill://p)`), `echo $(echo (a) '/r/skill/p')`);
  });

  it('keeps URLs behind escaped quotes and escaped backticks literal', () => {
    // Inside double quotes an escaped backtick is a literal character, not a substitution.
    assert.equal(cmd('echo "\\`cat skill://x\\`"'), 'echo "\\`cat skill://x\\`"');
    assert.equal(cmd(`echo "a \\" skill://x"`), `echo "a \\" skill://x"`);
    assert.equal(cmd(`echo \\skill://x`), `echo \\skill://x`);
  });

  it('normalises local:/ to local:// and honours its boundary rules', () => {
    assert.equal(cmd('cat local:/PLAN.md'), `cat '/r/local/PLAN.md'`);
    for (const t of [
      'cat /repo/local:/PLAN.md',
      'cat ./local:/x',
      'cat ../local:/x',
      'cat notlocal:/x',
      'cat mylocal:/x',
      'cat not-local:/x',
      'cat a\\local:/x',
    ]) {
      assert.equal(cmd(t), t);
    }
    assert.equal(cmd('cat /repo/skill://x'), 'cat /repo/skill://x');
  });

  it('expands several URLs, right to left, keeping offsets right', () => {
    assert.equal(cmd('diff skill://a "artifact://2" local:/c'), `diff '/r/skill/a' '/r/artifact/2' '/r/local/c'`);
  });

  it('an unresolvable URL is a ToolError that names it', () => {
    const r = new FakeUrlResolver(['skill://nope']);
    assert.throws(() => cmd('cat skill://ok skill://nope', r), {
      name: 'ToolError',
      message: `Cannot resolve internal URL "skill://nope". To pass it as literal text, split it across quotes (e.g. 'skill:''//name').`,
    });
  });

  it('the literal-text hint really escapes expansion', () => {
    assert.equal(cmd(`grep 'skill:''//x' f`), `grep 'skill:''//x' f`);
  });

  it('a resolver failure is a ToolError that names the URL and the reason', () => {
    assert.throws(() => cmd('cat agent://boom', new FakeUrlResolver([], ['agent://boom'])), {
      name: 'ToolError',
      message: 'Cannot resolve internal URL "agent://boom": router exploded',
    });
  });

  it('a URL built from shell expansion is an error, not a wrong path', () => {
    const msg = (u: string) => `Cannot resolve internal URL "${u}": it contains shell expansion. Use a literal URL or a filesystem path.`;
    assert.throws(() => cmd('cat "local://out-$i.txt"'), { message: msg('local://out-$i.txt') });
    assert.throws(() => cmd('cat local://out-$i.txt'), { message: msg('local://out-$i.txt') });
  });

  it('env values get raw paths; cwd too, and only when it looks like a URL', () => {
    const r = new FakeUrlResolver();
    assert.deepEqual(expandEnvUrls({ A: 'skill://a', B: 'x local:/y', C: 'plain' }, r), {
      A: '/r/skill/a',
      B: 'x /r/local/y',
      C: 'plain',
    });
    assert.equal(expandCwdUrl('local://work', r), '/r/local/work');
    assert.equal(expandCwdUrl('local:/work', r), '/r/local/work');
    assert.equal(expandCwdUrl('src/skill', r), 'src/skill');
  });

  describe('local://', () => {
    let root: string;
    beforeEach(() => {
      root = mkdtempSync(path.join(os.tmpdir(), 'agent-bash-local-'));
    });
    afterEach(() => rmSync(root, { recursive: true, force: true }));

    it('maps under the local root and refuses to leave it', () => {
      assert.equal(resolveLocalUrl(root, 'local://a/b.txt'), path.join(root, 'a/b.txt'));
      assert.equal(resolveLocalUrl(root, 'local:///a'), path.join(root, 'a'));
      assert.equal(resolveLocalUrl(root, 'local://a%20b'), path.join(root, 'a b'));
      assert.equal(resolveLocalUrl(root, 'local://../x'), undefined);
      assert.equal(resolveLocalUrl(root, 'local://a/../../x'), undefined);
    });

    it('creates parent directories for the command and env, not for cwd', () => {
      const r = withLocalScheme(undefined, root);
      assert.equal(
        expandInternalUrls('mv x local://deep/er/f.txt', { resolver: r, escape: true, ensureLocalParentDirs: true }),
        `mv x ${shellQuote(path.join(root, 'deep/er/f.txt'))}`,
      );
      assert.ok(existsSync(path.join(root, 'deep/er')));
      assert.ok(!existsSync(path.join(root, 'deep/er/f.txt')));
      expandEnvUrls({ OUT: 'local://e/v.txt' }, r);
      assert.ok(existsSync(path.join(root, 'e')));
      assert.equal(expandCwdUrl('local://c/d', r), path.join(root, 'c/d'));
      assert.ok(!existsSync(path.join(root, 'c')));
    });

    it('withLocalScheme sends other schemes to the host resolver, or none', () => {
      assert.equal(withLocalScheme(new FakeUrlResolver(), root).resolve('skill', 'skill://s'), '/r/skill/s');
      assert.equal(withLocalScheme(undefined, root).resolve('skill', 'skill://s'), undefined);
      assert.throws(() => expandInternalUrls('cat skill://s', { resolver: withLocalScheme(undefined, root), escape: true }), {
        name: 'ToolError',
      });
    });
  });
});
