// `tail`: options from `tail --help` of GNU coreutils 9.1 on this machine (Debian 12); effects read from its man page.
import { defineProgram } from './spec';
import { simpleProgram, type ProgramExamples, type ProgramModule } from './judge';

export const spec = defineProgram({
  name: 'tail',
  source: 'GNU coreutils 9.1, `tail --help`',
  numeric: true,
  operands: 'reads',
  options: [
    '-c, --bytes=NUM',
    '-f, --follow[=HOW]',
    '-F',
    '-n, --lines=NUM',
    '--max-unchanged-stats=N',
    '--pid=PID',
    '-q, --quiet, --silent',
    '--retry',
    '-s, --sleep-interval=N',
    '-v, --verbose',
    '-z, --zero-terminated',
    '--help',
    '--version',
  ],
});

/** What the policy must allow and must ask of tail (ProgramExamples). */
const EXAMPLES: ProgramExamples = { allow: ['tail -n 20 a.txt'], ask: ['tail ../x'] };

export const program: ProgramModule = { ...simpleProgram(spec), examples: EXAMPLES };
