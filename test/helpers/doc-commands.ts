// The shell commands a page of documentation shows, and how the docs tests run them: `npx
// wbplay …` lines of ```sh blocks (comments dropped), and PowerShell blocks whose `$env:NAME =
// "value"` lines set the environment of the commands after them.
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';

export interface DocCommand {
  /** The line as the page shows it (comments dropped). */
  text: string;
  /** Environment set by earlier lines of its block (PowerShell). */
  env: Record<string, string>;
}

/** Every command of the ```sh and ```powershell blocks of a page, in order. */
export function docCommands(page: string): DocCommand[] {
  const commands: DocCommand[] = [];
  for (const m of page.matchAll(/^```(sh|powershell)\n([\s\S]*?)^```$/gm)) {
    const env: Record<string, string> = {};
    for (const raw of m[2]!.split('\n')) {
      const line = raw.replace(/\s+#.*$/, '').trim();
      if (line === '' || line.startsWith('#')) continue;
      const assignment = m[1] === 'powershell' ? /^\$env:([A-Za-z_]\w*)\s*=\s*"([^"]*)"$/.exec(line) : null;
      if (assignment) env[assignment[1]!] = assignment[2]!;
      else commands.push({ text: line, env: { ...env } });
    }
  }
  return commands;
}

/** `[ENV=value ...] npx wbplay args...` as argv, with quotes as a shell reads them. */
export function parseCommand(command: string): { env: Record<string, string>; args: string[] } {
  const words = [...command.matchAll(/'([^']*)'|"([^"]*)"|(\S+)/g)].map((m) => m[1] ?? m[2] ?? m[3]!);
  const env: Record<string, string> = {};
  while (words[0] && /^[A-Z_]+=/.test(words[0])) {
    const [k, ...v] = words.shift()!.split('=');
    env[k!] = v.join('=');
  }
  assert.deepEqual(words.slice(0, 2), ['npx', 'wbplay'], command);
  return { env, args: words.slice(2) };
}

/**
 * A server started by a command: waits for the URL it prints, asks it one question, stops it.
 * `--port 8080` becomes a free port.
 */
export async function whileServing(
  command: string,
  start: (args: string[], env: Record<string, string>) => ChildProcess,
  ask: (url: string) => Promise<void>,
): Promise<void> {
  const { env, args } = parseCommand(command);
  const portAt = args.indexOf('--port');
  if (portAt >= 0) args[portAt + 1] = '0';
  const child = start(args, env);
  try {
    const url = await new Promise<string>((resolve, reject) => {
      let seen = '';
      child.stdout!.on('data', (chunk: Buffer) => {
        seen += chunk.toString();
        const m = /http:\/\/127\.0\.0\.1:\d+/.exec(seen);
        if (m) resolve(m[0]);
      });
      child.on('exit', (code) => reject(new Error(`${command} exited with ${code}: ${seen}`)));
    });
    await ask(url);
  } finally {
    child.kill('SIGTERM');
    await new Promise((resolve) => child.once('exit', resolve));
  }
}
