// Runs inside the VS Code extension host (extensionTestsPath). Extension-host console output goes to
// the browser, so mocha's report is written to a file the outer runner prints.
import Mocha from 'mocha';
import { appendFileSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { format } from 'node:util';

export function run(): Promise<void> {
  const outDir = process.env.AGENT_BASH_TEST_OUT;
  if (!outDir) return Promise.reject(new Error('AGENT_BASH_TEST_OUT is not set'));
  const logFile = path.join(outDir, 'mocha.log');
  writeFileSync(logFile, '');
  const reporterBase = Mocha.reporters.Base as unknown as { consoleLog: (...args: unknown[]) => void; useColors: boolean };
  reporterBase.useColors = false;
  reporterBase.consoleLog = (...args: unknown[]) => appendFileSync(logFile, `${format(...args)}\n`);

  const grep = process.env.AGENT_BASH_IT_GREP;
  const mocha = new Mocha({ ui: 'bdd', timeout: 60000, reporter: 'spec', color: false, ...(grep ? { grep } : {}) });
  const dir = __dirname;
  for (const file of readdirSync(dir).filter((f) => f.endsWith('.test.js')).sort()) mocha.addFile(path.join(dir, file));

  return new Promise((resolve, reject) => {
    const failedTitles: string[] = [];
    const runner = mocha.run((failures) => {
      const passed = runner.stats?.passes ?? 0;
      const failed = runner.stats?.failures ?? failures;
      const skipped = runner.stats?.pending ?? 0;
      writeFileSync(path.join(outDir, 'counts.json'), JSON.stringify({ passed, failed, skipped, failures: failedTitles }));
      if (failed > 0) reject(new Error(`${failed} integration test(s) failed`));
      else resolve();
    });
    runner.on('fail', (test, err: unknown) => {
      const message = err instanceof Error ? err.message : String(err);
      // As test/harness/failureLine.mjs writes it (this file is compiled into the extension host's test runner).
      failedTitles.push(`${test.fullTitle()}: ${JSON.stringify(message.slice(0, 1200)).slice(1, -1)}`);
    });
  });
}
