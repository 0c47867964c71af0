import { cloneElement, type ComponentChildren, type VNode } from 'preact';
import { useCallback, useEffect, useId, useState } from 'preact/hooks';
import { formatTime, formatUsd } from './format.js';
import { t } from './i18n.js';
import type { BudgetWindowView } from './types.js';

/** Loads data on mount (and every `refreshMs`); `reload` loads it again after a change. */
export function useLoad<T>(load: () => Promise<T>, dependencies: unknown[], refreshMs = 0) {
  const [data, setData] = useState<T | undefined>(undefined);
  const [error, setError] = useState<string | undefined>(undefined);
  const reload = useCallback(() => {
    load().then(
      (value) => {
        setData(value);
        setError(undefined);
      },
      (failure: unknown) => setError((failure as Error).message),
    );
  }, dependencies);
  useEffect(() => {
    reload();
    if (refreshMs === 0) return undefined;
    const timer = setInterval(reload, refreshMs);
    return () => clearInterval(timer);
  }, [reload, refreshMs]);
  return { data, error, reload };
}

/** Runs an action, showing its error; `busy` while it runs. */
export function useAction() {
  const [error, setError] = useState<string | undefined>(undefined);
  const [busy, setBusy] = useState(false);
  const run = async (action: () => Promise<unknown>): Promise<boolean> => {
    setBusy(true);
    setError(undefined);
    try {
      await action();
      return true;
    } catch (failure) {
      setError((failure as Error).message);
      return false;
    } finally {
      setBusy(false);
    }
  };
  return { error, busy, run };
}

export function ErrorNote({ message }: { message: string | undefined }) {
  return message === undefined ? null : (
    <p class="error" role="alert">
      {message}
    </p>
  );
}

export function Loading() {
  return <p aria-live="polite">{t('loading')}</p>;
}

/** A labelled control: the label names the control (for="…"), so its accessible name is the label alone. */
export function Field({ label, children, wide }: { label: string; children: VNode; wide?: boolean }) {
  const id = useId();
  return (
    <div class={wide ? 'field wide' : 'field'}>
      <label for={id}>{label}</label>
      {cloneElement(children, { id })}
    </div>
  );
}

export function Section({ title, children }: { title: string; children: ComponentChildren }) {
  return (
    <section class="card" aria-label={title}>
      <h2>{title}</h2>
      {children}
    </section>
  );
}

/** The word of each budget period. */
export const PERIOD_WORDS = { day: 'period_day', week: 'period_week', month: 'period_month' } as const;

/** A bar per budget window: spent of the limit, what remains, and when the window resets. */
export function BudgetBars({ budgets, owner }: { budgets: readonly BudgetWindowView[]; owner: string }) {
  if (budgets.length === 0) return <span class="hint">{t('noBudgets')}</span>;
  return (
    <ul class="budget-bars">
      {budgets.map((window) => (
        <li data-period={window.period} data-testid="budget-window">
          <Meter
            value={window.spent + window.reserved}
            max={window.limit}
            label={`${t(PERIOD_WORDS[window.period])} ${owner}`}
          />{' '}
          <strong>{t(PERIOD_WORDS[window.period])}</strong> {formatUsd(window.spent)} / {formatUsd(window.limit)} ·{' '}
          {formatUsd(window.remaining)} {t('remaining')} · {t('resets')}{' '}
          <time dateTime={window.resets_at}>{formatTime(window.resets_at)}</time>
        </li>
      ))}
    </ul>
  );
}

/** A bar of `value` against `max` (no max: an empty track). */
export function Meter({ value, max, label }: { value: number; max: number | null; label: string }) {
  const share = max === null || max <= 0 ? 0 : Math.min(1, value / max);
  return (
    <span
      class="meter"
      role="meter"
      aria-valuemin={0}
      aria-valuemax={max ?? 0}
      aria-valuenow={value}
      aria-label={label}
    >
      <span class={share >= 0.9 ? 'meter-fill high' : 'meter-fill'} style={{ width: `${Math.round(share * 100)}%` }} />
    </span>
  );
}

export function StateBadge({ state }: { state: string }) {
  return <span class={`badge badge-${state}`}>{state}</span>;
}
