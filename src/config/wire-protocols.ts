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

/**
 * The Anthropic API versions a node may be set to speak (`anthropic_version`): 2023-06-01,
 * the default, and 2026-10-21, which refuses sampling fields and some content
 * (providers/anthropic/api-version.ts).
 */
export const ANTHROPIC_VERSIONS = ['2023-06-01', '2026-10-21'] as const;

/** An Anthropic API version (`anthropic-version`). */
export type AnthropicVersion = (typeof ANTHROPIC_VERSIONS)[number];

/** What an Anthropic node is sent when its entry names no `anthropic_version`. */
export const DEFAULT_ANTHROPIC_VERSION: AnthropicVersion = '2023-06-01';
