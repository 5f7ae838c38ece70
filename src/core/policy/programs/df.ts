// `df`: options from `df --help` of GNU coreutils 9.1 on this machine (Debian 12); effects read from its man page.
import { defineProgram } from './spec';
import { simpleProgram, type ProgramExamples, type ProgramModule } from './judge';

export const spec = defineProgram({
  name: 'df',
  source: 'GNU coreutils 9.1, `df --help`',
  operands: 'reads',
  options: [
    '-a, --all',
    '-B, --block-size=SIZE',
    '-h, --human-readable',
    '-H, --si',
    '-i, --inodes',
    '-k',
    '-l, --local',
    '--no-sync',
    '--output[=FIELD_LIST]',
    '-P, --portability',
    '--sync',
    '--total',
    '-t, --type=TYPE',
    '-T, --print-type',
    '-x, --exclude-type=TYPE',
    '-v',
    '--help',
    '--version',
  ],
});

/** What the policy must allow and must ask of df (ProgramExamples). */
const EXAMPLES: ProgramExamples = { allow: ['df -h .'], ask: ['df --bogus'] };

export const program: ProgramModule = { ...simpleProgram(spec), examples: EXAMPLES };
