// The terminal view's flood policy: bounded writes, the newest bytes drawn, our own lines at once.
// Timers are not raced: every check draws with flushNow() (what the timer would do).
import * as assert from 'node:assert/strict';
import { MAX_PENDING_VIEW_BYTES, notDrawnLine, TerminalView } from '../../../../src/vscode/terminals/terminalView';

class Screen {
  readonly writes: string[] = [];
  fire(text: string): void {
    this.writes.push(text);
  }
}

function opened(): { view: TerminalView; screen: Screen } {
  const screen = new Screen();
  const view = new TerminalView(screen);
  view.open();
  return { view, screen };
}

describe('TerminalView', () => {
  it('draws a small stream as written, \\n as \\r\\n, in one write per flush', () => {
    const { view, screen } = opened();
    view.write(Buffer.from('a\nb'));
    view.write(Buffer.from('c\n'));
    assert.deepEqual(screen.writes, []);
    view.flushNow();
    assert.deepEqual(screen.writes, ['a\r\nbc\r\n']);
    view.dispose();
  });

  it('decodes a code point cut between two chunks', () => {
    const { view, screen } = opened();
    const bytes = Buffer.from('日本\n');
    view.write(bytes.subarray(0, 4));
    view.flushNow();
    view.write(bytes.subarray(4));
    view.flushNow();
    assert.equal(screen.writes.join(''), '日本\r\n');
    view.dispose();
  });

  it('draws our own lines at once, on a fresh line, after the output before them', () => {
    const { view, screen } = opened();
    view.writeLine('$ cmd');
    view.write(Buffer.from('out'));
    view.writeLine('done');
    assert.deepEqual(screen.writes, ['$ cmd\r\n', 'out\r\ndone\r\n']);
    view.dispose();
  });

  it('a header written `soon` waits for what follows: a quick command is one write', () => {
    const { view, screen } = opened();
    view.writeLine('$ cmd', true);
    view.write(Buffer.from('out'));
    assert.deepEqual(screen.writes, []);
    view.writeLine('done');
    assert.deepEqual(screen.writes, ['$ cmd\r\nout\r\ndone\r\n']);
    view.dispose();
  });

  it('a header written `soon` is drawn by the flush timer when nothing follows', async () => {
    const { view, screen } = opened();
    view.writeLine('$ sleep 9', true);
    // The condition, not a guess: the timer's write arrives (FLUSH_MS later).
    await new Promise<void>((resolve) => {
      const check = (): void => (screen.writes.length > 0 ? resolve() : void setTimeout(check, 5));
      check();
    });
    assert.deepEqual(screen.writes, ['$ sleep 9\r\n']);
    view.dispose();
  });

  it('keeps only the newest bytes of a flood, never writes more than the cap, and says how much it skipped', () => {
    const { view, screen } = opened();
    const line = Buffer.from(`${'x'.repeat(99)}\n`);
    const chunk = Buffer.concat(Array.from({ length: 655 }, () => line)); // 65,500 bytes, as a pipe delivers
    for (let k = 0; k < 16; k++) view.write(chunk);
    view.write(Buffer.from('last line\n'));
    view.flushNow();
    assert.equal(screen.writes.length, 1);
    const total = 16 * chunk.length + 10;
    const skipped = total - MAX_PENDING_VIEW_BYTES;
    const drawn = Buffer.concat([...Array.from({ length: 16 }, () => chunk), Buffer.from('last line\n')]).subarray(skipped).toString();
    assert.equal(screen.writes[0], (notDrawnLine(skipped) + drawn).replace(/\n/g, '\r\n'));
    assert.equal(notDrawnLine(skipped), '\x1b[2m[… 1007.4 KB not drawn here; the full output is kept]\x1b[0m\n');
    view.dispose();
  });

  it('cuts a single huge chunk to the cap and restarts decoding on a code point', () => {
    const { view, screen } = opened();
    const big = Buffer.from('é'.repeat(3 * MAX_PENDING_VIEW_BYTES));
    view.write(Buffer.concat([big, Buffer.from('\n')]));
    view.flushNow();
    // The newest 16 KiB start with half a character (the cap is even, the text after it one byte):
    // that byte is skipped too, and counted.
    const skipped = big.length + 1 - MAX_PENDING_VIEW_BYTES + 1;
    assert.equal(screen.writes[0], `${notDrawnLine(skipped)}${'é'.repeat((MAX_PENDING_VIEW_BYTES - 1) / 2 | 0)}\n`.replace(/\n/g, '\r\n'));
    assert.equal(notDrawnLine(3 * 1024 * 1024), '\x1b[2m[… 3.0 MB not drawn here; the full output is kept]\x1b[0m\n');
    view.dispose();
  });

  it('draws nothing before the terminal opens, then the backlog at once; nothing after dispose', () => {
    const screen = new Screen();
    const view = new TerminalView(screen);
    view.write(Buffer.from('early\n'));
    view.flushNow();
    assert.deepEqual(screen.writes, []);
    view.open();
    assert.deepEqual(screen.writes, ['early\r\n']);
    view.dispose();
    view.write(Buffer.from('late\n'));
    view.flushNow();
    assert.deepEqual(screen.writes, ['early\r\n']);
  });
});
