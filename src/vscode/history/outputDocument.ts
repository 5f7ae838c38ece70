// Outputs as read-only documents under the artifact scheme (never untitled ones, which turn dirty):
// a history entry's (`agent-bash-artifact:/history/<entry id>/<command · time>.log`: its header —
// command, cwd, decision, exit status — then the full output from its artifact, or the result text
// when the output never spilled) and a background job's (`/job/<job id>/<command · time>.log`). The
// tab shows the file name: the command, shortened, and when it ran.
import { readFile } from 'node:fs/promises';
import * as vscode from 'vscode';
import type { ArtifactStore, JobManager } from '../../core/contracts';
import { outputHeader } from '../../core/history';
import { outputTitle, withoutAgentTrailers, withoutSegments } from '../../core/humanMessages';
import { NO_OUTPUT } from '../../core/output/results';
import { ARTIFACT_SCHEME } from './artifactProvider';
import type { HistoryStore } from './historyStore';

const PREFIX = '/history/';
const JOB_PREFIX = '/job/';

export function jobOutputUri(job: { id: string; label: string; startedAt: number }): vscode.Uri {
  return vscode.Uri.from({ scheme: ARTIFACT_SCHEME, path: `${JOB_PREFIX}${job.id}/${outputTitle(job.label, job.startedAt)}.log` });
}

/** The id after `prefix` (`/history/<id>/<title>.log`; older `/history/<id>.log` too). */
function idAfter(uri: vscode.Uri, prefix: string): string | undefined {
  if (!uri.path.startsWith(prefix)) return undefined;
  return uri.path.slice(prefix.length).split('/')[0].replace(/\.log$/, '');
}

/** The text of a history or job document, or undefined for a plain artifact URI. */
export function virtualDocumentText(
  uri: vscode.Uri,
  deps: { history: HistoryStore; artifacts: ArtifactStore; jobs: JobManager },
): Promise<string> | undefined {
  const id = historyIdOf(uri);
  if (id !== undefined) return historyDocumentText(id, deps.history, deps.artifacts, isFullOutputUri(uri));
  if (!uri.path.startsWith(JOB_PREFIX)) return undefined;
  const job = deps.jobs.get(idAfter(uri, JOB_PREFIX) ?? '');
  if (!job) return Promise.resolve('Agent Bash: this background job is gone.');
  const text = job.result?.content.map((c) => c.text).join('\n') ?? job.tail;
  return Promise.resolve(`$ ${job.label}\nJob ${job.id}: ${job.state}\n${'─'.repeat(60)}\n${text || '(no output yet)'}`);
}

export function historyOutputUri(entry: { id: string; command: string; at: number }): vscode.Uri {
  return vscode.Uri.from({ scheme: ARTIFACT_SCHEME, path: `${PREFIX}${entry.id}/${outputTitle(entry.command, entry.at)}.log` });
}

/** The whole output of a cut one (`/history/<id>/full/<title> (full).log`): opened on demand. */
export function historyFullOutputUri(entry: { id: string; command: string; at: number }): vscode.Uri {
  return vscode.Uri.from({ scheme: ARTIFACT_SCHEME, path: `${PREFIX}${entry.id}/${FULL_SEGMENT}/${outputTitle(entry.command, entry.at)} (full).log` });
}

const FULL_SEGMENT = 'full';

/** Whether a history output URI is the full output's. */
export function isFullOutputUri(uri: vscode.Uri): boolean {
  return uri.path.startsWith(PREFIX) && uri.path.slice(PREFIX.length).split('/')[1] === FULL_SEGMENT;
}

/** Said above the agent's window of a cut output; the title bar's Show Full Output opens the rest. */
export const AGENT_WINDOW_NOTE = 'Below is what the agent saw: the start and the end of the output, with where it was cut marked. The whole output: Show Full Output (the editor title bar, or the History row\'s menu).';

/** The entry id of a history output URI, or undefined for a plain artifact URI. */
export function historyIdOf(uri: vscode.Uri): string | undefined {
  return idAfter(uri, PREFIX);
}

export async function historyDocumentText(id: string, history: HistoryStore, artifacts: ArtifactStore, full = false): Promise<string> {
  const entry = history.get(id);
  if (!entry) return `Agent Bash: this command is no longer in the history (it was cleared).`;
  // A cut output opens as the agent's window (small: quick, no large-file banner); the rest on demand.
  const window = full ? undefined : history.agentWindowOf(id);
  if (window !== undefined) return `${outputHeader(entry, 'window')}${AGENT_WINDOW_NOTE}\n\n${window}`;
  const file = entry.artifactId ? artifacts.pathOf(entry.artifactId) : undefined;
  let body: string | undefined;
  if (file) {
    try {
      body = await readFile(file, 'utf8');
    } catch {
      // Pruned or unreadable: fall back to what the agent saw.
    }
  }
  if (body === undefined) {
    const text = history.textOf(id);
    // The result text as a person reads it under the header: the agent's closing lines ("Command
    // aborted", "Wall time…") restate the header's ending; a refusal's reason names no segments.
    if (text === undefined) body = '(the output of this command is no longer kept)';
    else {
      const plain = withoutAgentTrailers(entry.end === 'not-run' ? withoutSegments(text) : text);
      body = plain || NO_OUTPUT;
    }
  }
  return `${outputHeader(entry)}${body}`;
}
