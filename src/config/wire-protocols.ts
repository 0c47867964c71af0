/**
 * Every wire protocol a node can speak, for the configuration schema (`provider:`,
 * `simulated.protocol`). Kept apart from the adapter registry so the schemas do not load
 * the adapters; registry.ts checks that each one has an adapter.
 */
export const WIRE_PROTOCOLS = ['openai', 'anthropic', 'gemini'] as const;

/** A wire format a node can speak. */
export type WireProtocol = (typeof WIRE_PROTOCOLS)[number];
