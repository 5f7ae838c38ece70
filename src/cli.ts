// `node dist/cli.js <explain|run|mcp> …`: the pipeline outside VS Code, for scripts, CI and policy debugging.
import { setFlagsFromString } from 'node:v8';
import { explainMain } from './cli/explain';
import { runMain } from './cli/run';

const USAGE = `usage:
  agent-bash explain [--rules FILE] [--cwd DIR] [--workspace DIR] [--sandbox auto|on|off] -- COMMAND
  agent-bash run [--rules FILE] [--cwd DIR] [--timeout S] [--pty] [--yes] [--sandbox auto|on|off]
                 [--allow-write DIR]... [--allow-domain HOST]... -- COMMAND
  agent-bash mcp [--rules FILE] [--cwd DIR] [--yes] [--sandbox auto|on|off]
                 [--allow-write DIR]... [--allow-domain HOST]...`;

async function main(argv: string[]): Promise<number> {
  const [sub, ...rest] = argv;
  // One decision per process: the shell parser's WebAssembly runs on its baseline code. Otherwise V8
  // tiers it up on a background thread that exit then waits for (300 ms after the result, measured).
  if (sub === 'explain' || sub === 'run') setFlagsFromString('--liftoff-only');
  if (sub === 'explain') return explainMain(rest);
  if (sub === 'run') return runMain(rest);
  // Loaded on demand: the MCP SDK is large, and `explain`/`run` should not pay for it at start.
  if (sub === 'mcp') return (await import('./cli/mcp.js')).mcpMain(rest);
  process.stderr.write(`${sub ? `unknown subcommand: ${sub}\n` : ''}${USAGE}\n`);
  return 2;
}

/**
 * Exits as soon as the result is out: every process and timer of the run is already cleaned up, and
 * nothing else (a library's idle handle) may hold the caller. The empty writes wait until what was
 * written before has been handed over (pipes are asynchronous on some platforms).
 */
function exitAfterOutput(code: number): void {
  process.stdout.write('', () => process.stderr.write('', () => process.exit(code)));
}

main(process.argv.slice(2)).then(exitAfterOutput, (err: unknown) => {
  process.stderr.write(`agent-bash: ${err instanceof Error ? err.message : String(err)}\n`);
  exitAfterOutput(2);
});
