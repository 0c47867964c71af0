import { fieldOf } from '../validation/field-of.js';
/** Short words for why talking to a node failed, for logs and error messages (no secrets, no stacks). */
export function describeNetworkError(error: unknown): string {
  if (fieldOf(error, 'name') === 'TimeoutError') return "the node's total_ms deadline passed";
  const code = fieldOf(error, 'code');
  switch (code) {
    case 'UND_ERR_CONNECT_TIMEOUT':
      return 'connect timeout';
    case 'UND_ERR_HEADERS_TIMEOUT':
      return 'first byte timeout';
    case 'UND_ERR_BODY_TIMEOUT':
      return 'idle timeout';
    case 'ECONNREFUSED':
      return 'connection refused';
    case 'ECONNRESET':
    case 'UND_ERR_SOCKET':
      return 'connection reset';
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return 'DNS lookup failed';
    default:
      if (typeof code === 'string' && code.startsWith('ERR_TLS')) return 'TLS error';
      return typeof code === 'string' ? code : error instanceof Error ? error.message : 'network error';
  }
}
