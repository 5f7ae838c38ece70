// The policy's time budgets (analysis, rule matching, link scans) count this process's CPU time, not
// the wall clock: on a busy machine (two cores shared with a build and a test run) the wall clock
// runs on while the decision waits for a core, and a command that takes 2 ms of work would ask
// "took too long" for no reason of its own. CPU time still bounds what a hostile input can cost.

/** Milliseconds of CPU this process has used (user + system); compare only with itself. */
export function cpuNow(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
}
