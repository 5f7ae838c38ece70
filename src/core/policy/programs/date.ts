// `date`: options from `date --help` of GNU coreutils 9.1 on this machine (Debian 12); effects read from its man page.
// Two things the option table cannot say: an operand that is not `+FORMAT` sets the system clock
// (`date 0101000020`, done when the process may), and a date string may start with `TZ="…"`, which
// makes date open that time-zone file wherever it is (`-d 'TZ="/x" now'`, seen with strace). The
// lines of a `-f` file are date strings too, so `-f` reads what the analysis cannot see.
import { parseArgs, type ArgWord } from './getopt';
import { judgeBySpec, type ProgramJudgement, type ProgramModule, type ProgramExamples } from './judge';
import { defineProgram } from './spec';
import { isInertEnvValue } from '../analysis/sensitiveVariables';

export const spec = defineProgram({
  name: 'date',
  source: 'GNU coreutils 9.1, `date --help`',
  operands: 'none',
  options: [
    '-d, --date=STRING',
    '--debug',
    '-f, --file=DATEFILE @fileList',
    '-I[FMT], --iso-8601[=FMT]',
    '--resolution',
    '-R, --rfc-email',
    '--rfc-3339=FMT',
    '-r, --reference=FILE @reads',
    '-s, --set=STRING @ask',
    '-u, --utc, --universal',
    '--help',
    '--version',
  ],
});

export const DATE_REASON = {
  setsClock: (operand: string) => `\`date ${operand}\` sets the system clock (only \`+FORMAT\` operands print)`,
  zoneFile: (value: string) => `\`date -d ${value}\` names a time-zone file (\`TZ="…"\`) that date opens`,
} as const;

/** The zone of a date string's leading `TZ="…"`, '' when it has none, undefined when it cannot be read. */
function leadingZone(value: string): string | undefined {
  if (!/TZ\s*=/i.test(value)) return '';
  const m = /^\s*TZ="((?:[^"\\]|\\.)*)"/.exec(value);
  return m ? m[1].replace(/\\(.)/g, '$1') : undefined;
}

function judge(name: string, args: readonly ArgWord[]): ProgramJudgement {
  const parsed = parseArgs(spec, args);
  const j = judgeBySpec(spec, name, args, parsed);
  if (j.reason !== undefined) return j;
  for (const op of parsed.operands) {
    if (op.dynamic || !op.text.startsWith('+')) return { ...j, reason: DATE_REASON.setsClock(op.text) };
  }
  for (const o of parsed.options) {
    if (o.def.canonical !== '--date' || o.value === undefined) continue;
    const zone = o.valueDynamic ? undefined : leadingZone(o.value);
    if (zone === undefined || (zone !== '' && !isInertEnvValue('TZ', zone))) return { ...j, reason: DATE_REASON.zoneFile(o.value) };
  }
  return j;
}

/** What the policy must allow and must ask of date (ProgramExamples). */
const EXAMPLES: ProgramExamples = { allow: ['date +%Y', 'date -u'], ask: ['date -s 2020-01-01'] };

export const program: ProgramModule = { examples: EXAMPLES, names: ['date'], spec, judge };
