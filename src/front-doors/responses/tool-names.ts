/** How a function name the node sees maps back to the client's tool (PRODUCT.md decision 15). */
export type ClientTool =
  | { readonly kind: 'function'; readonly name: string }
  | { readonly kind: 'custom'; readonly name: string; readonly namespace?: string }
  | { readonly kind: 'namespaced'; readonly namespace: string; readonly name: string };

/** Separator of a namespaced tool's function name: `<namespace>__<name>`. */
const NAMESPACE_SEPARATOR = '__';

/** The function name a namespaced tool has on a chat-protocol node. */
export function namespacedFunctionName(namespace: string, name: string): string {
  return `${namespace}${NAMESPACE_SEPARATOR}${name}`;
}

/**
 * The client's custom and namespaced tools by the function name they were offered under,
 * so the node's calls go back in their own shape (`custom_tool_call`, a `function_call`
 * with its `namespace`). Plain function tools are not listed: a name not here is one.
 */
export class ToolNames {
  private readonly byFunctionName = new Map<string, ClientTool>();

  add(functionName: string, tool: ClientTool): void {
    this.byFunctionName.set(functionName, tool);
  }

  clientTool(functionName: string): ClientTool {
    return this.byFunctionName.get(functionName) ?? { kind: 'function', name: functionName };
  }
}
