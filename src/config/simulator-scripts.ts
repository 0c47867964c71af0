import { isRecord } from '../validation/is-record.js';
/**
 * Scripted answers of a simulated node, per model (src/simulator/README.md has the format),
 * as written and validated at configuration load; the simulator runs them
 * (simulator/simulator-script.ts).
 * A script is a list of rules; the first rule whose `when` holds decides the answer:
 * `call` a tool (the first callable tool whose name matches the pattern) with fixed
 * arguments, or `answer` with fixed text. `{{tool_result}}` and `{{last_user}}` in the
 * text and in string arguments are replaced by the last tool result and user message.
 * No rule holding (or a `call` whose pattern matches no callable tool) leaves the
 * answer to the default behaviour.
 */

/** A message's role, as a rule names it. */
export type ScriptRole = 'user' | 'assistant' | 'tool' | 'system';

/** One rule as written in YAML (snake_case). */
export interface ScriptRuleFile {
  when?: {
    /** true: the request offers a tool that may be called (tool choice not `none`); false: it offers none. */
    tools_offered?: boolean;
    last_role?: ScriptRole;
    /** A regular expression the last message's text must match. */
    last_message_matches?: string;
  };
  call?: {
    /** A regular expression a callable tool's whole name must match, e.g. "Read|read_file|shell". */
    tool: string;
    /** The call's arguments; default: a value of the tool's parameter schema. */
    arguments?: Record<string, unknown>;
  };
  answer?: string;
}

/** Scripts by model name as the node sees it; `"*"` applies to models without their own. */
export type SimulatorScriptsFile = Readonly<Record<string, readonly ScriptRuleFile[]>>;

/** A validated rule. */
export interface ScriptRule {
  readonly toolsOffered: boolean | undefined;
  readonly lastRole: ScriptRole | undefined;
  readonly lastMessage: RegExp | undefined;
  readonly action:
    | { readonly kind: 'call'; readonly tool: RegExp; readonly arguments: Record<string, unknown> | undefined }
    | { readonly kind: 'answer'; readonly text: string };
}

/** Validated scripts by model name. */
export type SimulatorScripts = ReadonlyMap<string, readonly ScriptRule[]>;

/** A script that cannot be used; `path` names the field under the scripts, e.g. `agent[1].call.tool`. */
export class ScriptError extends Error {
  constructor(
    readonly path: string,
    readonly problem: string,
  ) {
    super(`${path}: ${problem}`);
    this.name = 'ScriptError';
  }
}

/** A `{{name}}` placeholder in a rule's text or string arguments. */
export const PLACEHOLDER = /\{\{\s*([a-z_]+)\s*\}\}/g;
const PLACEHOLDERS: ReadonlySet<string> = new Set(['tool_result', 'last_user']);
const ROLES: readonly ScriptRole[] = ['user', 'assistant', 'tool', 'system'];

function compileRegExp(source: unknown, path: string, anchored: boolean): RegExp {
  if (typeof source !== 'string' || source === '')
    throw new ScriptError(path, 'must be a non-empty regular expression');
  try {
    return new RegExp(anchored ? `^(?:${source})$` : source, 'u');
  } catch (error) {
    throw new ScriptError(
      path,
      `is not a valid regular expression (${error instanceof Error ? error.message : String(error)})`,
    );
  }
}

/** Throws on a `{{name}}` that is not a known placeholder, anywhere in strings of `value`. */
function checkPlaceholders(value: unknown, path: string): void {
  if (typeof value === 'string') {
    for (const match of value.matchAll(PLACEHOLDER)) {
      if (!PLACEHOLDERS.has(match[1] ?? ''))
        throw new ScriptError(
          path,
          `unknown placeholder {{${match[1] ?? ''}}} (known: {{tool_result}}, {{last_user}})`,
        );
    }
  } else if (Array.isArray(value)) {
    value.forEach((item, index) => checkPlaceholders(item, `${path}[${index}]`));
  } else if (isRecord(value)) {
    for (const [key, item] of Object.entries(value)) checkPlaceholders(item, `${path}.${key}`);
  }
}

function compileRule(rule: unknown, path: string): ScriptRule {
  if (!isRecord(rule)) throw new ScriptError(path, 'must be an object with `when` and `call` or `answer`');
  for (const key of Object.keys(rule))
    if (!['when', 'call', 'answer'].includes(key))
      throw new ScriptError(`${path}.${key}`, 'is not a rule field (when, call, answer)');
  const when = rule.when === undefined ? {} : rule.when;
  if (!isRecord(when)) throw new ScriptError(`${path}.when`, 'must be an object');
  for (const key of Object.keys(when)) {
    if (!['tools_offered', 'last_role', 'last_message_matches'].includes(key))
      throw new ScriptError(
        `${path}.when.${key}`,
        'is not a condition (tools_offered, last_role, last_message_matches)',
      );
  }
  const toolsOffered = typeof when.tools_offered === 'boolean' ? when.tools_offered : undefined;
  if (when.tools_offered !== undefined && toolsOffered === undefined)
    throw new ScriptError(`${path}.when.tools_offered`, 'must be true or false');
  const lastRole = ROLES.find((role) => role === when.last_role);
  if (when.last_role !== undefined && lastRole === undefined) {
    throw new ScriptError(`${path}.when.last_role`, 'must be one of user, assistant, tool, system');
  }
  const lastMessage =
    when.last_message_matches === undefined
      ? undefined
      : compileRegExp(when.last_message_matches, `${path}.when.last_message_matches`, false);
  if ((rule.call === undefined) === (rule.answer === undefined))
    throw new ScriptError(path, 'needs exactly one of `call` and `answer`');

  let action: ScriptRule['action'];
  if (rule.call !== undefined) {
    const call = rule.call;
    if (!isRecord(call))
      throw new ScriptError(`${path}.call`, 'must be an object with `tool` and optional `arguments`');
    for (const key of Object.keys(call))
      if (key !== 'tool' && key !== 'arguments')
        throw new ScriptError(`${path}.call.${key}`, 'is not a call field (tool, arguments)');
    if (call.arguments !== undefined && !isRecord(call.arguments))
      throw new ScriptError(`${path}.call.arguments`, 'must be an object');
    checkPlaceholders(call.arguments, `${path}.call.arguments`);
    action = { kind: 'call', tool: compileRegExp(call.tool, `${path}.call.tool`, true), arguments: call.arguments };
  } else {
    if (typeof rule.answer !== 'string') throw new ScriptError(`${path}.answer`, 'must be a string');
    checkPlaceholders(rule.answer, `${path}.answer`);
    action = { kind: 'answer', text: rule.answer };
  }
  return {
    toolsOffered,
    lastRole,
    lastMessage,
    action,
  };
}

/** Validates scripts as written in YAML; throws a ScriptError naming the first bad field. */
export function compileSimulatorScripts(file: unknown): SimulatorScripts {
  if (!isRecord(file)) throw new ScriptError('scripts', 'must map model names to lists of rules');
  const scripts = new Map<string, readonly ScriptRule[]>();
  for (const [model, rules] of Object.entries(file)) {
    if (!Array.isArray(rules) || rules.length === 0) throw new ScriptError(model, 'must be a non-empty list of rules');
    scripts.set(
      model,
      rules.map((rule, index) => compileRule(rule, `${model}[${index}]`)),
    );
  }
  return scripts;
}
