// Over the stdio MCP server, with and without progress tokens, sandbox off and on: one client's calls
// share one persistent shell, and nothing an earlier (approved) call left can change what a later
// *allowed* call runs. The host is the judge: the later call's output, canary files, the process table.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { needsApprovalMessage } from '../../../../src/cli/mcp';
import { sessionReplacedNotice } from '../../../../src/exec/persistentShell';
import { probeSandbox } from '../../../../src/exec/sandbox/sandboxProbe';
import { processesWithArg } from '../../exec/helpers';
import { sessionsIsolated } from '../../exec/sessionsIsolated';

const CLI = path.resolve(__dirname, '../../../../../dist/cli.js');
const CALL_TIMEOUT_MS = 180_000;

type TextResult = { content: Array<{ type: string; text: string }>; isError?: boolean };

/** A GBK locale compiled for the test (bash as the judge), or undefined where `localedef` cannot. */
function compileGbk(dir: string): string | undefined {
  const locales = path.join(dir, 'locales');
  mkdirSync(locales, { recursive: true });
  const r = spawnSync('localedef', ['-f', 'GBK', '-i', 'zh_CN', path.join(locales, 'zh_CN.GBK')], { encoding: 'utf8' });
  return r.error || !existsSync(path.join(locales, 'zh_CN.GBK')) ? undefined : locales;
}

/** The line: one `echo` read as UTF-8, an `echo` and a `touch F` read as GBK. */
const GBK_LINE = 'echo "中\\" ; touch F ; # "';

let uniq = 0;

