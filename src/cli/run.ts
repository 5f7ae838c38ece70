export async function runMain(_args: string[]): Promise<number> {
  process.stderr.write('agent-bash run: not built yet\n');
  return 2;
}
