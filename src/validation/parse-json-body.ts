import secureJsonParse from 'secure-json-parse';
import { gatewayError, type GatewayError } from '../errors/gateway-error.js';

const FORBIDDEN_KEYS = { protoAction: 'error', constructorAction: 'error' } as const;

/**
 * Parses a JSON request body; 400 validation_failed for malformed JSON and for keys that
 * could poison prototypes further down (`__proto__`, `constructor.prototype`, also when
 * written with \u escapes). secure-json-parse (the parser fastify uses) runs the native
 * JSON.parse, then a cheap regular-expression test on the text, and walks the object only
 * when that test matches: a clean body costs one extra linear scan, no reviver.
 */
export function parseJsonBody(text: string): unknown {
  try {
    // A body without a BOM, `\u` escapes or either key's name cannot match secure-json-parse's
    // tests: the plain parse is the same answer without its two regular expressions.
    return mayHideForbiddenKey(text) ? secureJsonParse.parse(text, null, FORBIDDEN_KEYS) : JSON.parse(text);
  } catch (error) {
    const detail = error instanceof Error ? error.message : String(error);
    if (/prototype property/.test(detail)) {
      throw validationFailed(
        'The request body contains a forbidden key ("__proto__" or "constructor.prototype").',
        'Тело запроса содержит запрещённый ключ ("__proto__" или "constructor.prototype").',
      );
    }
    throw validationFailed(`The request body is not valid JSON: ${detail}.`, `Тело запроса не является корректным JSON: ${detail}.`);
  }
}

function mayHideForbiddenKey(text: string): boolean {
  return text.charCodeAt(0) === 0xfeff || text.includes('__proto__') || text.includes('constructor') || text.includes('\\u');
}

function validationFailed(english: string, russian: string): GatewayError {
  return gatewayError('validation_failed', { param: null, params: { detail_en: english, detail_ru: russian } });
}
