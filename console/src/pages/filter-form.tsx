import type { ComponentChildren } from 'preact';
import { admin } from '../api.js';
import { t } from '../i18n.js';
import type { AccountView, KeyView, List, ModelView, NodeView } from '../types.js';
import { Field, useLoad } from '../ui.js';

/** One choice of a drop-down filter. */
export interface FilterOption {
  readonly value: string;
  readonly label: string;
}

/** One filter of a form: a drop-down (with "any" first), free text, a local time or a number. */
export type FilterField<Name extends string> = { readonly name: Name; readonly label: string } & (
  | { readonly kind: 'choice'; readonly options: readonly FilterOption[] }
  | { readonly kind: 'text'; readonly maxLength?: number }
  | { readonly kind: 'time' }
  | { readonly kind: 'number'; readonly min: number; readonly max: number }
);

/** The keys, accounts, models and nodes to filter by, as drop-down choices (loaded from the admin API). */
export function useFilterChoices(): Record<'key' | 'account' | 'model' | 'node', FilterOption[]> {
  const keys = useLoad(() => admin<List<KeyView>>('GET', '/keys'), []);
  const accounts = useLoad(() => admin<List<AccountView>>('GET', '/accounts'), []);
  const models = useLoad(() => admin<List<ModelView>>('GET', '/models'), []);
  const nodes = useLoad(() => admin<List<NodeView>>('GET', '/nodes'), []);
  return {
    key: (keys.data?.data ?? []).map((key) => ({ value: key.id, label: `${key.prefix}… ${key.name ?? ''}` })),
    account: (accounts.data?.data ?? []).map((account) => ({ value: account.id, label: account.id })),
    model: (models.data?.data ?? []).map((model) => ({ value: model.id, label: model.id })),
    node: (nodes.data?.data ?? []).map((node) => ({ value: node.id, label: node.id })),
  };
}

/**
 * The filter form of the Requests and Usage pages: the fields in the order given, edited as
 * a draft, applied by **Apply**; `actions` go after that button.
 */
export function FilterForm<Name extends string>({
  fields,
  draft,
  onDraft,
  onApply,
  actions,
}: {
  fields: readonly FilterField<Name>[];
  draft: Readonly<Record<Name, string>>;
  onDraft: (draft: Record<Name, string>) => void;
  onApply: () => void;
  actions?: ComponentChildren;
}) {
  const set = (name: Name) => (event: { currentTarget: HTMLInputElement | HTMLSelectElement }) =>
    onDraft({ ...draft, [name]: event.currentTarget.value });
  const control = (field: FilterField<Name>) => {
    switch (field.kind) {
      case 'choice':
        return (
          <select name={field.name} value={draft[field.name]} onChange={set(field.name)}>
            <option value="">{t('any')}</option>
            {field.options.map((option) => (
              <option value={option.value}>{option.label}</option>
            ))}
          </select>
        );
      case 'text':
        return (
          <input
            type="text"
            name={field.name}
            maxLength={field.maxLength}
            value={draft[field.name]}
            onInput={set(field.name)}
          />
        );
      case 'time':
        return (
          <input type="datetime-local" step={1} name={field.name} value={draft[field.name]} onInput={set(field.name)} />
        );
      case 'number':
        return (
          <input
            type="number"
            name={field.name}
            min={field.min}
            max={field.max}
            value={draft[field.name]}
            onInput={set(field.name)}
          />
        );
    }
  };
  return (
    <form
      class="form-grid"
      onSubmit={(event) => {
        event.preventDefault();
        onApply();
      }}
    >
      {fields.map((field) => (
        <Field label={field.label}>{control(field)}</Field>
      ))}
      <div class="form-actions">
        <button type="submit" class="primary">
          {t('apply')}
        </button>
        {actions}
      </div>
    </form>
  );
}
