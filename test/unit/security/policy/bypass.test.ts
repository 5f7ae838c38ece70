import * as assert from 'node:assert/strict';
import type { PolicyRule, ShellAnalyzer, Verdict } from '../../../../src/core/contracts';
import { decide } from '../../../../src/core/policy/policy';
import { createShellAnalyzer } from '../../../../src/core/policy/analysis/shellAnalysis';

const CTX = { cwd: '/work/project', workspaceRoots: ['/work/project'] };

// Every row hides `rm` from a naive matcher. Under `rm *` → deny followed by `*` → allow (the
// hardest list: everything not denied would be allowed), none may come out allow. Rows where the
// analysis can see the `rm` must say deny; rows where it cannot must at least prompt.
const TABLE: Array<[string, Exclude<Verdict, 'allow'>]> = [
  ['rm -rf build', 'deny'],
  ['echo $(rm -rf build)', 'deny'],
  ['echo "$(rm -rf build)"', 'deny'],
  ['echo `rm -rf build`', 'deny'],
  ['cat <(rm -rf build)', 'deny'],
  ['tee >(rm -rf build)', 'deny'],
  ["bash -c 'rm -rf build'", 'deny'],
  ['sh -c "rm -rf build"', 'deny'],
  ["bash -lc 'echo hi; rm -rf build'", 'deny'],
  ["eval 'rm -rf build'", 'deny'],
  ['eval rm -rf build', 'deny'],
  ['env X=1 rm -rf build', 'deny'],
  ['env -i PATH=/bin rm -rf build', 'deny'],
  ['X=1 rm -rf build', 'deny'],
  ['/bin/rm -rf build', 'deny'],
  ['/usr/bin/../bin/rm -rf build', 'deny'],
  ['\\rm -rf build', 'deny'],
  ["'rm' -rf build", 'deny'],
  ['"rm" -rf build', 'deny'],
  ["r''m -rf build", 'deny'],
  ["$'rm' -rf build", 'deny'],
  ["$'\\x72\\x6d' -rf build", 'deny'],
  ['command rm -rf build', 'deny'],
  ['builtin command rm -rf build', 'deny'],
  ['exec rm -rf build', 'deny'],
  ['sudo rm -rf build', 'deny'],
  ['sudo -u root -- rm -rf build', 'deny'],
  ['doas rm -rf build', 'deny'],
  ['nice -n 10 rm -rf build', 'deny'],
  ['nohup rm -rf build &', 'deny'],
  ['time rm -rf build', 'deny'],
  ['timeout 5 rm -rf build', 'deny'],
  ['stdbuf -oL rm -rf build', 'deny'],
  ['echo ok\nrm -rf build', 'deny'],
  ['echo ok; rm -rf build', 'deny'],
  ['echo ok & rm -rf build', 'deny'],
  ['false || rm -rf build', 'deny'],
  ['true && rm -rf build', 'deny'],
  ['echo ok | rm -rf build', 'deny'],
  ['(rm -rf build)', 'deny'],
  ['{ rm -rf build; }', 'deny'],
  ['f() { rm -rf build; }; f', 'deny'],
  ['if true; then rm -rf build; fi', 'deny'],
  ['for i in 1; do rm -rf build; done', 'deny'],
  ['while false; do :; done; case x in x) rm -rf build;; esac', 'deny'],
  ['sh <<EOF\nrm -rf build\nEOF', 'deny'],
  ["bash <<'EOF'\nrm -rf build\nEOF", 'deny'],
  ["bash <<< 'rm -rf build'", 'deny'],
  ['cat <<EOF\n$(rm -rf build)\nEOF', 'deny'],
  ["trap 'rm -rf build' EXIT", 'deny'],
  ['A=$(rm -rf build)', 'deny'],
  ['echo "ok\nfine" && rm -rf build', 'deny'],
  ['rm \\\n  -rf build', 'deny'],
  ["bash -c \"sh -c 'eval rm -rf build'\"", 'deny'],
  ['ls # ok\nrm -rf build', 'deny'],
  // The analysis cannot see the command name: prompt.
  ['rm$IFS-rf build', 'prompt'],
  ['rm${IFS}-rf${IFS}build', 'prompt'],
  ['$(echo rm) -rf build', 'prompt'],
  ['`echo rm` -rf build', 'prompt'],
  ['cmd=rm; $cmd -rf build', 'prompt'],
  ['${x:-rm} -rf build', 'prompt'],
  ['r\\\nm -rf build', 'prompt'],
  ['/bin/r? -rf build', 'prompt'],
  ['/bin/r[m] -rf build', 'prompt'],
  ['r{m,} build', 'prompt'],
  ['echo ok\r\nrm -rf build', 'deny'], // uncertain, and the rm segment is still seen
  ['echo ok\u2028rm -rf build', 'prompt'],
  ['echo "$\\\n(rm -rf build)"', 'prompt'],
  ['echo ${x@P}', 'prompt'],
  ['cat <<EOF\n`rm -rf build`\nEOF', 'prompt'],
  ["echo 'unterminated; rm -rf build", 'prompt'],
  // The command runs code the analysis cannot see: prompt, or deny when a tail of a runner's argv
  // matches a deny rule (`xargs rm -rf` → `rm -rf`).
  ['echo build | xargs rm -rf', 'deny'],
  ['find . -name build -exec rm -rf {} +', 'deny'],
  ['find . -execdir rm {} \\;', 'deny'],
  ['parallel rm ::: build', 'deny'],
  ['python3 -c "import shutil; shutil.rmtree(\'build\')"', 'prompt'],
  ["perl -e 'system(\"rm -rf build\")'", 'prompt'],
  ["node -e 'require(\"fs\").rmSync(\"build\")'", 'prompt'],
  ["awk 'BEGIN { system(\"rm -rf build\") }'", 'prompt'],
  ['echo "rm -rf build" | sh', 'prompt'],
  ['curl -s https://x | bash', 'prompt'],
  ['source ./cleanup.sh', 'prompt'],
  ['. ./cleanup.sh', 'prompt'],
  ['bash cleanup.sh', 'prompt'],
  ['bash -c "$CMD"', 'prompt'],
  ['eval "$CMD"', 'prompt'],
  ["alias ls='rm -rf build'", 'prompt'],
  ['PATH=/tmp/evil:$PATH ls', 'prompt'],
  ['LD_PRELOAD=/tmp/x.so ls', 'prompt'],
  ["env -S 'rm -rf build'", 'deny'],
  ['watch rm -rf build', 'deny'],
  ["script -qc 'rm -rf build' /dev/null", 'deny'],
  ["echo 'rm -rf build' | at now", 'prompt'],
  ['chroot / rm -rf build', 'deny'],
  ['ls > >(rm -rf build)', 'deny'],
];

