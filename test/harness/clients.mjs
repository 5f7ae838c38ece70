// `npm run test:clients`: the opt-in check that real third-party MCP clients — Claude Code, Codex CLI,
// Gemini CLI — work with the stdio MCP server (`node dist/cli.js mcp`), offline: each client's model
// endpoint is a fake on 127.0.0.1 (test/harness/fakeModels.mjs) that calls our tools and quotes what
// came back. Installs the pinned clients into the cache once; skips, saying why, when they cannot be
// installed. Prints one PASS/FAIL/INFO line per observation and exits 1 on any FAIL. Each client runs
// with a home of its own, so nothing of the user's configuration is read or changed. Each is set up
// with exactly the lines the docs give it (docs/CLI-AND-MCP.md, "Each client, from setup to a headless
// agent"), with a rules file that allows the demo's commands: no extra flag the docs do not list.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fakeAnthropic, fakeGemini, fakeResponses } from './fakeModels.mjs';
import { CLIENT_PACKAGES, CLIENTS_DIR } from './versions.mjs';

const root = path.resolve(import.meta.dirname, '..', '..');
const cli = path.join(root, 'dist', 'cli.js');
const bin = (name) => path.join(CLIENTS_DIR, 'node_modules', '.bin', name);
/** One client run, generous: a busy 2-core machine starts these CLIs in 10–20 s. */
const RUN_TIMEOUT_MS = 240_000;
/** `codex exec` runs with the server as `codex mcp add` configures it (the first-turn race). */
const PROBES = 3;
const only = (process.env.AGENT_BASH_CLIENTS ?? 'claude,codex,gemini').split(',');

let failures = 0;
function report(kind, name, observed) {
  if (kind === 'FAIL') failures++;
  console.log(`${kind} ${name}: ${observed}`);
}
const check = (name, ok, observed) => report(ok ? 'PASS' : 'FAIL', name, observed);
const show = (text) => JSON.stringify(text.length > 400 ? `${text.slice(0, 150)}…${text.slice(-250)}` : text);

function install() {
  const stamp = path.join(CLIENTS_DIR, '.done');
  if (existsSync(stamp) && readFileSync(stamp, 'utf8') === CLIENT_PACKAGES.join('\n')) return undefined;
  mkdirSync(CLIENTS_DIR, { recursive: true });
  writeFileSync(path.join(CLIENTS_DIR, 'package.json'), '{"private":true}\n');
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^npm_/i.test(k)));
  const res = spawnSync('npm', ['install', '--no-save', '--no-audit', '--no-fund', ...CLIENT_PACKAGES], { cwd: CLIENTS_DIR, stdio: 'inherit', env });
  if (res.status !== 0) return `installing ${CLIENT_PACKAGES.join(' ')} failed (exit ${res.status}; offline?)`;
  writeFileSync(stamp, CLIENT_PACKAGES.join('\n'));
  return undefined;
}

/** Runs a client in its own process group; the whole group is killed when it ends or times out. */
function run(cmd, args, { env, cwd }) {
  return new Promise((resolve) => {
    const child = spawn(cmd, args, { cwd, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    const killGroup = () => {
      try {
        process.kill(-child.pid, 'SIGKILL');
      } catch {
        // already gone
      }
    };
    const timer = setTimeout(killGroup, RUN_TIMEOUT_MS);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      killGroup();
      resolve({ code, signal, stdout, stderr });
    });
  });
}

/** Our stdio servers still alive for this run (a client must end the server it started). */
function leftoverServers(work) {
  const left = [];
  for (const pid of readdirSync('/proc').filter((p) => /^\d+$/.test(p))) {
    try {
      const cmd = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
      if (cmd.includes(cli) && cmd.some((arg) => arg.startsWith(work))) left.push(Number(pid));
    } catch {
      // gone meanwhile
    }
  }
  return left;
}

