// What a background job is called and what a caller reads when no more may start: one text for the
// pipeline's check and the job manager's own.

/** Job labels are cut to this many characters (oh-my-pi: 117 + `...` past 120). */
export const JOB_LABEL_MAX = 120;

/** The command as a label: cut to 117 characters plus `...` when longer than 120. */
export function jobLabel(command: string): string {
  return command.length > JOB_LABEL_MAX ? `${command.slice(0, JOB_LABEL_MAX - 3)}...` : command;
}

export function jobsAtCapacityMessage(max: number): string {
  return `Too many background jobs are running (limit ${max}). Wait for one to finish or cancel one, then try again.`;
}
