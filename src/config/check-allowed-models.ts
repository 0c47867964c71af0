import { ConfigError } from './config-error.js';

/** Refuses an `allowed_models` entry naming no configured model; `path` names the list in errors. */
export function checkAllowedModels(
  allowedModels: readonly string[] | undefined,
  modelIds: ReadonlySet<string>,
  path: string,
  source: string,
): void {
  allowedModels?.forEach((modelId, modelIndex) => {
    if (!modelIds.has(modelId)) {
      throw new ConfigError(source, `${path}[${modelIndex}]`, `unknown model "${modelId}"`);
    }
  });
}
