import secureJsonParse from 'secure-json-parse';
import { invalidValue, validationFailed, type GatewayError } from '../errors/gateway-error.js';
import { findInfiniteNumber } from './find-infinite-number.js';
import { scanJsonText } from './scan-json-text.js';

const FORBIDDEN_KEYS = { protoAction: 'error', constructorAction: 'error' } as const;

/**
 * Parses a JSON request body; 400 validation_failed for malformed JSON, for arrays and
 * objects nested deeper than `maxDepth` (configuration `http.max_json_depth`: deeper
 * values overflow the stack of whatever walks them later, JSON.stringify included), for a
 * number too large to be finite (`1e400`, which JSON.parse makes Infinity and
 * JSON.stringify `null`; the 400 names its param), and for keys that could poison
 * prototypes further down (`__proto__`, `constructor.prototype`, also when written with
 * \u escapes). Depth and numbers are found by one linear scan of the text before it is
 * parsed (no recursion). secure-json-parse (the parser fastify uses) runs the native
 * JSON.parse, then a cheap regular-expression test on the text, and walks the object only
 * when that test matches: a clean body costs two extra linear scans, no reviver.
 */
export function parseJsonBody(text: string, maxDepth: number): unknown {
  const scan = scanJsonText(text, maxDepth);
  if (scan.tooDeep) {
    throw validationFailed(null, 'json_too_deep', { limit: maxDepth });
  }
  const value = parse(text);
  if (scan.hasInfiniteNumber) {
    const path = findInfiniteNumber(value);
    if (path !== undefined) throw infiniteNumber(path);
  }
  return value;
}

function parse(text: string): unknown {
  try {
    // A body without a BOM, `\u` escapes or either key's name cannot match secure-json-parse's
    // tests: the plain parse is the same answer without its two regular expressions.
    return mayHideForbiddenKey(text) ? secureJsonParse.parse(text, null, FORBIDDEN_KEYS) : JSON.parse(text);
  } catch (error) {
    const detail = error instanceof Error ? error.message : String(error);
    if (/prototype property/.test(detail)) {
      throw validationFailed(null, 'json_forbidden_key');
    }
    throw validationFailed(null, 'json_malformed', { detail });
  }
}

function infiniteNumber(path: string): GatewayError {
  return path === '' ? validationFailed(null, 'json_number_too_large') : invalidValue(path, 'finite_number');
}

function mayHideForbiddenKey(text: string): boolean {
  return (
    text.charCodeAt(0) === 0xfeff || text.includes('__proto__') || text.includes('constructor') || text.includes('\\u')
  );
}
