import { createServer } from 'node:net';
import { connect } from '../../src/client/index.js';

/** A loopback port that nothing listens on (it was free a moment ago). */
export async function deadPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** The names of the nodes a workbench holds, sorted. */
export async function nodeNames(url: string, token?: string): Promise<string[]> {
  const client = connect({ url, ...(token !== undefined ? { token } : {}) });
  try {
    return (await client.nodes.list()).map((n) => n.name).sort();
  } finally {
    await client.close();
  }
}
