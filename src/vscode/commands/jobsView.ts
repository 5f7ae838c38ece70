// Background jobs in the UI: a status bar item counting running jobs, and `Agent Bash: Show Jobs`
// (a quick pick per job: show output, kill).
import * as vscode from 'vscode';
import { jobOutputUri } from '../history/outputDocument';
import type { JobInfo, JobManager } from '../../core/contracts';

export const SHOW_OUTPUT = 'Show output';
export const KILL_JOB = 'Kill';

export function jobsStatusText(running: number): string {
  return `$(terminal-bash) ${running} job${running === 1 ? '' : 's'}`;
}

export class JobsStatusItem implements vscode.Disposable {
  private readonly item = vscode.window.createStatusBarItem('agentBash.jobs', vscode.StatusBarAlignment.Left, 50);
  private readonly unsubscribe: Array<() => void>;

  constructor(private readonly jobs: JobManager) {
    this.item.name = 'Agent Bash jobs';
    this.item.command = 'agentBash.showJobs';
    this.item.tooltip = 'Agent Bash: background jobs';
    this.unsubscribe = [jobs.onDidChange(() => this.refresh()), jobs.onDidComplete(() => this.refresh())];
    this.refresh();
  }

  get text(): string {
    return this.item.text;
  }

  refresh(): void {
    const running = this.jobs.list().filter((j) => j.state === 'running').length;
    this.item.text = jobsStatusText(running);
    if (running > 0) this.item.show();
    else this.item.hide();
  }

  dispose(): void {
    for (const u of this.unsubscribe) u();
    this.item.dispose();
  }
}

export async function showJobsPick(jobs: JobManager): Promise<void> {
  const all = jobs.list();
  if (all.length === 0) {
    void vscode.window.showInformationMessage('Agent Bash: no background jobs.');
    return;
  }
  const picked = await vscode.window.showQuickPick(
    all.map((job) => ({ label: `${stateIcon(job)} ${job.label}`, description: `${job.id} · ${job.state}`, job })),
    { title: 'Agent Bash: background jobs', placeHolder: 'Pick a job' },
  );
  if (!picked) return;
  const actions = picked.job.state === 'running' ? [SHOW_OUTPUT, KILL_JOB] : [SHOW_OUTPUT];
  const action = await vscode.window.showQuickPick(actions, { title: picked.job.label });
  if (action === KILL_JOB) jobs.cancel(picked.job.id, 'you');
  if (action === SHOW_OUTPUT) {
    const doc = await vscode.workspace.openTextDocument(jobOutputUri(picked.job));
    await vscode.window.showTextDocument(doc, { preview: true });
  }
}

function stateIcon(job: JobInfo): string {
  switch (job.state) {
    case 'running':
      return '$(sync~spin)';
    case 'completed':
      return '$(check)';
    case 'failed':
      return '$(error)';
    default:
      return '$(circle-slash)';
  }
}