/** Waits (bounded) for the servers a client started to end after the client did; kills the rest. */
async function expectNoLeftovers(name, work) {
  let left = leftoverServers(work);
  for (let i = 0; i < 100 && left.length > 0; i++) {
    await new Promise((r) => setTimeout(r, 100));
    left = leftoverServers(work);
  }
  check(`${name}: stdio server ended with the client`, left.length === 0, left.length === 0 ? 'no server process left' : `still running: ${left.join(' ')}`);
  for (const pid of left) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // gone
    }
  }
}

const PRINTF = { command: "printf 'a\\nb\\n'; exit 3", description: 'demo' };
/** Our wall time line; Codex gets none (it prints its own). */
const WALL = '(?:\\n\\nWall time: [0-9.]+ seconds)?';
const PRINTF_TEXT = new RegExp(`^a\\nb${WALL}\\n\\nCommand exited with code 3$`);
const BIG = { command: 'seq 1 300000' };
const BIG_TAIL = new RegExp(
  `\\n299999\\n300000${WALL}\\n\\n\\[Showing lines 1-\\d+ and \\d+-300000 of 300000; [\\d,]+ middle lines \\([\\d.]+MB\\) elided\\. Read artifact:\\/\\/(\\d+) for full output\\]$`,
);
/** The docs' server line (docs/CLI-AND-MCP.md): `node …/dist/cli.js mcp --rules rules.json`, with rules that allow the demo. */
function readmeServer(work) {
  const rules = path.join(work, 'rules.json');
  writeFileSync(rules, JSON.stringify(['printf *', 'exit *', 'seq *'].map((match) => ({ match, approval: 'allow' }))));
  return ['node', cli, 'mcp', '--rules', rules];
}
const readText = (id) => `1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n[artifact://${id}: bytes 0-20 of 1988895; continue with offset 20]`;
const FINAL = 'Done: the tool results were checked.';

/** The model's part, the same for every client: printf (with `description`), 2 MB, read_artifact of its footer. */
function demoScript(unwrap = (t) => t) {
  return {
    tools: ['bash', 'read_artifact'],
    next(results) {
      if (results.length === 0) return { tool: 'bash', input: PRINTF };
      if (results.length === 1) return { tool: 'bash', input: BIG };
      if (results.length === 2) {
        const id = BIG_TAIL.exec(unwrap(results[1]))?.[1];
        return id ? { tool: 'read_artifact', input: { id: `artifact://${id}`, offset: 0, limit: 20 } } : { text: FINAL };
      }
      return { text: FINAL };
    },
  };
}

function checkResults(name, results, unwrap = (t) => t, clientTimesCalls = false) {
  check(`${name}: tools called`, results.length === 3, `${results.length} results came back (3 calls: bash, bash, read_artifact)`);
  const first = unwrap(results[0] ?? '');
  check(`${name}: bash with description`, PRINTF_TEXT.test(first), `result ${show(first)}`);
  const walls = (results[0] ?? '').match(/Wall time: /g)?.length ?? 0;
  check(`${name}: one wall time per result`, walls === 1, `the model read ${walls} wall time line(s)${clientTimesCalls ? ' (the client prints its own)' : ''}`);
  const big = unwrap(results[1] ?? '');
  const id = BIG_TAIL.exec(big)?.[1];
  check(
    `${name}: 2 MB result`,
    big.length < 50_000 && id !== undefined,
    `${big.length} characters reached the model${id ? `, ending with 300000 and the footer naming artifact://${id}` : `; tail ${show(big.slice(-300))}`}`,
  );
  const read = unwrap(results[2] ?? '');
  check(`${name}: read_artifact artifact://${id}`, id !== undefined && read === readText(id), `result ${show(read)}`);
}

