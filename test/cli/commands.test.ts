import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Command } from 'commander';
import { commands, commandsFor } from '../../src/cli/commands.js';

/** The names of the subcommands the registrations define. */
async function registered(argv: string[]): Promise<string[]> {
  const program = new Command('wbplay');
  for (const register of await commandsFor(argv)) register(program, () => undefined);
  return program.commands.map((c) => c.name());
}

test('a command line naming a command loads that command alone; any other loads every command, in help order', async () => {
  assert.deepEqual(await registered(['validate', 'a.yaml']), ['validate']);
  assert.deepEqual(await registered(['run', '--help']), ['run']);
  const all = commands.map(([name]) => name);
  assert.equal(all.length, 15);
  for (const argv of [[], ['--help'], ['help', 'run'], ['valdate', 'a.yaml'], ['-V']])
    assert.deepEqual(await registered(argv), all, argv.join(' '));
});
