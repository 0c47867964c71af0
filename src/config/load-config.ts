import { readFileSync } from 'node:fs';
import { parseDocument } from 'yaml';
import { describeSchemaErrorInEnglish, pickSchemaError } from '../validation/describe-schema-error.js';
import { emptyValueHint } from './empty-value-hint.js';
import { ConfigError } from './config-error.js';
import { validateConfigFile } from '../validation/generated/validate-config-file.js';
import type { GatewayConfig } from './gateway-config.js';
import { EnvInterpolationError, interpolateEnv } from './interpolate-env.js';
import { misspelledField } from './misspelled-field.js';
import { resolveConfig } from './resolve-config.js';
import { fieldOf } from '../validation/field-of.js';

// validateConfigFile coerces scalars to the schema's type (interpolated values are strings:
// `port: ${PORT}` must still become a number); see scripts/generate-validators.ts.

/** Reads, interpolates, validates and resolves a YAML configuration file. Throws ConfigError. */
export function loadConfigFile(file: string, env: NodeJS.ProcessEnv = process.env): GatewayConfig {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new ConfigError(file, '', `cannot read the file (${String(fieldOf(error, 'code') ?? error)})`);
  }
  return parseConfigText(text, file, env);
}

/**
 * Same as loadConfigFile for text already in memory; `source` names it in errors. `demo`:
 * the built-in demo, the one configuration allowed its own public keys.
 */
export function parseConfigText(
  text: string,
  source: string,
  env: NodeJS.ProcessEnv = process.env,
  options: { readonly demo?: boolean } = {},
): GatewayConfig {
  const document = parseDocument(text);
  const syntaxError = document.errors[0];
  if (syntaxError) {
    const position = syntaxError.linePos?.[0];
    const where = position ? `line ${position.line}, column ${position.col}` : '';
    const firstLine = (syntaxError.message.split('\n')[0] ?? syntaxError.code).replace(
      / at line \d+, column \d+:?$/,
      '',
    );
    throw new ConfigError(source, where, `YAML syntax: ${firstLine}`);
  }
  const raw: unknown = document.toJS();
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) {
    throw new ConfigError(source, '', 'the file must hold a YAML mapping (listen, nodes, models, …)');
  }
  let interpolated: unknown;
  try {
    interpolated = interpolateEnv(raw, env);
  } catch (error) {
    if (error instanceof EnvInterpolationError) throw new ConfigError(source, error.path, error.message);
    throw error;
  }
  if (!validateConfigFile(interpolated)) {
    const error = pickSchemaError(validateConfigFile.errors);
    // An unknown key next to the problem (`modles:` for `models:`) is what to report.
    const misspelled = error ? misspelledField(error) : undefined;
    if (misspelled !== undefined) throw new ConfigError(source, misspelled.path, misspelled.problem);
    const problem = describeSchemaErrorInEnglish(error);
    const hint = emptyValueHint(error);
    throw new ConfigError(source, problem.path, hint === undefined ? problem.expected : `${problem.expected}: ${hint}`);
  }
  return resolveConfig(interpolated, source, options.demo === true);
}
