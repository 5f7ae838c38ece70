export async function explainMain(_args: string[]): Promise<number> {
  process.stderr.write('agent-bash explain: not built yet\n');
  return 2;
}
