import { invalidParameter } from '../../errors/gateway-error.js';
import type { ChatRequest } from '../../protocol/openai/chat-request-schema.js';
import { isRecord } from '../../validation/is-record.js';
import { namespacedFunctionName, ToolNames } from './tool-names.js';

type Item = Record<string, unknown>;
type Typed = { type: string } & Record<string, unknown>;

/** The string parameter a custom (freeform) tool becomes (inbound-protocols 3.5). */
const CUSTOM_TOOL_PARAMETERS = {
  type: 'object',
  properties: { input: { type: 'string', description: 'The raw input of the tool.' } },
  required: ['input'],
  additionalProperties: false,
};

/** A tool and where the request gave it, for the `param` of an error about it. */
export interface LocatedTool {
  readonly tool: Item;
  /** e.g. `input[0].tools[2]`. */
  readonly path: string;
}

/** What the tools of a Responses request become for a translated node. */
export interface TranslatedTools {
  readonly tools: Typed[] | undefined;
  readonly toolChoice: ChatRequest['tool_choice'];
  readonly names: ToolNames;
}

/**
 * Maps Responses tools for a chat-protocol node (PRODUCT.md decision 15): `function` tools
 * become chat function tools, `custom` tools functions of one string, `namespace` tools
 * their functions (and custom tools) with prefixed names; hosted tools (web search, file
 * search, MCP…) are withdrawn from the offer, unless `tool_choice` forces one (400 naming
 * it). The tools of `additional_tools` input items (Codex CLI) join the offer the same way.
 */
export function toolsToChat(
  tools: readonly Item[] | null | undefined,
  toolChoice: unknown,
  /** A node of the model serves the Responses API natively: a forced hosted tool is its to run, not a 400. */
  servedNatively = false,
  /** Tools of `additional_tools` input items, offered after `tools`; one already offered by name is not offered twice. */
  additionalTools: readonly LocatedTool[] = [],
): TranslatedTools {
  const names = new ToolNames();
  const offered: Typed[] = [];
  const functionNames = new Set<string>();
  const offer = (tool: Typed, functionName: string, additional: boolean): boolean => {
    // Codex repeats its additional_tools item on every turn: a replayed tool is offered once.
    if (additional && functionNames.has(functionName)) return false;
    offered.push(tool);
    functionNames.add(functionName);
    return true;
  };
  const located = [
    ...(tools ?? []).map((tool, index) => ({ tool, path: `tools[${index}]`, additional: false })),
    ...additionalTools.map((entry) => ({ ...entry, additional: true })),
  ];
  for (const { tool, path, additional } of located) {
    if (tool.type === 'function') {
      const name = toolName(tool.name, `${path}.name`);
      offer(functionTool(tool, name, path), name, additional);
    } else if (tool.type === 'custom') {
      const name = toolName(tool.name, `${path}.name`);
      if (offer(customTool(tool, name), name, additional)) names.add(name, { kind: 'custom', name });
    } else if (tool.type === 'namespace') {
      const namespace = toolName(tool.name, `${path}.name`);
      if (!Array.isArray(tool.tools)) throw invalidParameter(`${path}.tools`, 'must_be_function_tools');
      tool.tools.forEach((value: unknown, innerIndex) => {
        const innerPath = `${path}.tools[${innerIndex}]`;
        const inner: Item = isRecord(value) ? value : {};
        const name = toolName(inner.name, `${innerPath}.name`);
        const functionName = namespacedFunctionName(namespace, name);
        if (inner.type === 'custom') {
          // Codex's code-mode `exec` is a custom tool in the `functions` namespace.
          if (offer(customTool(inner, functionName), functionName, additional)) {
            names.add(functionName, { kind: 'custom', name, namespace });
          }
        } else if (offer(functionTool(inner, functionName, innerPath), functionName, additional)) {
          names.add(functionName, { kind: 'namespaced', namespace, name });
        }
      });
    }
    // Any other type is a hosted tool or an OpenAI client protocol: withdrawn for this node.
  }
  return {
    tools: offered.length === 0 ? undefined : offered,
    toolChoice: chatToolChoice(toolChoice, functionNames, offered.length > 0, servedNatively),
    names,
  };
}

function toolName(name: unknown, path: string): string {
  if (typeof name !== 'string' || name === '' || name.length > 128) {
    throw invalidParameter(path, 'must_be_tool_name');
  }
  return name;
}

function described(tool: Item): Item {
  return typeof tool.description === 'string' ? { description: tool.description } : {};
}

/** A custom (freeform) tool as a function of one string, `input`. */
function customTool(tool: Item, name: string): Typed {
  return { type: 'function', function: { name, ...described(tool), parameters: CUSTOM_TOOL_PARAMETERS } };
}

function functionTool(tool: Item, name: unknown, path: string): Typed {
  const fn: Item = { name: toolName(name, `${path}.name`), ...described(tool) };
  if (tool.parameters !== undefined && tool.parameters !== null) fn.parameters = tool.parameters;
  if (typeof tool.strict === 'boolean') fn.strict = tool.strict;
  return { type: 'function', function: fn };
}

/** `tool_choice` for the chat request; undefined when no tool is left to choose from. */
function chatToolChoice(
  choice: unknown,
  functionNames: ReadonlySet<string>,
  anyTools: boolean,
  servedNatively: boolean,
): ChatRequest['tool_choice'] {
  if (choice === undefined || choice === null) return undefined;
  if (typeof choice === 'string') return anyTools ? choice : undefined;
  if (!isRecord(choice)) return undefined;
  const object = choice;
  if (object.type === 'function' || object.type === 'custom') {
    const name = toolName(object.name, 'tool_choice.name');
    if (!functionNames.has(name)) {
      throw invalidParameter('tool_choice.name', 'tool_not_offered', { type: String(object.type), name });
    }
    const forced = { type: 'function', function: { name } };
    return forced;
  }
  if (object.type === 'allowed_tools') {
    const mode = object.mode === 'required' ? 'required' : 'auto';
    return anyTools ? mode : undefined;
  }
  if (servedNatively) return undefined;
  throw invalidParameter('tool_choice', 'hosted_tool_forced', { type: String(object.type) });
}