for (const sandbox of ['off', 'on'] as const) {
  for (const progress of [false, true]) {
    describe(`mcp: stdio session cannot be hijacked (sandbox ${sandbox}, ${progress ? 'with' : 'without'} progress tokens)`, function () {
      this.timeout(600_000);
      let tmp: string;
      let locales: string | undefined;
      const clients: Client[] = [];

      before(function () {
        if (sandbox === 'on' && !probeSandbox().sandbox) this.skip();
        tmp = mkdtempSync(path.join(os.tmpdir(), 'agent-bash-hijack-'));
        locales = compileGbk(tmp);
      });

      after(async () => {
        for (const c of clients) await c.close();
        if (tmp) rmSync(tmp, { recursive: true, force: true });
      });

      async function connect(flags: string[], env: Record<string, string> = {}): Promise<(command: string, extra?: Record<string, unknown>) => Promise<{ text: string; isError: boolean }>> {
        const home = path.join(tmp, 'home');
        mkdirSync(home, { recursive: true });
        const rules = path.join(tmp, 'rules.json');
        writeFileSync(rules, JSON.stringify([{ match: 'ls *', approval: 'allow' }, { match: 'echo *', approval: 'allow' }, { match: 'cat *', approval: 'allow' }]));
        const transport = new StdioClientTransport({
          command: process.execPath,
          args: [CLI, 'mcp', ...flags, '--rules', rules, '--cwd', tmp, '--sandbox', sandbox],
          cwd: tmp,
          env: { ...process.env, HOME: home, ...(locales ? { LOCPATH: locales } : {}), ...env } as Record<string, string>,
          stderr: 'pipe',
        });
        const client = new Client({ name: 'hijack-test', version: '1.0.0' });
        await client.connect(transport, { timeout: CALL_TIMEOUT_MS });
        clients.push(client);
        return async (command, extra = {}) => {
          const r = (await client.callTool({ name: 'bash', arguments: { command, ...extra } }, undefined, {
            timeout: CALL_TIMEOUT_MS,
            ...(progress ? { onprogress: () => undefined } : {}),
          })) as TextResult;
          const text = r.content.map((c) => c.text).join('\n').replace(/\n\nWall time: [\d.]+ seconds$/, '');
          return { text, isError: r.isError === true };
        };
      }

      it('one persistent shell per client: an exported variable reaches the next call, and nothing runs as a background job', async () => {
        const bash = await connect(['--yes']);
        assert.deepEqual(await bash('export KEPT=yes; echo set'), { text: 'set', isError: false });
        assert.deepEqual(await bash('echo "$KEPT"'), { text: 'yes', isError: false });
      });

      it('a GBK locale: in `env` and in a prefix the line asks (refused here); an approved export does not carry; an inherited one is read as UTF-8', async function () {
        if (!locales) this.skip();
        const dir = path.join(tmp, `gbk-${++uniq}`);
        mkdirSync(dir);
        // bash itself, with this locale, runs the `touch`: the case is real on this machine.
        spawnSync('bash', ['-c', GBK_LINE], { cwd: dir, env: { ...process.env, LOCPATH: locales, LC_ALL: 'zh_CN.GBK' } });
        assert.equal(existsSync(path.join(dir, 'F')), true, 'bash under GBK should have created F');
        rmSync(path.join(dir, 'F'));
        // UTF-8 (the default here): one echo.
        const ask = await connect([]);
        assert.deepEqual(await ask(GBK_LINE, { cwd: dir }), { text: '中" ; touch F ; # ', isError: false });
        const refused = await ask(GBK_LINE, { cwd: dir, env: { LC_ALL: 'zh_CN.GBK' } });
        assert.equal(refused.isError, true);
        assert.ok(refused.text.startsWith(needsApprovalMessage('').split('(')[0]), refused.text);
        assert.equal((await ask(`LC_ALL=zh_CN.GBK eval '${GBK_LINE.replaceAll("'", "'\\''")}'`, { cwd: dir })).isError, true);
        assert.equal(existsSync(path.join(dir, 'F')), false, 'a refused line ran');
        // Approved (--yes): the export runs, and the next allowed line is still read as UTF-8.
        const yes = await connect(['--yes']);
        // (Inside the sandbox LOCPATH is not passed: bash warns it cannot load the locale, and the case is moot there.)
        const exported = await yes('export LC_ALL=zh_CN.GBK LC_CTYPE=zh_CN.GBK LANG=zh_CN.GBK; echo exported', { cwd: dir });
        assert.equal(exported.text.split('\n').pop(), 'exported');
        if (sandbox === 'off') assert.equal(exported.text, 'exported');
        assert.deepEqual(await yes(GBK_LINE, { cwd: dir }), { text: '中" ; touch F ; # ', isError: false });
        assert.equal(existsSync(path.join(dir, 'F')), false, 'the carried locale re-read an allowed line');
        // The server's own environment names GBK: its shells read lines as UTF-8.
        const inherited = await connect([], { LC_ALL: 'zh_CN.GBK' });
        assert.deepEqual(await inherited(GBK_LINE, { cwd: dir }), { text: '中" ; touch F ; # ', isError: false });
        assert.equal(existsSync(path.join(dir, 'F')), false, 'the inherited locale re-read an allowed line');
      });

      it('a DEBUG trap that reads the next call\'s script (stdin or a saved copy of it), edits and runs it, gets nothing: the next allowed `ls` is the real one', async () => {
        const bash = await connect(['--yes']);
        const stolen = path.join(tmp, `stolen-${++uniq}`);
        const hook = path.join(tmp, `hook-${uniq}.sh`);
        // What is waiting on stdin or on bash's saved copies (fd 10 and up) is taken, its second line
        // on (the body the first one would read) edited and run: the trap.
        writeFileSync(
          hook,
          'for __f in /proc/$BASHPID/fd/*; do __n=${__f##*/}; case $__n in 0|1[0-9]) ;; *) continue;; esac; __s=\n' +
            'IFS= read -r -t 0.2 -d "" -u "$__n" __s 2>/dev/null\n' +
            `if [[ -n $__s ]]; then printf '%s' "$__s" >> '${stolen}'; __s=\${__s#*$'\\n'}; eval "\${__s//ls -d ./echo POISONED-BY-TRAP}"; fi; done\n`,
        );
        assert.equal((await bash(`trap '. ${hook}' DEBUG; echo armed`)).text, 'armed');
        assert.deepEqual(await bash('ls -d .'), { text: '.', isError: false });
        assert.equal(existsSync(stolen) ? readFileSync(stolen, 'utf8').includes('ls -d') : false, false, 'the trap read the next call');
      });

      it('a background subshell holding the saved script and status descriptors is gone before the next call: it reads nothing and stops nothing', async () => {
        const bash = await connect(['--yes']);
        const stolen = path.join(tmp, `stolen-${++uniq}`);
        const lurk = path.join(tmp, `lurk-${uniq}.sh`);
        // A fork keeps every descriptor, close-on-exec or not: it waits until the next call's script
        // can be read on one of them, stops the shell, takes the script, edits it and runs it.
        writeFileSync(
          lurk,
          'while :; do for __f in /proc/$BASHPID/fd/*; do __n=${__f##*/}; [[ -S $__f ]] || continue\n' +
            'if IFS= read -r -t 0 -u "$__n" 2>/dev/null; then kill -STOP $$; IFS= read -r -t 0.5 -d "" -u "$__n" __s\n' +
            `printf '%s' "$__s" >> '${stolen}'; exec 3>&1; __s=\${__s#*$'\\n'}; eval "\${__s//ls -d ./echo POISONED-BY-LEFTOVER}"; kill -CONT $$; exit; fi; done; done\n`,
        );
        assert.equal((await bash(`( . ${lurk} ) >/dev/null 2>&1 & echo started`)).text, 'started');
        assert.deepEqual(await bash('ls -d .'), { text: '.', isError: false });
        assert.equal(existsSync(stolen) ? readFileSync(stolen, 'utf8').includes('ls -d') : false, false, 'the leftover read the next call');
      });

      it('what a call leaves running is gone before the next starts: `wait` and `jobs` are empty, a background writer stopped', async () => {
        const bash = await connect(['--yes']);
        const m = `${process.pid}${++uniq}`;
        const grown = path.join(tmp, `grown-${m}`);
        const r = await bash(
          `sleep 601.${m} & setsid -f sleep 602.${m}; nohup sleep 603.${m} >/dev/null 2>&1 & ( ( exec sleep 604.${m} ) & ); coproc sleep 605.${m}; ` +
            // The call ends once the writer has written: the next call must stop a writer that runs.
            `disown -a; bash -c 'while :; do echo x >> "$1"; sleep 0.05; done' writer-${m} ${grown} & until [ -s ${grown} ]; do sleep 0.02; done; echo started`,
        );
        assert.equal(r.text, 'started');
        const next = await bash('jobs; wait; echo "[${COPROC_PID-}]"; cat /dev/null; echo done');
        assert.deepEqual(next, { text: '[]\ndone', isError: false });
        assert.deepEqual(processesWithArg(`${m}`), []);
        const size = statSync(grown).size;
        assert.equal((await bash(`cat ${grown} >/dev/null; echo read`)).text, 'read');
        assert.equal(statSync(grown).size, size, 'the background writer still writes');
      });

      for (const [form, why] of [
        ['kill -STOP $$', 'stopped'],
        ['enable -n builtin', 'silent'],
        ['exec >/dev/null', 'silent'],
        ['exec 2>&- 1>&-', 'silent'],
        ['set -n', 'silent'],
      ] as const) {
        // In a subshell of its own (a sandboxed session) the form reaches only the command; `kill
        // -STOP $$` still stops the session's shell.
        const ownShell = sandbox === 'on' && why !== 'stopped' && sessionsIsolated();
        it(`\`${form}\` ${ownShell ? 'ends with its command: the session goes on' : "is noticed within seconds (not at the call's timeout) and the shell replaced"}`, async () => {
          const bash = await connect(['--yes']);
          assert.equal((await bash('export KEPT=1; echo set')).text, 'set');
          // Not noticed, the call would end at its timeout instead, with the timeout's notice.
          const r = await bash(`${form}; echo after`, { timeout: 120 });
          if (ownShell) {
            assert.ok(!r.text.includes('The shell session stopped answering'), r.text);
            assert.deepEqual(await bash('echo "[${KEPT-}]"'), { text: '[1]', isError: false });
            return;
          }
          assert.ok(r.text.includes(sessionReplacedNotice(why)), r.text);
          assert.deepEqual(await bash('echo "[${KEPT-}]"'), { text: '[]', isError: false });
        });
      }
    });
  }
}