async function claude(work) {
  const name = 'Claude Code';
  const home = path.join(work, 'claude-home');
  mkdirSync(home, { recursive: true });
  const env = {
    HOME: home,
    CLAUDE_CONFIG_DIR: path.join(home, '.claude'),
    ANTHROPIC_API_KEY: 'dummy',
    DISABLE_TELEMETRY: '1',
    DISABLE_AUTOUPDATER: '1',
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
  };
  const version = (await run(bin('claude'), ['--version'], { env, cwd: work })).stdout.trim();
  report('INFO', name, `version ${version}`);
  const add = await run(bin('claude'), ['mcp', 'add', 'agent-bash', '--', ...readmeServer(work)], { env, cwd: work });
  check(`${name}: claude mcp add`, add.code === 0, `exit ${add.code} ${show(add.stdout.trim() || add.stderr.trim())}`);
  const list = await run(bin('claude'), ['mcp', 'list'], { env, cwd: work });
  const line = list.stdout.split('\n').find((l) => l.startsWith('agent-bash:')) ?? '';
  check(`${name}: claude mcp list`, line.endsWith('✔ Connected'), show(line || list.stdout + list.stderr));

  const fake = await fakeAnthropic(demoScript(), 'mcp__agent-bash__');
  try {
    const res = await run(
      bin('claude'),
      ['-p', 'Run the demo with the agent-bash tools.', '--allowedTools', 'mcp__agent-bash'],
      { env: { ...env, ANTHROPIC_BASE_URL: fake.url }, cwd: work },
    );
    const main = fake.requests.filter((r) => (r.body?.tools ?? []).length > 0);
    const firstHas = (main[0]?.body.tools ?? []).some((t) => t.name === 'mcp__agent-bash__bash');
    const firstText = JSON.stringify(main[0]?.body ?? '');
    const connecting = firstText.includes('still connecting');
    const deferred = firstText.includes('mcp__agent-bash__bash\\n');
    report(
      'INFO',
      `${name}: first request`,
      firstHas
        ? 'our tools were in it'
        : `our tools' schemas were not in it; ${
            connecting
              ? 'the CLI said the server was "still connecting" and to load its tools with ToolSearch (the fake model did)'
              : deferred
                ? 'they were named as deferred tools to load with ToolSearch (the fake model did)'
                : 'nor their names'
          }`,
    );
    check(`${name}: claude -p`, res.code === 0 && res.stdout.trim() === FINAL, `exit ${res.code} stdout ${show(res.stdout.trim())}${res.code ? ` stderr ${show(res.stderr)}` : ''}`);
    checkResults(name, fake.results);
    check(`${name}: is_error`, fake.errors.join(',') === 'true,false,false', `tool_result is_error per call: ${fake.errors.join(', ')} (exit 3 → true)`);
  } finally {
    fake.server.close();
  }
  await expectNoLeftovers(name, work);
}

/** Codex prints a tool's result as "Wall time: …\nOutput:\n<text>" to the model. */
const codexUnwrap = (t) => t.replace(/^Wall time: [0-9.]+ seconds\nOutput:\n/, '');