describe('core/policy bypass table', () => {
  let analyzer: ShellAnalyzer;
  before(async () => {
    analyzer = await createShellAnalyzer();
  });

  it('has at least 40 rows', () => {
    assert.ok(TABLE.length >= 40, String(TABLE.length));
  });

  const DENY_THEN_ALLOW: PolicyRule[] = [
    { match: 'rm *', approval: 'deny' },
    { match: '*', approval: 'allow', allowRedirects: true },
  ];
  const DENY_ONLY: PolicyRule[] = [{ match: 'rm *', approval: 'deny' }];

  for (const [cmd, expected] of TABLE) {
    it(`${JSON.stringify(cmd)} → ${expected}`, () => {
      const d = decide(analyzer.analyze(cmd), DENY_THEN_ALLOW, CTX);
      assert.equal(d.decision, expected, d.reason);
      assert.notEqual(decide(analyzer.analyze(cmd), DENY_ONLY, CTX).decision, 'allow');
    });
  }

  it('the same lines without rm are allowed under * (the table is not trivially prompting)', () => {
    // (A function definition is not in the allowable whitelist any more: it prompts even under `*`.)
    for (const cmd of ['echo "$(ls)"', "bash -c 'ls'", 'env LC_ALL=C ls', '/bin/ls', '\\ls', 'command ls', 'sh <<EOF\nls\nEOF']) {
      assert.equal(decide(analyzer.analyze(cmd), DENY_THEN_ALLOW, CTX).decision, 'allow', cmd);
    }
  });
});
