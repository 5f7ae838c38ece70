import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { PolicyDecision, PolicyRule, RuleLayer, ShellAnalyzer } from '../../../../src/core/contracts';
import { BUILTIN_LAYER_SOURCE, BUILTIN_RULES } from '../../../../src/core/policy/rules/builtinRules';
import { PACKAGE_CONFIG } from '../../../../src/core/policy/checks/packageConfig';
import { decide } from '../../../../src/core/policy/policy';
import { REASON } from '../../../../src/core/policy/policyReasons';
import { RAW_CONSTRUCT } from '../../../../src/core/policy/analysis/rawTextScan';
import { isSensitiveVariable, VARIABLE_REASON } from '../../../../src/core/policy/analysis/sensitiveVariables';
import { createShellAnalyzer, UNCERTAIN } from '../../../../src/core/policy/analysis/shellAnalysis';
import { OPAQUE } from '../../../../src/core/policy/analysis/shellNormalize';
import { TASK_RUNNER_REASON } from '../../../../src/core/policy/programs/taskRunners';
import { ARITHMETIC_ON_ASSIGNMENT } from '../../../../src/core/policy/analysis/variableWrites';
import { TEST_EXPANDER } from '../../core/policy/testExpander';

// Issue 29's classes (hostile lines that were auto-approved and did harm), each in several
// spellings. Where the question is "what would bash run", bash itself is the judge: the line runs
// in a scratch folder and the test asserts that it really created `keep` there, and that the
// policy asks (or, for the controls, that bash ran nothing and the policy allows).
describe('core/policy issue 29: read-only classes', function () {
  this.timeout(60_000);
  let analyzer: ShellAnalyzer;
  let ws: string;
  const builtin: RuleLayer[] = [{ layer: 'builtin', source: BUILTIN_LAYER_SOURCE, rules: [...BUILTIN_RULES] }];
  const withUser = (...allow: string[]): RuleLayer[] => [...builtin, { layer: 'user', source: 'user settings', rules: allow.map((match) => ({ match, approval: 'allow' as const })) }];
  before(async () => {
    analyzer = await createShellAnalyzer();
    ws = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'agent-bash-i29-')));
    fs.writeFileSync(path.join(ws, 'README.md'), '# readme\n');
    fs.mkdirSync(path.join(ws, 'sub'));
  });
  after(() => fs.rmSync(ws, { recursive: true, force: true }));

  const run = (command: string, rules: RuleLayer[] | PolicyRule[] = builtin, cwd = ws): PolicyDecision =>
    decide(analyzer.analyze(command), rules, { cwd, workspaceRoots: [ws], expander: TEST_EXPANDER });
  const expectAll = (lines: readonly string[], decision: 'allow' | 'prompt' | 'deny', rules?: RuleLayer[] | PolicyRule[], cwd?: string): void => {
    for (const line of lines) {
      const d = run(line, rules, cwd);
      assert.equal(d.decision, decision, `${JSON.stringify(line)}: ${d.reason}`);
    }
  };

  /** Runs the line with bash in a fresh folder: did it create `keep`? */
  function bashCreatesKeep(line: string, setup?: (dir: string) => void): boolean {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-bash-i29-bash-'));
    try {
      setup?.(dir);
      const r = spawnSync('bash', ['-c', line], { cwd: dir, encoding: 'utf8', timeout: 20_000, env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: dir, SHELL: '/bin/sh' } });
      assert.equal(r.error, undefined, `${line}: ${String(r.error)}`);
      return fs.existsSync(path.join(dir, 'keep'));
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }

  describe('1. here-documents: an indented line hides nothing', () => {
    const hostile = [
      'cat <<EOF\n  $(touch keep)\nEOF',
      'cat <<EOF\n\t$(touch keep)\nEOF',
      'cat <<-EOF\n\t$(touch keep)\n\tEOF',
      'grep x <<EOF\n $(touch keep)\nEOF',
      'wc -l <<EOF\nfirst line\n   $(touch keep)\nlast\nEOF',
      'head -1 <<EOF\n  \\\\$(touch keep)\nEOF',
      'cat <<EOF | wc -l\n  ok $HOME\n    $(touch keep; cat README.md)\nEOF',
      'echo "$(cat <<EOF\n  $(touch keep)\nEOF\n)"',
      'cat <<EOF\n  `touch keep`\nEOF',
      'cat <<EOF\n  $(echo a\n  touch keep)\nEOF',
    ];
    it('bash runs each substitution, and the built-in list asks', () => {
      for (const line of hostile) {
        assert.equal(bashCreatesKeep(line), true, `bash did not run ${JSON.stringify(line)}`);
        const d = run(line);
        assert.equal(d.decision, 'prompt', `${JSON.stringify(line)}: ${d.reason}`);
      }
    });
    it('a deny rule on the hidden command still denies (the substitution is a segment)', () => {
      const rules: PolicyRule[] = [...BUILTIN_RULES, { match: 'touch *', approval: 'deny' }];
      for (const line of hostile.filter((l) => !l.includes('`'))) {
        const d = run(line, rules);
        assert.equal(d.decision, 'deny', `${JSON.stringify(line)}: ${d.reason}`);
        assert.equal(d.rule?.match, 'touch *', JSON.stringify(line));
      }
    });
    it('the found command is judged like any other (an outside path asks for that reason)', () => {
      const d = run('cat <<EOF\n  $(cat ../other/.env)\nEOF');
      assert.equal(d.decision, 'prompt');
      assert.equal(d.kind, 'external_directory', d.reason);
    });
    it('an expansion that cannot be read makes the line uncertain', () => {
      const d = run('cat <<EOF\n  $(echo a\nEOF');
      assert.equal(d.decision, 'prompt');
      assert.equal(d.reason, REASON.uncertain(UNCERTAIN.heredocExpansion('$(echo a\n')));
    });
    it('controls: bash runs nothing, and the line stays allowed', () => {
      for (const line of [
        "cat <<'EOF'\n  $(touch keep)\nEOF",
        'cat <<"EOF"\n\t$(touch keep)\nEOF',
        'cat <<EOF\n  $HOME and $1 and $? and ${USER}\n\tplain\nEOF',
        'wc -l <<-EOF\n\tone\n\ttwo\n\tEOF',
      ]) {
        assert.equal(bashCreatesKeep(line), false, `bash ran ${JSON.stringify(line)}`);
        const d = run(line);
        assert.equal(d.decision, 'allow', `${JSON.stringify(line)}: ${d.reason}`);
      }
    });
  });

  describe("2. bash's integer variables evaluate what is assigned to them", () => {
    // Candidates: bash's own numeric variables. bash decides which evaluate a value as arithmetic.
    const candidates = ['OPTIND', 'RANDOM', 'SRANDOM', 'HISTCMD', 'SECONDS', 'LINENO', 'COLUMNS', 'LINES', 'HISTSIZE', 'OPTERR', 'TMOUT', 'EPOCHSECONDS', 'COMP_CWORD'];
    it('asks exactly for the names bash evaluates (bash as the judge), and the table matches', () => {
      const evaluated: string[] = [];
      for (const name of candidates) {
        // SECONDS evaluates a value given by `for` but not by `=`: both forms are in the line.
        const line = `${name}='a[$(touch keep)]'; for ${name} in 'b[$(touch keep)]'; do true; done; echo ok`;
        const ran = bashCreatesKeep(line);
        if (ran) evaluated.push(name);
        const d = run(line);
        // A name that is sensitive anyway (TMOUT: `read`'s timeout) asks for that reason.
        assert.equal(d.decision, ran || isSensitiveVariable(name) ? 'prompt' : 'allow', `${line}: bash ${ran ? 'ran' : 'did not run'} it; ${d.reason}`);
        if (ran) assert.equal(d.reason, REASON.construct(VARIABLE_REASON.arithmeticValue(name, 'an assignment')));
      }
      // MAILCHECK does it only in an interactive shell; it is in the table too.
      assert.deepEqual(evaluated, [...ARITHMETIC_ON_ASSIGNMENT].filter((n) => n !== 'MAILCHECK'));
    });
    it('every form of assignment runs the subscript under bash, and asks', () => {
      const payload = "'a[$(touch keep)]'";
      for (const line of [
        `OPTIND+=${payload}`,
        `for OPTIND in ${payload}; do :; done`,
        `read OPTIND <<< ${payload}`,
        `printf -v RANDOM %s ${payload}`,
        `declare SECONDS=${payload}`,
        `export HISTCMD=${payload}`,
        "OPTIND=$'a[$(touch keep)]'",
        "OPTIND=a'[$(touch keep)]'",
        `SRANDOM=${payload}; echo ok`,
        `declare -i n; n=${payload}`,
        `typeset -i n=${payload}`,
        `x=OPTIND; declare "$x"=${payload}`,
        `x=OPTIND; printf -v "$x" %s ${payload}`,
      ]) {
        assert.equal(bashCreatesKeep(line), true, `bash did not run ${line}`);
        const d = run(line);
        assert.equal(d.decision, 'prompt', `${line}: ${d.reason}`);
      }
    });
  });

  describe("3. a repository's own package-manager config", () => {
    let project: string;
    beforeEach(() => {
      project = fs.mkdtempSync(path.join(ws, 'proj-'));
      fs.mkdirSync(path.join(project, 'deep'));
    });
    afterEach(() => fs.rmSync(project, { recursive: true, force: true }));
    const at = (lines: readonly string[], decision: 'allow' | 'prompt', rules: RuleLayer[] = builtin, cwd = project): void => expectAll(lines, decision, rules, cwd);

    it('npm read forms stay allowed without a project .npmrc', () => {
      at(['npm ls', 'npm --version', 'npm view react version', 'npm config get registry'], 'allow');
    });
    it('npm read forms ask when the cwd or a folder above it has a .npmrc, naming the file', () => {
      fs.writeFileSync(path.join(project, '.npmrc'), 'globalconfig=./g\nregistry=https://x/${GITHUB_TOKEN}/\n');
      at(['npm ls', 'npm -v', 'npm --version', 'npm view react', 'npm outdated', 'npm config list'], 'prompt');
      at(['npm ls --json'], 'prompt', builtin, path.join(project, 'deep'));
      const d = run('npm ls', builtin, path.join(project, 'deep'));
      assert.equal(d.reason, PACKAGE_CONFIG.found('npm ls', 1, path.join(project, '.npmrc'), 'npm'));
      // A runner a rule allows runs the project's code by design: the config check is for read forms.
      at(['npm test'], 'allow', withUser('npm test*'));
    });
    it('pnpm and yarn are not in the built-in list at all', () => {
      at(['pnpm --version', 'pnpm ls', 'yarn --version', 'yarn info react', 'yarn why react', 'pnpm why react'], 'prompt');
    });
    it('under a rule of yours, their read forms ask when the project has their config', () => {
      const rules = withUser('yarn *', 'pnpm *');
      at(['yarn info react', 'pnpm ls'], 'allow', rules);
      fs.writeFileSync(path.join(project, '.yarnrc'), 'yarn-path "./evil.js"\n');
      at(['yarn info react', 'yarn why react'], 'prompt', rules, path.join(project, 'deep'));
      fs.rmSync(path.join(project, '.yarnrc'));
      fs.writeFileSync(path.join(project, '.yarnrc.yml'), 'yarnPath: ./evil.cjs\n');
      at(['yarn list'], 'prompt', rules);
      fs.writeFileSync(path.join(project, '.pnpmfile.cjs'), 'require("fs").writeFileSync("keep","")\n');
      at(['pnpm ls', 'pnpm why react', 'pnpm outdated'], 'prompt', rules);
    });
  });

  describe('4. git options that pick the repository or open files', () => {
    it('ask', () => {
      expectAll(
        [
          'git --bare log', 'git --bare diff HEAD~1', 'git --git-dir=. log -p', 'git --git-dir . status', 'git --work-tree=. status',
          'git --namespace=x log', 'git -c diff.x.textconv=sh log -p', 'git --config-env=core.pager=X log', 'git --exec-path=. status',
          'git ls-files -o --exclude-per-directory=.bash_history', 'git ls-files --exclude-per-directory .env -o',
          'git ls-files -o --exclude-per-dir=x',
        ],
        'prompt',
      );
      assert.equal(run('git --bare log').reason, REASON.opaque('git log', 1, OPAQUE.gitRepository('--bare')));
    });
    it('everyday forms stay allowed', () => {
      expectAll(['git --no-pager log -1', 'git ls-files -o --exclude-standard', 'git -C sub status', 'git ls-files -X README.md -o'], 'allow');
    });
  });

  describe('5. man reads page files that include any other file', () => {
    it('asks for -l, a path operand and -M, whatever rule allows man', () => {
      const rules = withUser('man *');
      expectAll(['man -l ./page.1', 'man ./page.1', 'man --local-file page.1', 'man --local page.1', 'man sub/page.1', 'man -M ./man ls', 'man --manpath=sub ls', 'man "$P"'], 'prompt', rules);
      expectAll(['man ls', 'man 1 ls', 'man -k printf', 'man -f ls'], 'allow', rules);
    });
  });

  describe('6. exec replaces the persistent shell', () => {
    it('asks in every form, even under a rule that allows everything; a deny rule still denies', () => {
      const everything: PolicyRule[] = [{ match: '*', approval: 'allow', allowRedirects: true }];
      const denyTouch: RuleLayer[] = [
        { layer: 'user', source: 'user settings', rules: everything },
        { layer: 'workspace', source: 'workspace settings', rules: [{ match: 'touch *', approval: 'deny' }] },
      ];
      for (const line of ['exec ls', 'exec -c ls', 'exec -a x ls', 'exec -cl -a x ls', 'exec', 'exec 3<README.md', 'exec >/dev/null', 'exec 2>&1', 'command exec ls', 'builtin exec ls', '\\exec ls', "'exec' ls", 'ls; exec cat']) {
        const d = run(line, everything);
        assert.equal(d.decision, 'prompt', `${line}: ${d.reason}`);
        assert.equal(d.kind, 'opaque', `${line}: ${d.reason}`);
      }
      expectAll(['exec ls'], 'prompt');
      assert.equal(run('exec touch keep', denyTouch).decision, 'deny');
      assert.equal(run('exec -a x touch keep', denyTouch).decision, 'deny');
    });
  });

  describe("7. the parent's secrets and the settings every command is given", () => {
    it('an expansion of a secret-looking name asks, wherever it is', () => {
      for (const [line, name] of [
        ['echo "$GITHUB_TOKEN"', 'GITHUB_TOKEN'],
        ['printf "%s\\n" "${NPM_TOKEN}"', 'NPM_TOKEN'],
        ['echo "${#AWS_SECRET_ACCESS_KEY}"', 'AWS_SECRET_ACCESS_KEY'],
        ['cat <<< "$OPENAI_API_KEY"', 'OPENAI_API_KEY'],
        ['cat <<EOF\n  token: $GH_TOKEN\nEOF', 'GH_TOKEN'],
        ['grep x <<EOF\n${DB_PASSWORD}\nEOF', 'DB_PASSWORD'],
        ['echo "$SSH_AUTH_SOCK"', 'SSH_AUTH_SOCK'],
        ['echo "$VSCODE_GIT_IPC_HANDLE"', 'VSCODE_GIT_IPC_HANDLE'],
        ['echo "$DATABASE_URL"', 'DATABASE_URL'],
        ['echo "$(echo "$ANTHROPIC_API_KEY")"', 'ANTHROPIC_API_KEY'],
      ] as const) {
        assert.equal(run(line).reason, REASON.construct(RAW_CONSTRUCT.secret(name)), line);
      }
    });
    it('jq reading the environment, awk ENVIRON, printenv and env ask', () => {
      expectAll(['jq -n env.GITHUB_TOKEN', "jq -n '$ENV.GITHUB_TOKEN'", 'jq -n env', "jq -n '$ENV | keys'", "jq -r 'env | .HOME' package.json", 'jq -f prog.jq data.json', 'printenv', 'printenv GITHUB_TOKEN', 'env'], 'prompt');
      expectAll(["awk 'BEGIN { print ENVIRON[\"GITHUB_TOKEN\"] }'"], 'prompt', withUser('awk *'));
      expectAll(['echo "$HOME" "$USER" "$PWD" "$KEYBOARD" "$GIT_AUTHOR_NAME"', 'jq .env package.json', "jq '.[\"env\"]' package.json", 'jq .environment.name package.json'], 'allow');
    });
    it('env -u / -i / - drop the settings Agent Bash forces (GIT_OPTIONAL_LOCKS, npm_config_logs_max): ask, deny still denies', () => {
      for (const line of ['env -u GIT_OPTIONAL_LOCKS git status', 'env -u npm_config_logs_max npm ls', 'env --unset=GIT_OPTIONAL_LOCKS git status', 'env --uns GIT_OPTIONAL_LOCKS git status', 'env -i git status', 'env --ignore-environment git diff', 'env - git status', 'env -iu X ls', 'env -0u X ls']) {
        const d = run(line);
        assert.equal(d.decision, 'prompt', `${line}: ${d.reason}`);
        assert.equal(d.kind, 'opaque', `${line}: ${d.reason}`);
      }
      assert.equal(run('env -u GIT_OPTIONAL_LOCKS git status').reason, REASON.opaque('git status', 1, OPAQUE.envUnset('-u')));
      assert.equal(run('env -i rm -rf x', [{ match: 'rm *', approval: 'deny' }]).decision, 'deny');
      expectAll(['env TZ=UTC git status', 'env LC_ALL=C ls'], 'allow');
    });
  });

  describe('8. user rules for runners: the forms that change what runs ask under the rule', () => {
    const rules = withUser('make test*', 'python3 -m pytest*', 'pytest*', 'awk *', 'jq *', 'node *');
    it('make: command-line variables and options that read other make text', () => {
      const lines = [
        'make test SHELL=rm', "make test '.SHELLFLAGS=-c rm -f keep;:'", "make test 'X:=$(shell rm -f keep)'", "make test 'X!=rm -f keep'",
        'make test CC=rm', 'make test --eval=x', 'make test --ev=x', "make test -E 'x:=1'", 'make test -f -', 'make test -sf other.mk',
        'make test --file=x', 'make test --makefile x', 'make test -C ../other', 'make test --directory=sub', 'make test -I inc',
        'make test -e', 'make test -t', 'make test "$X"',
      ];
      for (const line of lines) {
        const d = run(line, rules);
        assert.equal(d.decision, 'prompt', `${line}: ${d.reason}`);
        assert.equal(d.kind, 'opaque', `${line}: ${d.reason}`);
      }
      assert.equal(run('make test SHELL=rm', rules).reason, REASON.opaque('make test SHELL=rm', 1, TASK_RUNNER_REASON.makeVariable('SHELL=rm')));
      expectAll(['make test', 'make test -j4', 'make test -k -s', 'make test -O -j 8', 'make test --no-print-directory'], 'allow', rules);
    });
    it('make: GNU make really runs the code of those forms (make as the judge)', function () {
      if (spawnSync('make', ['--version']).status !== 0) this.skip();
      const makefile = (dir: string): void => fs.writeFileSync(path.join(dir, 'Makefile'), 'test:\n\t@echo ok; true\n');
      for (const line of ['make test SHELL=touch .SHELLFLAGS=keep', "make test 'X:=$(shell touch keep)'", "make test 'X!=touch keep'", "make test --eval='$(shell touch keep)'", "make test -E '$(shell touch keep)'", "echo 'x:=$(shell touch keep)' | make test -f - -f Makefile"]) {
        assert.equal(bashCreatesKeep(line, makefile), true, `make did not run ${line}`);
        assert.equal(run(line, rules).decision, 'prompt', line);
      }
      assert.equal(bashCreatesKeep('make test', makefile), false);
    });
    it('pytest: only selection and report options are approved', () => {
      const lines = [
        'python3 -m pytest --junitxml=keep', 'python3 -m pytest --junit-xml keep', 'python3 -m pytest --basetemp=.git', 'python3 -m pytest -o cache_dir=../x',
        'python3 -m pytest -p plugin', 'python3 -m pytest -pplugin', 'python3 -m pytest -c file.ini', 'python3 -m pytest --rootdir=..',
        'python3 -m pytest --confcutdir=/', 'python3 -m pytest -W error::mod.Warn', 'python3 -m pytest --pdb', 'python3 -m pytest ../other/tests',
        'python3 -m pytest /etc', 'python3 -m pytest --ignore=../x', 'pytest --junitxml=out.xml', 'pytest --debug', 'python3 -X importtime -m pytest',
        'python3 -m pytest --cov=src --cov-report=html:/tmp/x', 'python3 -m pytest "$ARGS"',
      ];
      for (const line of lines) {
        const d = run(line, rules);
        assert.equal(d.decision, 'prompt', `${line}: ${d.reason}`);
      }
      expectAll(['python3 -m pytest', 'python3 -m pytest -x -q tests/', 'python3 -m pytest -vx -k "a and not b" tests/test_a.py::test_b', 'python3 -m pytest -rA --tb=short', 'pytest -q --maxfail=1 --durations=5', 'python3 -m pytest -p no:cacheprovider'], 'allow', rules);
      expectAll(['python3 -B -m pytest -s', 'python3 -u -m pytest'], 'allow', withUser('python3 *'));
    });
    it('awk: ARGV, ARGC and ENVIRON in the program or as assignments ask', () => {
      expectAll(
        ["awk 'BEGIN { ARGV[1] = \"../home/.ssh/id_rsa\"; ARGC = 2 } { print }'", "awk 'BEGIN{ARGC=1} {print}' README.md", "awk '{ print }' README.md ARGC=3", "awk -v ARGC=2 '{print}' README.md", "awk 'BEGIN { while ((getline l < \"/etc/shadow\") > 0) print l }'", "awk '{ print > \"keep\" }' README.md", "awk 'BEGIN { system(\"rm -f keep\") }'", "awk 'BEGIN { \"id\" |& getline x }'"],
        'prompt',
        rules,
      );
      expectAll(["awk '{ print $1 }' README.md", "awk -F: '{ n++ } END { print n }' README.md", "awk -v x=1 '{ print x }' README.md"], 'allow', rules);
    });
    it('node --version reads no program from standard input', () => {
      expectAll(['node --version', 'node -v', 'python3 --version', 'python3 -V'], 'allow', withUser('node *', 'python3 *'));
      assert.equal(run('node', withUser('node *')).reason, REASON.opaque('node', 1, OPAQUE.programFromStdin('node')));
      assert.equal(run('node --version -', withUser('node *')).decision, 'prompt');
    });
  });
});