async function codex(work) {
  const name = 'Codex';
  const home = path.join(work, 'codex-home');
  const codexHome = path.join(home, '.codex');
  mkdirSync(codexHome, { recursive: true });
  const env = { HOME: home, CODEX_HOME: codexHome, FAKE_KEY: 'dummy' };
  const version = (await run(bin('codex'), ['--version'], { env, cwd: work })).stdout.trim();
  report('INFO', name, `version ${version}`);
  const add = await run(bin('codex'), ['mcp', 'add', 'agent-bash', '--', ...readmeServer(work)], { env, cwd: work });
  check(`${name}: codex mcp add`, add.code === 0, `exit ${add.code} ${show(add.stdout.trim() || add.stderr.trim())}`);
  const list = await run(bin('codex'), ['mcp', 'list'], { env, cwd: work });
  const line = list.stdout.split('\n').find((l) => l.startsWith('agent-bash ')) ?? '';
  check(`${name}: codex mcp list`, /\benabled\b/.test(line), show(line.replace(/\s+/g, ' ') || list.stdout + list.stderr));

  const ours = (ns) => ns === 'mcp__agent_bash';
  const provider = (url) => [
    '-c', 'model="fake-model"', '-c', 'model_provider="fake"',
    '-c', `model_providers.fake={name="fake",base_url="${url}/v1",wire_api="responses",env_key="FAKE_KEY"}`,
  ];
  const exec = (url, extra) => run(bin('codex'), ['exec', '--skip-git-repo-check', ...provider(url), ...extra, 'Run the demo with the agent-bash tools.'], { env, cwd: work });

  // As configured by `codex mcp add`: Codex gives an optional server about a second to list its tools
  // before the first turn, so whether ours are in it depends on the machine's load.
  const listedIn = [];
  for (let i = 0; i < PROBES; i++) {
    const probe = await fakeResponses({ tools: [], next: () => ({ text: FINAL }) }, ours);
    try {
      const res = await exec(probe.url, []);
      const first = probe.requests.find((r) => r.url?.endsWith('/responses'));
      listedIn.push(res.code === 0 && (first?.body.tools ?? []).some((t) => t.type === 'namespace' && ours(t.name)));
    } finally {
      probe.server.close();
    }
    await expectNoLeftovers(`${name} (default settings, run ${i + 1})`, work);
  }
  report('INFO', `${name}: first turn, default server settings`, `our tools were in it in ${listedIn.filter(Boolean).length} of ${PROBES} runs (load average ${os.loadavg()[0].toFixed(1)})`);

  // The docs' two lines under [mcp_servers.agent-bash]: `required = true` makes Codex wait for the
  // server; MCP calls need approval, which `codex exec` cannot ask for.
  const configFile = path.join(codexHome, 'config.toml');
  const config = readFileSync(configFile, 'utf8');
  const table = '[mcp_servers.agent-bash]\n';
  check(`${name}: config.toml has the server's table`, config.includes(table), show(config));
  writeFileSync(configFile, config.replace(table, `${table}required = true\ndefault_tools_approval_mode = "approve"\n`));
  const fake = await fakeResponses(demoScript(codexUnwrap), ours);
  try {
    const res = await exec(fake.url, []);
    const first = fake.requests.find((r) => r.url?.endsWith('/responses'));
    const listed = (first?.body.tools ?? []).some((t) => t.type === 'namespace' && ours(t.name));
    check(`${name}: first turn with required = true`, listed, `our tools ${listed ? 'were' : 'were not'} in it (namespace mcp__agent_bash)`);
    check(`${name}: codex exec`, res.code === 0 && res.stdout.trim() === FINAL, `exit ${res.code} stdout ${show(res.stdout.trim())}${res.code ? ` stderr ${show(res.stderr)}` : ''}`);
    report('INFO', `${name}: result framing`, `Codex hands the model ${show((fake.results[0] ?? '').slice(0, 40))}… around our text`);
    checkResults(name, fake.results, codexUnwrap, true);
  } finally {
    fake.server.close();
  }
  await expectNoLeftovers(name, work);
}

/** Gemini CLI wraps some tool results in an <untrusted_context> element. */
const geminiUnwrap = (t) => t.replace(/^<untrusted_context[^>]*>\n?/, '').replace(/\n?<\/untrusted_context>$/, '');

