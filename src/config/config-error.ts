/**
 * A configuration problem: which file, where inside it, and what is wrong. The CLI prints
 * its message as one line and exits non-zero, without a stack trace.
 */
export class ConfigError extends Error {
  constructor(
    readonly source: string,
    readonly path: string,
    readonly problem: string,
  ) {
    super(`invalid configuration ${source}${path ? ` at ${path}` : ''}: ${problem}`);
    this.name = 'ConfigError';
  }
}
