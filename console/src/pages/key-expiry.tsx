import { useState } from 'preact/hooks';
import { admin } from '../api.js';
import { formatTime } from '../format.js';
import { t } from '../i18n.js';
import type { KeyView } from '../types.js';
import { ErrorNote, Field, useAction } from '../ui.js';

/** The graces offered for a rotation, in seconds (the API takes up to 30 days). */
const GRACES: ReadonlyArray<{ seconds: number; label: () => string }> = [
  { seconds: 300, label: () => t('minutes', { count: '5' }) },
  { seconds: 3600, label: () => t('hours', { count: '1' }) },
  { seconds: 86_400, label: () => t('hours', { count: '24' }) },
  { seconds: 7 * 86_400, label: () => t('days', { count: '7' }) },
];

const DEFAULT_GRACE_SECONDS = 3600;

/** A key's expiry, and the end of the secret its last rotation replaced while it matters. */
export function KeyExpiry({ keyView, now = Date.now() }: { keyView: KeyView; now?: number }) {
  const expired = keyView.expires_at !== null && Date.parse(keyView.expires_at) <= now;
  const previousEnd = keyView.previous_expires_at === null ? undefined : Date.parse(keyView.previous_expires_at);
  return (
    <>
      {keyView.expires_at === null ? t('never') : formatTime(keyView.expires_at)}
      {expired && (
        <>
          {' '}
          <span class="badge badge-expired">{t('expired')}</span>
        </>
      )}
      {previousEnd !== undefined && keyView.previous_prefix !== null && (
        <div class="hint" data-testid="old-key-end">
          {t(previousEnd > now ? 'oldKeyUntil' : 'oldKeyEnded', {
            prefix: keyView.previous_prefix,
            time: formatTime(keyView.previous_expires_at as string),
          })}
        </div>
      )}
    </>
  );
}

/** `datetime-local` text → the API's ISO time; empty: no expiry. */
export function expiresAtOf(local: string): string | undefined {
  return local === '' ? undefined : new Date(local).toISOString();
}

/** The create form's expiry field. */
export function ExpiresAtField({ value, change }: { value: string; change: (value: string) => void }) {
  return (
    <Field label={t('expiresAt')}>
      <input
        type="datetime-local"
        name="key-expires-at"
        value={value}
        onInput={(event) => change(event.currentTarget.value)}
      />
    </Field>
  );
}

/** What a rotation answers: the key with its new secret, shown once. */
export interface RotatedKey extends KeyView {
  key: string;
}

/** The Rotate action of a key: choose the old secret's grace, then rotate. */
export function RotateKey({ keyView, rotated }: { keyView: KeyView; rotated: (answer: RotatedKey) => void }) {
  const [open, setOpen] = useState(false);
  const [grace, setGrace] = useState(DEFAULT_GRACE_SECONDS);
  const { error, busy, run } = useAction();
  if (!open) {
    return (
      <button type="button" onClick={() => setOpen(true)}>
        {t('rotate')}
      </button>
    );
  }
  const submit = async (event: Event) => {
    event.preventDefault();
    let answer: RotatedKey | undefined;
    const path = `/keys/${encodeURIComponent(keyView.id)}/rotate`;
    if (await run(async () => (answer = await admin<RotatedKey>('POST', path, { grace_seconds: grace })))) {
      setOpen(false);
      if (answer !== undefined) rotated(answer);
    }
  };
  return (
    <form class="rotate-form" aria-label={t('rotateKey', { id: keyView.prefix })} onSubmit={submit}>
      <Field label={t('grace')}>
        <select
          name="rotation-grace"
          value={String(grace)}
          onChange={(event) => setGrace(Number(event.currentTarget.value))}
        >
          {GRACES.map((option) => (
            <option value={String(option.seconds)}>{option.label()}</option>
          ))}
        </select>
      </Field>
      <button type="submit" class="primary" disabled={busy}>
        {t('rotate')}
      </button>
      <button type="button" disabled={busy} onClick={() => setOpen(false)}>
        {t('cancel')}
      </button>
      <ErrorNote message={error} />
    </form>
  );
}