async function gemini(work) {
  const name = 'Gemini CLI';
  const home = path.join(work, 'gemini-home');
  mkdirSync(path.join(home, '.gemini'), { recursive: true });
  writeFileSync(path.join(home, '.gemini', 'settings.json'), JSON.stringify({ security: { auth: { selectedType: 'gemini-api-key' } } }));
  // MCP servers are not started in a folder the user has not trusted.
  writeFileSync(path.join(home, '.gemini', 'trustedFolders.json'), JSON.stringify({ [work]: 'TRUST_FOLDER' }));
  const env = { HOME: home, GEMINI_API_KEY: 'dummy', GEMINI_CLI_NO_RELAUNCH: 'true' };
  const version = (await run(bin('gemini'), ['--version'], { env, cwd: work })).stdout.trim();
  report('INFO', name, `version ${version}`);
  const add = await run(bin('gemini'), ['mcp', 'add', '-s', 'user', '--trust', 'agent-bash', ...readmeServer(work)], { env, cwd: work });
  check(`${name}: gemini mcp add`, add.code === 0, `exit ${add.code} ${show(add.stdout.trim() || add.stderr.trim())}`);
  const list = await run(bin('gemini'), ['mcp', 'list'], { env, cwd: work });
  const line = (list.stdout + list.stderr).split('\n').find((l) => l.includes('agent-bash:')) ?? '';
  check(`${name}: gemini mcp list`, line.startsWith('✓ agent-bash:') && line.endsWith('- Connected'), show(line || list.stdout + list.stderr));

  const fake = await fakeGemini(demoScript(geminiUnwrap), (d) => (d.startsWith('mcp_agent-bash_') ? d.slice('mcp_agent-bash_'.length) : undefined));
  try {
    const res = await run(bin('gemini'), ['-p', 'Run the demo with the agent-bash tools.'], { env: { ...env, GOOGLE_GEMINI_BASE_URL: fake.url }, cwd: work });
    const first = fake.requests.find((r) => (r.body?.tools ?? []).length > 0);
    const declared = (first?.body.tools ?? []).flatMap((t) => t.functionDeclarations ?? []).map((d) => d.name).filter((d) => d.startsWith('mcp_'));
    report('INFO', `${name}: first turn`, `our tools declared as ${declared.join(', ') || 'nothing'}`);
    const errorShape = fake.requests.some((r) => JSON.stringify(r.body?.contents ?? []).includes("reported tool error for function call"));
    report('INFO', `${name}: isError results`, errorShape ? 'arrive as {"error": "MCP tool \'bash\' reported tool error … with response: [our content]"} (the text is inside)' : 'arrive as plain content');
    check(`${name}: gemini -p`, res.code === 0 && res.stdout.trim() === FINAL, `exit ${res.code} stdout ${show(res.stdout.trim())}${res.code ? ` stderr ${show(res.stderr)}` : ''}`);
    const wrapped = fake.results.filter((r) => r !== geminiUnwrap(r)).length;
    report('INFO', `${name}: result framing`, `${wrapped} of ${fake.results.length} results wrapped as ${show((fake.results.find((r) => r !== geminiUnwrap(r)) ?? '').slice(0, 60))}… </untrusted_context>`);
    const cut = fake.results.filter((r) => r.startsWith('Output too large.')).length;
    check(`${name}: results not cut by the client`, cut === 0, `${cut} of ${fake.results.length} results replaced by Gemini CLI's "Output too large. Showing first 8,000 and last 32,000 characters"`);
    checkResults(name, fake.results, geminiUnwrap);
  } finally {
    fake.server.close();
  }
  await expectNoLeftovers(name, work);
}

async function main() {
  if (!existsSync(cli)) {
    console.error(`test:clients: ${cli} is missing (npm run build)`);
    return 1;
  }
  const why = install();
  if (why) {
    console.log(`SKIP test:clients: ${why}`);
    return 0;
  }
  const work = mkdtempSync(path.join(os.tmpdir(), 'agent-bash-clients-'));
  try {
    for (const [key, scenario] of [['claude', claude], ['codex', codex], ['gemini', gemini]]) {
      if (!only.includes(key)) continue;
      try {
        await scenario(work);
      } catch (err) {
        report('FAIL', key, err instanceof Error ? err.stack : String(err));
      }
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  console.log(failures === 0 ? 'test:clients: all passed' : `test:clients: ${failures} failed`);
  return failures === 0 ? 0 : 1;
}

process.exitCode = await main();
