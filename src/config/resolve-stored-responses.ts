import type { ConfigFile } from './config-schema.js';
import { DEFAULTS } from './defaults.js';
import type { ResponsesSettings } from './gateway-config.js';

/** Retention and caps of the Responses API's stored responses, with defaults. */
export function resolveStoredResponses(file: ConfigFile['responses']): ResponsesSettings {
  return {
    retentionDays: file?.retention_days ?? DEFAULTS.responses.retentionDays,
    maxStoredBytes: file?.max_stored_bytes ?? DEFAULTS.responses.maxStoredBytes,
    maxStoredResponsesPerAccount:
      file?.max_stored_responses_per_account ?? DEFAULTS.responses.maxStoredResponsesPerAccount,
    maxStoredBytesPerAccount: file?.max_stored_bytes_per_account ?? DEFAULTS.responses.maxStoredBytesPerAccount,
    maxConversationResponses: file?.max_conversation_responses ?? DEFAULTS.responses.maxConversationResponses,
    maxConversationBytes: file?.max_conversation_bytes ?? DEFAULTS.responses.maxConversationBytes,
  };
}
