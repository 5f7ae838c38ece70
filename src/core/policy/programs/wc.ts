// `wc`: options from `wc --help` of GNU coreutils 9.1 on this machine (Debian 12); effects read from its man page.
import { defineProgram } from './spec';
import { simpleProgram, type ProgramExamples, type ProgramModule } from './judge';

export const spec = defineProgram({
  name: 'wc',
  source: 'GNU coreutils 9.1, `wc --help`',
  operands: 'reads',
  options: [
    '-c, --bytes',
    '-m, --chars',
    '-l, --lines',
    '--files0-from=F @fileList',
    '-L, --max-line-length',
    '-w, --words',
    '--help',
    '--version',
  ],
});

/** What the policy must allow and must ask of wc (ProgramExamples). */
const EXAMPLES: ProgramExamples = { allow: ['wc -l a.txt'], ask: ['wc --files0-from=list a.txt'] };

export const program: ProgramModule = { ...simpleProgram(spec), examples: EXAMPLES };
