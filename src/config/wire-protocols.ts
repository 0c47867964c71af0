/**
 * Every wire protocol a node can speak, for the configuration schema (`provider:`,
 * `simulated.protocol`). Kept apart from the adapter registry so the schemas do not load
 * the adapters; registry.ts checks that each one has an adapter.
 */
export const WIRE_PROTOCOLS = ['openai', 'anthropic', 'gemini'] as const;

/** Where a node of each protocol is when its entry names no `base_url` (the hosted API); undefined: `base_url` is required. */
export const DEFAULT_BASE_URLS: Readonly<Record<(typeof WIRE_PROTOCOLS)[number], string | undefined>> = {
  openai: undefined,
  anthropic: 'https://api.anthropic.com/v1',
  gemini: 'https://generativelanguage.googleapis.com/v1beta',
};

/** A wire format a node can speak. */
export type WireProtocol = (typeof WIRE_PROTOCOLS)[number];
