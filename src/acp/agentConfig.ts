// One entry of `agentBash.acp.agents`: how to launch an ACP agent over stdio. The setting is user input,
// so it is validated here once and the rest of the ACP code trusts the typed object.
import { z } from 'zod';

export const acpAgentConfigSchema = z.object({
  name: z.string().min(1),
  command: z.string().min(1),
  args: z.array(z.string()).optional(),
  env: z.record(z.string(), z.string()).optional(),
  cwd: z.string().optional(),
});

export type AcpAgentConfig = z.infer<typeof acpAgentConfigSchema>;

export function invalidAgentConfigMessage(detail: string): string {
  return `Invalid ACP agent configuration: ${detail}`;
}

/** Parses one entry; throws an Error with an exact message naming what is wrong. */
export function parseAgentConfig(value: unknown): AcpAgentConfig {
  const parsed = acpAgentConfigSchema.safeParse(value);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues.at(0);
  const where = issue?.path.length ? `${issue.path.join('.')}: ` : '';
  throw new Error(invalidAgentConfigMessage(`${where}${issue?.message ?? 'not an object'}`));
}

/** The usable entries of the setting; malformed ones are reported through `onInvalid` and skipped. */
export function readAgentConfigs(value: unknown, onInvalid: (message: string) => void): AcpAgentConfig[] {
  if (!Array.isArray(value)) return [];
  return value.flatMap((entry) => {
    try {
      return [parseAgentConfig(entry)];
    } catch (err) {
      onInvalid((err as Error).message);
      return [];
    }
  });
}
