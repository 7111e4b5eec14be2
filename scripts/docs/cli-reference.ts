// docs/cli.md from the commander definitions of every command (as `wbplay --help` knows them)
// and the exit codes from the EXIT table of src/cli/errors.ts, each with its own comment: a
// code added there appears here with the next `npm run docs`.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Command, type Option } from 'commander';
import ts from 'typescript';
import { commandsFor } from '../../src/cli/commands.js';
import { EXIT } from '../../src/cli/errors.js';
import { cell, code, describedDefault } from './schema-markdown.js';

const ERRORS_FILE = fileURLToPath(new URL('../../src/cli/errors.ts', import.meta.url));

/** Every command's registration, loaded once (the CLI loads them on demand). */
const registrations = await commandsFor([]);

/** The program as `wbplay` builds it. */
function program(): Command {
  const root = new Command('wbplay');
  for (const register of registrations) register(root, () => undefined);
  return root;
}

/** The text a command adds after its options in `--help`. */
function helpAfter(cmd: Command): string {
  let text = '';
  // addHelpText's text is handed to the listeners of this event, as commander does when printing help.
  (cmd as unknown as NodeJS.EventEmitter).emit('afterHelp', {
    error: false,
    command: cmd,
    write: (s: string) => (text += s),
  });
  return text.trim();
}

/** The option's default as commander holds it, else as its description states it. */
function optionDefault(option: Option): string {
  if (option.negate) return '';
  const value: unknown = option.defaultValue;
  if (value === undefined || (Array.isArray(value) && value.length === 0))
    return describedDefault(option.description) ?? '';
  return code(value);
}

function optionRow(option: Option): string {
  const choices = option.argChoices ? ` One of ${option.argChoices.map(code).join(', ')}.` : '';
  const repeat = Array.isArray(option.defaultValue) && !/repeat/i.test(option.description) ? ' Repeatable.' : '';
  return `| \`${option.flags}\` | ${cell(`${option.description}.${choices}${repeat}`)} | ${cell(optionDefault(option))} |`;
}

function commandSection(cmd: Command): string {
  const args = cmd.registeredArguments;
  // Hidden options are for tests and tools, not users.
  const options = cmd.options.filter((o) => !o.hidden);
  const usage = `wbplay ${cmd.name()}${options.length > 0 ? ' [options]' : ''}${args
    .map((a) => {
      const name = `${a.name()}${a.variadic ? '...' : ''}`;
      return a.required ? ` <${name}>` : ` [${name}]`;
    })
    .join('')}`;
  const parts = [`## \`wbplay ${cmd.name()}\``, `${capital(cmd.description())}.`, `\`\`\`\n${usage}\n\`\`\``];
  if (args.length > 0)
    parts.push(
      [
        '| argument | what it is | default |',
        '| --- | --- | --- |',
        ...args.map(
          (a) =>
            `| \`${a.name()}\` | ${cell(a.description)}${a.variadic ? ' (one or more)' : ''} | ${a.defaultValue !== undefined ? code(a.defaultValue) : a.required ? 'required' : ''} |`,
        ),
      ].join('\n'),
    );
  if (options.length > 0)
    parts.push(['| option | what it does | default |', '| --- | --- | --- |', ...options.map(optionRow)].join('\n'));
  const after = helpAfter(cmd);
  // Help text is wrapped for a terminal: each paragraph becomes one line here.
  if (after) parts.push(...after.split(/\n\s*\n/).map((p) => p.replace(/\s*\n\s*/g, ' ')));
  return parts.join('\n\n');
}

function capital(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/** Each exit code with the comment that documents it in src/cli/errors.ts. */
export function exitCodes(
  source: string = readFileSync(ERRORS_FILE, 'utf8'),
): { name: string; code: number; meaning: string }[] {
  const file = ts.createSourceFile('errors.ts', source, ts.ScriptTarget.Latest, true);
  let table: ts.ObjectLiteralExpression | undefined;
  const visit = (node: ts.Node): void => {
    if (ts.isVariableDeclaration(node) && node.name.getText(file) === 'EXIT' && node.initializer) {
      let init: ts.Expression = node.initializer;
      while (ts.isAsExpression(init) || ts.isSatisfiesExpression(init) || ts.isParenthesizedExpression(init))
        init = init.expression;
      if (ts.isObjectLiteralExpression(init)) table = init;
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  if (!table) throw new Error('src/cli/errors.ts has no EXIT table');
  return table.properties.map((p) => {
    if (!ts.isPropertyAssignment(p) || !ts.isNumericLiteral(p.initializer))
      throw new Error(`EXIT.${p.name?.getText(file) ?? '?'} is not a number written in the table`);
    const name = p.name.getText(file);
    const meaning = ts
      .getJSDocCommentsAndTags(p)
      .map((d) => ts.getTextOfJSDocComment((d as ts.JSDoc).comment) ?? '')
      .join(' ')
      .trim();
    if (meaning === '') throw new Error(`EXIT.${name} has no doc comment to say what it means`);
    return { name, code: Number(p.initializer.text), meaning };
  });
}

export function cliParts(): Record<string, string> {
  const codes = exitCodes();
  // The table read from the source is the table the program uses.
  const live = Object.entries(EXIT).map(([name, value]) => `${name}=${value}`);
  const read = codes.map((c) => `${c.name}=${c.code}`);
  if (live.join() !== read.join()) throw new Error(`EXIT read from the source (${read}) is not EXIT (${live})`);
  const root = program();
  return {
    'command-index': [
      '| command | what it does |',
      '| --- | --- |',
      ...root.commands.map((c) => `| [\`wbplay ${c.name()}\`](#wbplay-${c.name()}) | ${cell(c.description())} |`),
    ].join('\n'),
    commands: root.commands.map(commandSection).join('\n\n'),
    'exit-codes': [
      '| code | name | meaning |',
      '| --- | --- | --- |',
      ...codes.map((c) => `| **${c.code}** | \`${c.name}\` | ${cell(c.meaning)} |`),
    ].join('\n'),
  };
}
