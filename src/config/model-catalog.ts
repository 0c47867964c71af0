import type { ModelConfig } from './gateway-config.js';

/** Most aliases one model may list (`models[].aliases`), exact ids and patterns together. */
export const MAX_ALIASES_PER_MODEL = 64;
/** Most patterns (aliases with `*`) of all models together: the few a request may be checked against. */
export const MAX_ALIAS_PATTERNS = 256;

/** Two models (or one model and another's id) claim the same id: where, and what. */
export class ModelAliasConflict extends Error {
  constructor(
    /** `models[i].aliases[j]`. */
    readonly path: string,
    readonly problem: string,
  ) {
    super(problem);
    this.name = 'ModelAliasConflict';
  }
}

/** An alias with `*`: the literal pieces between the stars, checked in order. */
interface AliasPattern {
  readonly text: string;
  readonly pieces: readonly string[];
  readonly model: ModelConfig;
}

/**
 * The configured models by the ids a client may send (PRODUCT.md decision 25): a model's
 * own id, then an exact alias (both one Map lookup), then the longest `*` pattern that
 * matches (patterns are tried only when no exact id matches, longest first; a tie goes to
 * the model listed first). Built once per configuration; conflicts throw ModelAliasConflict.
 */
export class ModelCatalog {
  /** Own ids only. */
  private readonly byId = new Map<string, ModelConfig>();
  /** Own ids and exact aliases. */
  private readonly byExactId = new Map<string, ModelConfig>();
  private readonly patterns: AliasPattern[] = [];

  constructor(models: readonly ModelConfig[]) {
    for (const model of models) {
      this.byId.set(model.id, model);
      this.byExactId.set(model.id, model);
    }
    const patternOwners = new Map<string, ModelConfig>();
    models.forEach((model, modelIndex) => {
      (model.aliases ?? []).forEach((alias, aliasIndex) => {
        const path = `models[${modelIndex}].aliases[${aliasIndex}]`;
        if (alias.includes('*')) {
          const owner = patternOwners.get(alias);
          if (owner !== undefined) throw new ModelAliasConflict(path, claimedTwice(alias, owner, model));
          patternOwners.set(alias, model);
          this.patterns.push({ text: alias, pieces: alias.split('*'), model });
          return;
        }
        const other = this.byId.get(alias);
        if (other === model) throw new ModelAliasConflict(path, `alias "${alias}" is the model's own id`);
        if (other !== undefined)
          throw new ModelAliasConflict(
            path,
            `alias "${alias}" of model "${model.id}" is the id of model "${other.id}"`,
          );
        const owner = this.byExactId.get(alias);
        if (owner !== undefined) throw new ModelAliasConflict(path, claimedTwice(alias, owner, model));
        this.byExactId.set(alias, model);
      });
    });
    if (this.patterns.length > MAX_ALIAS_PATTERNS)
      throw new ModelAliasConflict('models', `more than ${MAX_ALIAS_PATTERNS} alias patterns in all`);
    // Stable: equal lengths keep the order of the configuration.
    this.patterns.sort((a, b) => b.text.length - a.text.length);
  }

  /** The model a client's id names: own id, exact alias, longest matching pattern; undefined: none. */
  resolve(requested: string): ModelConfig | undefined {
    const exact = this.byExactId.get(requested);
    if (exact !== undefined || this.patterns.length === 0) return exact;
    for (const pattern of this.patterns) if (globMatches(pattern.pieces, requested)) return pattern.model;
    return undefined;
  }

  /** The model with this own id (aliases not followed): for operators' references to models. */
  get(id: string): ModelConfig | undefined {
    return this.byId.get(id);
  }

  has(id: string): boolean {
    return this.byId.has(id);
  }

  /** The models, in configuration order. */
  values(): IterableIterator<ModelConfig> {
    return this.byId.values();
  }

  get size(): number {
    return this.byId.size;
  }
}

function claimedTwice(alias: string, first: ModelConfig, second: ModelConfig): string {
  return first === second
    ? `alias "${alias}" is listed twice by model "${first.id}"`
    : `alias "${alias}" is claimed by both model "${first.id}" and model "${second.id}"`;
}

/** Whether `text` matches the pattern whose literal pieces (split at `*`) are given. */
export function globMatches(pieces: readonly string[], text: string): boolean {
  const first = pieces[0] ?? '';
  const last = pieces.at(-1) ?? '';
  if (text.length < first.length + last.length) return false;
  if (text.slice(0, first.length) !== first) return false;
  if (text.slice(text.length - last.length) !== last) return false;
  let at = first.length;
  const end = text.length - last.length;
  for (const piece of pieces.slice(1, -1)) {
    const found = text.indexOf(piece, at);
    if (found === -1 || found + piece.length > end) return false;
    at = found + piece.length;
  }
  return true;
}
