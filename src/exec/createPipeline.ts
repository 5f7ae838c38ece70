// The one place a BashPipeline is composed, for the three roots (the extension's `activate`,
// `agent-bash run`, `agent-bash mcp`): each gives what differs (its approver, executors, jobs and,
// in the editor, its terminals); the environment stage (direnv, run inside the sandbox) and the OS
// sandbox as the pipeline sees it are wired here alone.
import { BashPipeline, type BashPipelineDeps, type PipelineSandbox } from '../core/pipeline';
import { direnvStage } from './direnv';
import type { SandboxRuntime } from './sandbox/sandboxRuntime';

export interface PipelineHost extends Omit<BashPipelineDeps, 'environment' | 'sandbox'> {
  /** The OS sandbox every route runs in. */
  sandbox: SandboxRuntime;
  /** Whether prompt-level commands may run unasked when sandboxed (only the editor has that setting). */
  autoApproveSandboxed?: () => boolean;
  /** The environment a command starts from before direnv's (absent: this process's). */
  baseEnv?: () => NodeJS.ProcessEnv;
}

export interface ComposedPipeline {
  pipeline: BashPipeline;
  /** The sandbox as the pipeline sees it, for hosts that also decide outside `run` (the LM tool's confirmation). */
  sandbox: PipelineSandbox;
}

/** The OS sandbox as the pipeline sees it, made from the runtime. */
function pipelineSandbox(runtime: SandboxRuntime, autoApprove: () => boolean): PipelineSandbox {
  return {
    levelFor: (off) => runtime.levelFor(off),
    autoApprove,
    watch: () => runtime.watch(),
    readOnly: (off) => runtime.readOnly(off),
  };
}

export function createPipeline(host: PipelineHost): ComposedPipeline {
  const { sandbox: runtime, autoApproveSandboxed, baseEnv, ...deps } = host;
  const sandbox = pipelineSandbox(runtime, autoApproveSandboxed ?? (() => false));
  const pipeline = new BashPipeline({
    ...deps,
    environment: direnvStage(() => host.settings().direnv, baseEnv, runtime),
    sandbox,
  });
  return { pipeline, sandbox };
}
