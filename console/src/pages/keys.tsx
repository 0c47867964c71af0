import { Fragment } from 'preact';
import { useState } from 'preact/hooks';
import { admin } from '../api.js';
import { formatTime, formatUsd } from '../format.js';
import { t } from '../i18n.js';
import type { AccountView, KeyView, List } from '../types.js';
import {
  BudgetBars,
  ErrorNote,
  Field,
  Loading,
  Meter,
  PERIOD_WORDS,
  Section,
  StateBadge,
  useAction,
  useLoad,
} from '../ui.js';
import { KeyEndUsers } from './key-end-users.js';
import { ExpiresAtField, expiresAtOf, KeyExpiry, RotateKey } from './key-expiry.js';

/** The key's budget per end user, and a button that opens its end users' windows. */
function EndUserBudgets({ keyView, open, toggle }: { keyView: KeyView; open: boolean; toggle: () => void }) {
  const budgets = keyView.end_user_budgets ?? [];
  if (budgets.length === 0) return null;
  return (
    <div class="end-user-budgets">
      {budgets.map((budget) => (
        <div class="hint" data-testid="end-user-budget">
          {t('perEndUserBudget', { period: t(PERIOD_WORDS[budget.period]), limit: formatUsd(budget.limit) })}
        </div>
      ))}
      <button type="button" aria-expanded={open} aria-controls={`end-users-${keyView.id}`} onClick={toggle}>
        {t('showEndUsers')}
      </button>
    </div>
  );
}

const COLUMNS = 9;

/** A key's secret, shown once, with a copy button. */
export function SecretOnce({ secret, dismiss, note }: { secret: string; dismiss?: () => void; note?: string }) {
  const [copied, setCopied] = useState(false);
  const copy = () => {
    void navigator.clipboard?.writeText(secret).then(() => setCopied(true));
  };
  return (
    <div class="secret" role="status">
      <p>{t('secretOnce')}</p>
      {note !== undefined && <p data-testid="secret-note">{note}</p>}
      <div class="secret-row">
        <code data-testid="new-key-secret">{secret}</code>
        <button type="button" onClick={copy}>
          {copied ? t('copied') : t('copy')}
        </button>
        {dismiss !== undefined && (
          <button type="button" onClick={dismiss}>
            {t('done')}
          </button>
        )}
      </div>
    </div>
  );
}

function CreateKeyForm({ accounts, created }: { accounts: AccountView[]; created: (secret: string) => void }) {
  const [form, setForm] = useState({ account: accounts[0]?.id ?? '', name: '', spend_limit: '', expires_at: '' });
  const { error, busy, run } = useAction();
  const submit = async (event: Event) => {
    event.preventDefault();
    const body = {
      account: form.account,
      ...(form.name === '' ? {} : { name: form.name }),
      ...(form.spend_limit === '' ? {} : { spend_limit: Number(form.spend_limit) }),
      ...(form.expires_at === '' ? {} : { expires_at: expiresAtOf(form.expires_at) }),
    };
    let secret = '';
    if (await run(async () => (secret = (await admin<{ key: string }>('POST', '/keys', body)).key))) {
      setForm({ ...form, name: '', spend_limit: '', expires_at: '' });
      created(secret);
    }
  };
  return (
    <form class="form-grid" onSubmit={submit}>
      <Field label={t('account')}>
        <select
          required
          name="key-account"
          value={form.account}
          onChange={(event) => setForm({ ...form, account: event.currentTarget.value })}
        >
          {accounts.map((account) => (
            <option value={account.id}>{account.id}</option>
          ))}
        </select>
      </Field>
      <Field label={t('name')}>
        <input
          name="key-name"
          maxLength={200}
          value={form.name}
          onInput={(event) => setForm({ ...form, name: event.currentTarget.value })}
        />
      </Field>
      <Field label={t('spendLimit')}>
        <input
          type="number"
          min={0}
          step="any"
          value={form.spend_limit}
          onInput={(event) => setForm({ ...form, spend_limit: event.currentTarget.value })}
        />
      </Field>
      <ExpiresAtField value={form.expires_at} change={(value) => setForm({ ...form, expires_at: value })} />
      <div class="form-actions">
        <button type="submit" class="primary" disabled={busy || accounts.length === 0}>
          {t('createKey')}
        </button>
      </div>
      <ErrorNote message={error} />
    </form>
  );
}

type KeyAction = 'block' | 'unblock' | 'revoke' | 'delete';

