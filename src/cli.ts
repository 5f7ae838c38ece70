// `node dist/cli.js <explain|run> …`: the pipeline outside VS Code, for scripts, CI and policy debugging.
import { explainMain } from './cli/explain';
import { runMain } from './cli/run';

const USAGE = `usage:
  agent-bash explain [--rules FILE] [--cwd DIR] [--workspace DIR] [--sandbox auto|on|off] -- COMMAND
  agent-bash run [--rules FILE] [--cwd DIR] [--timeout S] [--pty] [--yes] [--sandbox auto|on|off]
                 [--allow-write DIR]... [--allow-domain HOST]... -- COMMAND`;

async function main(argv: string[]): Promise<number> {
  const [sub, ...rest] = argv;
  if (sub === 'explain') return explainMain(rest);
  if (sub === 'run') return runMain(rest);
  process.stderr.write(`${sub ? `unknown subcommand: ${sub}\n` : ''}${USAGE}\n`);
  return 2;
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (err: unknown) => {
    process.stderr.write(`agent-bash: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exitCode = 2;
  },
);
