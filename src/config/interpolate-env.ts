/**
 * Replaces `${NAME}` and `${NAME:-default}` in every string of a parsed YAML document.
 * Interpolating after parsing keeps env values from changing the document's structure
 * and lets an unset variable be reported with its path in the file.
 */
export class EnvInterpolationError extends Error {
  constructor(
    readonly path: string,
    message: string,
  ) {
    super(message);
  }
}

const REFERENCE = /\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g;

export function interpolateEnv(value: unknown, env: NodeJS.ProcessEnv, path = ''): unknown {
  if (typeof value === 'string') {
    return value.replace(REFERENCE, (_match, name: string, fallback: string | undefined) => {
      const found = env[name];
      if (found !== undefined && found !== '') return found;
      if (fallback !== undefined) return fallback;
      throw new EnvInterpolationError(path, `environment variable ${name} is not set`);
    });
  }
  if (Array.isArray(value)) return value.map((item, index) => interpolateEnv(item, env, `${path}[${index}]`));
  if (value !== null && typeof value === 'object') {
    const result: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value))
      result[key] = interpolateEnv(item, env, path === '' ? key : `${path}.${key}`);
    return result;
  }
  return value;
}
