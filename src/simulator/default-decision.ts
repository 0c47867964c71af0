import type { GenerationControls, OfferedTool } from './generation-controls.js';
import type { RandomSource } from './mulberry32.js';
import { schemaValue } from './schema-value.js';
import type { ScriptDecision } from './simulator-script.js';
import { namesTool, readUserRequest, type UserRequest } from './user-request.js';
import { isRecord } from '../validation/is-record.js';

/**
 * The simulator's own behaviour when no script decides, made so that a coding agent (Claude
 * Code, Codex CLI) can work with it: answer in text by default; call a tool only when the
 * tool choice forces one, or when the user's last message asks for one the simulator can
 * satisfy (a tool it names, or a file it names and a tool that reads files or runs a shell);
 * after a tool result, answer from it.
 */

/** Longest part of a tool result quoted in the answer after it. */
const MAX_QUOTED_RESULT_CHARACTERS = 2000;

/** Property names that take a file's path, and those that take a shell command. */
const PATH_PROPERTY = /^(?:file_?path|path|file|file_?name|target_?file|absolute_?path)$/i;
const COMMAND_PROPERTY = /^(?:cmd|command)$/i;

/** What the simulator can put into a tool's arguments, read from the user's message. */
interface Fill {
  readonly path: string | undefined;
  readonly command: string | undefined;
}

function propertiesOf(schema: unknown): Record<string, unknown> {
  return isRecord(schema) && isRecord(schema.properties) ? schema.properties : {};
}

function requiredOf(schema: unknown): readonly string[] {
  if (!isRecord(schema)) return [];
  if (Array.isArray(schema.required)) return schema.required.filter((name): name is string => typeof name === 'string');
  return Object.keys(propertiesOf(schema));
}

/** Whether a property's schema takes an array (a command as argv: `["bash", "-lc", "…"]`). */
function takesArray(schema: unknown): boolean {
  return isRecord(schema) && (schema.type === 'array' || (Array.isArray(schema.type) && schema.type.includes('array')));
}

/**
 * The arguments for `tool`: a value of its schema whose path and command properties carry
 * the file and the command the user named; undefined when a required path or command
 * property has nothing to carry (the simulator cannot satisfy the tool).
 */
function argumentsFor(tool: OfferedTool, fill: Fill, random: RandomSource): Record<string, unknown> | undefined {
  const properties = propertiesOf(tool.parameters);
  const value = schemaValue(tool.parameters, random);
  const args: Record<string, unknown> = isRecord(value) ? value : {};
  for (const name of requiredOf(tool.parameters)) {
    if (PATH_PROPERTY.test(name)) {
      if (fill.path === undefined) return undefined;
      args[name] = fill.path;
    } else if (COMMAND_PROPERTY.test(name)) {
      if (fill.command === undefined) return undefined;
      args[name] = takesArray(properties[name]) ? ['bash', '-lc', fill.command] : fill.command;
    }
  }
  return args;
}

/** Whether a tool reads files (by name: `Read`, `read_file`, `ReadFile`) and takes a path. */
function readsFiles(tool: OfferedTool): boolean {
  return /read/i.test(tool.name) && Object.keys(propertiesOf(tool.parameters)).some((name) => PATH_PROPERTY.test(name));
}

/** Whether a tool runs shell commands (it takes a `cmd` or `command`). */
function runsCommands(tool: OfferedTool): boolean {
  return Object.keys(propertiesOf(tool.parameters)).some((name) => COMMAND_PROPERTY.test(name));
}

/** A shell-safe quoting of a file name for `cat`. */
function shellQuoted(text: string): string {
  return /^[\w./~-]+$/.test(text) ? text : `'${text.replace(/'/g, `'\\''`)}'`;
}

/** The tool the user's words ask for, with its arguments, in order of preference. */
function requestedCall(
  callable: readonly OfferedTool[],
  request: UserRequest,
  random: RandomSource,
): ScriptDecision | undefined {
  const fill: Fill = {
    path: request.file,
    command: request.command ?? (request.file === undefined ? undefined : `cat ${shellQuoted(request.file)}`),
  };
  const candidates = [
    ...callable.filter((tool) => namesTool(request.words, tool.name)),
    ...(request.file === undefined ? [] : callable.filter(readsFiles)),
    ...(fill.command === undefined ? [] : callable.filter(runsCommands)),
  ];
  for (const tool of candidates) {
    const args = argumentsFor(tool, fill, random);
    if (args !== undefined) return { kind: 'call', tool, arguments: args };
  }
  return undefined;
}

/** The answer after a tool result: the result, quoted (cut to a bound). */
function answerFromResult(result: string): ScriptDecision {
  const quoted =
    result.length > MAX_QUOTED_RESULT_CHARACTERS ? `${result.slice(0, MAX_QUOTED_RESULT_CHARACTERS)} …` : result;
  return {
    kind: 'answer',
    text: quoted.trim() === '' ? 'The tool returned nothing.' : `The tool returned:\n${quoted}`,
  };
}

/**
 * The default decision for a request no script decided: a call (tool and arguments), a
 * fixed answer, or undefined for seeded prose (or JSON, with a JSON output format).
 * `required` always calls: the tool the user asks for when there is one, else the first
 * callable tool, with a value of its schema.
 */
export function defaultDecision(
  callable: readonly OfferedTool[],
  controls: GenerationControls,
  random: RandomSource,
): ScriptDecision | undefined {
  const request = readUserRequest(controls.turn.lastUserText);
  if (controls.toolChoice.mode === 'required') {
    const first = callable[0];
    if (first === undefined) return undefined;
    return requestedCall(callable, request, random) ?? { kind: 'call', tool: first, arguments: undefined };
  }
  if (controls.turn.lastSpeaker === 'tool')
    return controls.format.kind === 'text' ? answerFromResult(controls.turn.toolResult) : undefined;
  if (controls.turn.lastSpeaker !== 'user' || callable.length === 0) return undefined;
  return requestedCall(callable, request, random);
}
