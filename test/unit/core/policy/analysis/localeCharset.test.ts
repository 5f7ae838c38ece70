// bash reads a line in its locale's character set, the policy in UTF-8: a locale whose two-byte
// characters can end in an ASCII byte makes the line ask, wherever it is set (`env`, a prefix, an
// assignment or `export` in the line); UTF-8, C and the byte-safe sets stay allowable. bash is the
// judge that the danger is real (a locale compiled with `localedef`), the policy must then ask.
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { PolicyRule, ShellAnalyzer } from '../../../../../src/core/contracts';
import { buildNonInteractiveEnv } from '../../../../../src/core/nonInteractiveEnv';
import { isParsingSafeLocale, localeCharsetReason } from '../../../../../src/core/policy/analysis/localeCharset';
import { decide } from '../../../../../src/core/policy/policy';
import { withEnvRisk } from '../../../../../src/core/policy/policyGate';
import { createShellAnalyzer } from '../../../../../src/core/policy/analysis/shellAnalysis';
import { TEST_EXPANDER } from '../testExpander';

const WS = mkdtempSync(path.join(os.tmpdir(), 'agent-bash-locale-'));
after(() => rmSync(WS, { recursive: true, force: true }));
const CTX = { cwd: WS, workspaceRoots: [WS], expander: TEST_EXPANDER };
const ALLOW_ALL: PolicyRule[] = [{ match: '*', approval: 'allow' }];
const LINE = 'echo "中\\" ; touch F ; # "';

describe('core/policy/localeCharset: a locale bash reads a line in otherwise than UTF-8 asks', () => {
  let analyzer: ShellAnalyzer;
  before(async () => {
    analyzer = await createShellAnalyzer();
  });
  const decideLine = (line: string) => decide(analyzer.analyze(line), ALLOW_ALL, CTX);

  it('bash under a compiled GBK locale runs the hidden `touch`, under UTF-8 it does not', function () {
    const locales = path.join(WS, 'locales');
    mkdirSync(locales, { recursive: true });
    const made = spawnSync('localedef', ['-f', 'GBK', '-i', 'zh_CN', path.join(locales, 'zh_CN.GBK')]);
    if (made.error || !existsSync(path.join(locales, 'zh_CN.GBK'))) this.skip();
    for (const [locale, created] of [['zh_CN.GBK', true], ['C.UTF-8', false]] as const) {
      const dir = mkdtempSync(path.join(WS, 'run-'));
      spawnSync('bash', ['-c', LINE], { cwd: dir, env: { ...process.env, LOCPATH: locales, LC_ALL: locale } });
      assert.equal(existsSync(path.join(dir, 'F')), created, locale);
    }
    assert.equal(decideLine(LINE).decision, 'allow');
  });

  it('classifies character sets', () => {
    for (const v of ['', 'C', 'POSIX', 'C.UTF-8', 'C.utf8', 'en_US.UTF-8', 'zh_CN.utf8', 'de_DE.ISO-8859-1', 'ru_RU.KOI8-R', 'ja_JP.eucJP', 'zh_CN.GB2312', 'ko_KR.EUC-KR', 'zh_TW.EUC-TW', 'en_US.UTF-8@euro']) {
      assert.equal(isParsingSafeLocale(v), true, v);
    }
    for (const v of ['zh_CN.GBK', 'zh_CN.gbk', 'zh_CN.GB18030', 'zh_TW.BIG5', 'zh_HK.BIG5-HKSCS', 'ja_JP.SJIS', 'ja_JP.Shift_JIS', 'zh_TW', 'ja_JP', 'en_US', 'chinese']) {
      assert.equal(isParsingSafeLocale(v), false, v);
    }
  });

  it('a prefix, an assignment, `export`/`declare`, `read` or a run-time value of LC_ALL/LC_CTYPE/LANG in an unsafe set asks, naming it', () => {
    for (const [line, name] of [
      ['LC_ALL=zh_CN.GBK echo hi', 'LC_ALL'],
      ["LC_ALL=zh_CN.GBK eval 'echo hi'", 'LC_ALL'],
      ['env LANG=zh_TW.BIG5 ls', 'LANG'],
      ['LC_ALL=zh_CN.GBK', 'LC_ALL'],
      ['LC_CTYPE=ja_JP.SJIS; echo x', 'LC_CTYPE'],
      ['export LC_ALL=zh_CN.GBK', 'LC_ALL'],
      ['export "LANG=zh_CN.GB18030"', 'LANG'],
      ['declare -x LC_CTYPE=zh_TW', 'LC_CTYPE'],
      ['LC_ALL=$x; echo hi', 'LC_ALL'],
      ['export LANG="$L"', 'LANG'],
      ['read LANG', 'LANG'],
      ['printf -v LC_ALL %s zh_CN.GBK', 'LC_ALL'],
      ['for LC_ALL in zh_CN.GBK; do :; done', 'LC_ALL'],
      [': ${LANG:=zh_CN.GBK}', 'LANG'],
    ] as const) {
      const d = decideLine(line);
      assert.equal(d.decision, 'prompt', line);
      assert.ok(d.reason.includes(localeCharsetReason(name)), `${line}: ${d.reason}`);
    }
  });

  it('UTF-8 and C locales, other LC_ categories and exporting without a value stay allowable', () => {
    for (const line of ['LANG=C.UTF-8 ls', 'LC_ALL=C sort f', 'export LANG=en_US.UTF-8', 'LC_ALL=C.UTF-8; echo x', 'LC_MESSAGES=zh_CN.GBK ls', 'export LANG']) {
      assert.equal(decideLine(line).decision, 'allow', line);
    }
  });

  it('the `env` parameter: an unsafe locale asks, a safe one does not', () => {
    const allowed = decideLine('echo hi');
    assert.equal(withEnvRisk(allowed, { LC_ALL: 'C.UTF-8', LANG: 'en_US.UTF-8' }), allowed);
    for (const name of ['LC_ALL', 'LC_CTYPE', 'LANG']) {
      const d = withEnvRisk(allowed, { [name]: 'zh_CN.GBK' });
      assert.equal(d.decision, 'prompt', name);
      assert.equal(d.reason, localeCharsetReason(name));
    }
  });

  it('an inherited unsafe locale is read as C.UTF-8; a safe one and the caller\'s own stay', () => {
    const env = buildNonInteractiveEnv({ LANG: 'zh_TW.BIG5', LC_ALL: 'zh_CN.GBK', LC_CTYPE: 'en_US.UTF-8', LC_MESSAGES: 'zh_CN.GBK' }, {}, 'linux');
    assert.deepEqual([env.LANG, env.LC_ALL, env.LC_CTYPE, env.LC_MESSAGES], ['C.UTF-8', 'C.UTF-8', 'en_US.UTF-8', 'zh_CN.GBK']);
  });
});
