import { ConfigError } from './config-error.js';
import type { ConfigFile } from './config-schema.js';
import { isDocumentedSecret } from './example-secrets.js';

/** API keys and the admin key printed in the documentation are no secrets: refused (the demo keeps its own). */
export function refuseDocumentedSecrets(file: ConfigFile, source: string, demo: boolean): void {
  const problem =
    'is an example printed in the documentation, known to anyone: use a secret of your own (e.g. openssl rand -base64 32)';
  if (file.admin_key !== undefined && isDocumentedSecret(file.admin_key, demo)) {
    throw new ConfigError(source, 'admin_key', problem);
  }
  // Never echo the key itself: name the entry by position only.
  (file.keys ?? []).forEach((key, index) => {
    if (isDocumentedSecret(key.key, demo)) throw new ConfigError(source, `keys[${index}].key`, problem);
  });
}
