// The OS sandbox as the pipeline sees it, made from the runtime in one place for every composition
// root (the extension, `agent-bash run`, `agent-bash mcp`): only whether prompt-level commands may
// run unasked when sandboxed differs between them.
import type { PipelineSandbox } from '../../core/pipeline';
import type { SandboxRuntime } from './sandboxRuntime';

export function pipelineSandbox(runtime: SandboxRuntime, autoApprove: () => boolean): PipelineSandbox {
  return {
    levelFor: (off) => runtime.levelFor(off),
    autoApprove,
    watch: () => runtime.watch(),
    readOnly: (off) => runtime.readOnly(off),
  };
}
