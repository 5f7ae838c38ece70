// What the agent panel shows, folded from `session/update` notifications: message text streamed into
// one item per run of chunks, tool calls updated in place, and the terminals each tool call embedded.
// A final tool update often drops its terminal block (oh-my-pi does), so terminal ids are kept once seen.
import type { SessionUpdate, ToolCallContent } from '@agentclientprotocol/sdk';

export type TranscriptItem =
  | { kind: 'user'; text: string }
  | { kind: 'agent'; text: string }
  | { kind: 'thought'; text: string }
  | {
      kind: 'tool';
      toolCallId: string;
      title: string;
      status: string;
      toolKind: string;
      text: string;
      terminalIds: string[];
    };

export type ToolItem = Extract<TranscriptItem, { kind: 'tool' }>;

export class Transcript {
  readonly items: TranscriptItem[] = [];
  private readonly tools = new Map<string, number>();

  addUser(text: string): number {
    return this.items.push({ kind: 'user', text }) - 1;
  }

  /** Applies one update; returns the index of the item it changed, or undefined when nothing shows. */
  apply(update: SessionUpdate): number | undefined {
    switch (update.sessionUpdate) {
      case 'agent_message_chunk':
      case 'agent_thought_chunk': {
        if (update.content.type !== 'text') return undefined;
        const kind = update.sessionUpdate === 'agent_message_chunk' ? 'agent' : 'thought';
        const last = this.items.at(-1);
        if (last && last.kind === kind) {
          last.text += update.content.text;
          return this.items.length - 1;
        }
        return this.items.push({ kind, text: update.content.text }) - 1;
      }
      case 'tool_call': {
        const item: ToolItem = {
          kind: 'tool',
          toolCallId: update.toolCallId,
          title: update.title,
          status: update.status ?? 'pending',
          toolKind: update.kind ?? 'other',
          text: '',
          terminalIds: [],
        };
        applyContent(item, update.content);
        const known = this.tools.get(update.toolCallId);
        if (known !== undefined) {
          this.items[known] = item;
          return known;
        }
        const index = this.items.push(item) - 1;
        this.tools.set(update.toolCallId, index);
        return index;
      }
      case 'tool_call_update': {
        let index = this.tools.get(update.toolCallId);
        if (index === undefined) {
          index =
            this.items.push({
              kind: 'tool',
              toolCallId: update.toolCallId,
              title: update.title ?? update.toolCallId,
              status: 'pending',
              toolKind: 'other',
              text: '',
              terminalIds: [],
            }) - 1;
          this.tools.set(update.toolCallId, index);
        }
        const item = this.items[index] as ToolItem;
        if (update.title) item.title = update.title;
        if (update.status) item.status = update.status;
        if (update.kind) item.toolKind = update.kind;
        if (update.content) applyContent(item, update.content);
        return index;
      }
      default:
        return undefined;
    }
  }

  tool(toolCallId: string): ToolItem | undefined {
    const index = this.tools.get(toolCallId);
    return index === undefined ? undefined : (this.items[index] as ToolItem);
  }
}

function applyContent(item: ToolItem, content: ToolCallContent[] | null | undefined): void {
  if (!content) return;
  const texts: string[] = [];
  for (const c of content) {
    if (c.type === 'terminal') {
      if (!item.terminalIds.includes(c.terminalId)) item.terminalIds.push(c.terminalId);
    } else if (c.type === 'content' && c.content.type === 'text') {
      texts.push(c.content.text);
    } else if (c.type === 'diff') {
      texts.push(`edit ${c.path}`);
    }
  }
  // `content` replaces the whole list in ACP; terminals stay because the card must outlive the block.
  item.text = texts.join('\n');
}