export function KeysPage() {
  const keys = useLoad(() => admin<List<KeyView>>('GET', '/keys'), [], 10_000);
  const accounts = useLoad(() => admin<List<AccountView>>('GET', '/accounts'), []);
  const [secret, setSecret] = useState<{ value: string; note?: string } | undefined>(undefined);
  const [openEndUsers, setOpenEndUsers] = useState<ReadonlySet<string>>(new Set());
  const toggleEndUsers = (id: string) => {
    const next = new Set(openEndUsers);
    if (!next.delete(id)) next.add(id);
    setOpenEndUsers(next);
  };
  const { error, busy, run } = useAction();
  const act = (key: KeyView, action: KeyAction) => {
    if (action === 'revoke' && !window.confirm(t('confirmRevoke', { id: key.prefix }))) return;
    if (action === 'delete' && !window.confirm(t('confirmDelete', { id: key.prefix }))) return;
    const path = `/keys/${encodeURIComponent(key.id)}`;
    void run(() => (action === 'delete' ? admin('DELETE', path) : admin('POST', `${path}/${action}`))).then(
      keys.reload,
    );
  };
  return (
    <>
      <Section title={t('createKey')}>
        {secret !== undefined && (
          <SecretOnce secret={secret.value} note={secret.note} dismiss={() => setSecret(undefined)} />
        )}
        {accounts.data === undefined ? (
          <Loading />
        ) : accounts.data.data.length === 0 ? (
          <p class="hint">{t('noAccounts')}</p>
        ) : (
          <CreateKeyForm
            accounts={accounts.data.data}
            created={(value) => {
              setSecret({ value });
              keys.reload();
            }}
          />
        )}
      </Section>
      <Section title={t('keys')}>
        <ErrorNote message={keys.error ?? error} />
        {keys.data === undefined ? (
          <Loading />
        ) : keys.data.data.length === 0 ? (
          <p class="hint">{t('noKeys')}</p>
        ) : (
          <div class="table-wrap">
            <table>
              <thead>
                <tr>
                  <th scope="col">{t('prefix')}</th>
                  <th scope="col">{t('name')}</th>
                  <th scope="col">{t('account')}</th>
                  <th scope="col">{t('status')}</th>
                  <th scope="col">{t('spent')}</th>
                  <th scope="col">{t('budgets')}</th>
                  <th scope="col">{t('lastUsed')}</th>
                  <th scope="col">{t('expires')}</th>
                  <th scope="col">{t('actions')}</th>
                </tr>
              </thead>
              <tbody>
                {keys.data.data.map((key) => (
                  <Fragment key={key.id}>
                    <tr data-key={key.id}>
                      <th scope="row">
                        <code>{key.prefix}…</code>
                      </th>
                      <td>{key.name ?? ''}</td>
                      <td>{key.account ?? ''}</td>
                      <td data-testid="key-status">
                        <StateBadge state={key.status} />
                      </td>
                      <td data-testid="key-spend">
                        {/* A meter only against a limit: without one there is nothing to fill. */}
                        {key.spend_limit === null ? (
                          `${formatUsd(key.spent)} / ${t('noLimit')}`
                        ) : (
                          <>
                            <Meter value={key.spent} max={key.spend_limit} label={`${t('spent')} ${key.prefix}`} />{' '}
                            {formatUsd(key.spent)} / {formatUsd(key.spend_limit)}
                            {key.remaining !== null && ` · ${formatUsd(key.remaining)} ${t('remaining')}`}
                          </>
                        )}
                      </td>
                      <td data-testid="key-budgets">
                        <BudgetBars budgets={key.budgets} owner={key.prefix} />
                        <EndUserBudgets
                          keyView={key}
                          open={openEndUsers.has(key.id)}
                          toggle={() => toggleEndUsers(key.id)}
                        />
                      </td>
                      <td>{key.last_used_at === null ? t('never') : formatTime(key.last_used_at)}</td>
                      <td data-testid="key-expiry">
                        <KeyExpiry keyView={key} />
                      </td>
                      <td class="actions">
                        {key.source !== 'config' && key.status !== 'revoked' && (
                          <RotateKey
                            keyView={key}
                            rotated={(answer) => {
                              window.scrollTo(0, 0);
                              setSecret({
                                value: answer.key,
                                note: t('rotated', { time: formatTime(answer.previous_expires_at ?? '') }),
                              });
                              keys.reload();
                            }}
                          />
                        )}
                        {key.status === 'active' && (
                          <button type="button" disabled={busy} onClick={() => act(key, 'block')}>
                            {t('block')}
                          </button>
                        )}
                        {key.status === 'blocked' && (
                          <button type="button" disabled={busy} onClick={() => act(key, 'unblock')}>
                            {t('unblock')}
                          </button>
                        )}
                        {key.status !== 'revoked' && (
                          <button type="button" class="danger" disabled={busy} onClick={() => act(key, 'revoke')}>
                            {t('revoke')}
                          </button>
                        )}
                        <button type="button" class="danger" disabled={busy} onClick={() => act(key, 'delete')}>
                          {t('delete')}
                        </button>
                      </td>
                    </tr>
                    {openEndUsers.has(key.id) && (key.end_user_budgets ?? []).length > 0 && (
                      <tr class="key-end-users" id={`end-users-${key.id}`} data-end-users-of={key.id}>
                        <td colSpan={COLUMNS}>
                          <h3>{t('endUsersOf', { key: `${key.prefix}…` })}</h3>
                          <KeyEndUsers keyView={key} />
                        </td>
                      </tr>
                    )}
                  </Fragment>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </Section>
    </>
  );
}
