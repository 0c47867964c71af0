import { useState } from 'preact/hooks';
import { admin } from '../api.js';
import { formatTime, formatUsd } from '../format.js';
import { t } from '../i18n.js';
import type { AccountView, LedgerEntry, List } from '../types.js';
import { BudgetBars, ErrorNote, Field, Loading, Section, useAction, useLoad } from '../ui.js';

function CreateAccountForm({ created }: { created: (id: string) => void }) {
  const [form, setForm] = useState({ id: '', name: '', balance: '10' });
  const { error, busy, run } = useAction();
  const submit = async (event: Event) => {
    event.preventDefault();
    const body = { id: form.id, ...(form.name === '' ? {} : { name: form.name }), balance: Number(form.balance) };
    if (await run(() => admin('POST', '/accounts', body))) {
      created(form.id);
      setForm({ id: '', name: '', balance: '10' });
    }
  };
  return (
    <form class="form-grid" onSubmit={submit}>
      <Field label={t('id')}>
        <input
          required
          name="account-id"
          value={form.id}
          maxLength={100}
          onInput={(event) => setForm({ ...form, id: event.currentTarget.value })}
        />
      </Field>
      <Field label={t('name')}>
        <input value={form.name} onInput={(event) => setForm({ ...form, name: event.currentTarget.value })} />
      </Field>
      <Field label={t('startingBalance')}>
        <input
          type="number"
          min={0}
          step="any"
          value={form.balance}
          onInput={(event) => setForm({ ...form, balance: event.currentTarget.value })}
        />
      </Field>
      <div class="form-actions">
        <button type="submit" class="primary" disabled={busy}>
          {t('create')}
        </button>
      </div>
      <ErrorNote message={error} />
    </form>
  );
}

function BalanceForm({ account, kind, changed }: { account: string; kind: 'topup' | 'adjust'; changed: () => void }) {
  const [amount, setAmount] = useState('');
  const [reason, setReason] = useState('');
  const { error, busy, run } = useAction();
  const submit = async (event: Event) => {
    event.preventDefault();
    const path = `/accounts/${encodeURIComponent(account)}/${kind}`;
    if (await run(() => admin('POST', path, { amount: Number(amount), reason }))) {
      setAmount('');
      setReason('');
      changed();
    }
  };
  return (
    <form class="form-grid" onSubmit={submit} aria-label={t(kind === 'topup' ? 'topUp' : 'adjust')}>
      <Field label={t(kind === 'topup' ? 'amount' : 'adjustAmount')}>
        <input
          type="number"
          step="any"
          min={kind === 'topup' ? 0 : undefined}
          required
          value={amount}
          onInput={(event) => setAmount(event.currentTarget.value)}
        />
      </Field>
      <Field label={t('reason')} wide>
        <input required maxLength={500} value={reason} onInput={(event) => setReason(event.currentTarget.value)} />
      </Field>
      <div class="form-actions">
        <button type="submit" class="primary" disabled={busy}>
          {t(kind === 'topup' ? 'topUp' : 'adjust')}
        </button>
      </div>
      <ErrorNote message={error} />
    </form>
  );
}

function AccountDetail({ id, changed }: { id: string; changed: () => void }) {
  const ledger = useLoad(() => admin<List<LedgerEntry>>('GET', `/accounts/${encodeURIComponent(id)}/ledger`), [id]);
  const after = () => {
    ledger.reload();
    changed();
  };
  return (
    <Section title={`${t('account')} ${id}`}>
      <div class="two-columns">
        <div>
          <h3>{t('topUp')}</h3>
          <BalanceForm account={id} kind="topup" changed={after} />
        </div>
        <div>
          <h3>{t('adjust')}</h3>
          <BalanceForm account={id} kind="adjust" changed={after} />
        </div>
      </div>
      <h3>{t('ledger')}</h3>
      <ErrorNote message={ledger.error} />
      {ledger.data === undefined ? (
        <Loading />
      ) : (
        <div class="table-wrap">
          <table data-testid="ledger">
            <thead>
              <tr>
                <th scope="col">{t('time')}</th>
                <th scope="col">{t('kind')}</th>
                <th scope="col" class="number">
                  {t('amount')}
                </th>
                <th scope="col" class="number">
                  {t('balanceAfter')}
                </th>
                <th scope="col">{t('reason')}</th>
              </tr>
            </thead>
            <tbody>
              {ledger.data.data.map((entry) => (
                <tr>
                  <td>{formatTime(entry.created_at)}</td>
                  <td>{entry.kind}</td>
                  <td class="number">{formatUsd(entry.amount)}</td>
                  <td class="number">{formatUsd(entry.balance_after)}</td>
                  <td>{entry.reason}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </Section>
  );
}

export function AccountsPage() {
  const accounts = useLoad(() => admin<List<AccountView>>('GET', '/accounts'), [], 10_000);
  const [selected, setSelected] = useState<string | undefined>(undefined);
  return (
    <>
      <Section title={t('accounts')}>
        <ErrorNote message={accounts.error} />
        {accounts.data === undefined ? (
          <Loading />
        ) : accounts.data.data.length === 0 ? (
          <p class="hint">{t('noAccounts')}</p>
        ) : (
          <div class="table-wrap">
            <table>
              <thead>
                <tr>
                  <th scope="col">{t('account')}</th>
                  <th scope="col">{t('name')}</th>
                  <th scope="col" class="number">
                    {t('balance')}
                  </th>
                  <th scope="col" class="number">
                    {t('reserved')}
                  </th>
                  <th scope="col" class="number">
                    {t('remaining')}
                  </th>
                  <th scope="col">{t('budgets')}</th>
                  <th scope="col">{t('actions')}</th>
                </tr>
              </thead>
              <tbody>
                {accounts.data.data.map((account) => (
                  <tr data-account={account.id} class={account.id === selected ? 'selected' : undefined}>
                    <th scope="row">{account.id}</th>
                    <td>{account.name ?? ''}</td>
                    <td class="number" data-testid="balance">
                      {formatUsd(account.balance)}
                    </td>
                    <td class="number">{formatUsd(account.reserved)}</td>
                    <td class="number">{formatUsd(account.remaining)}</td>
                    <td data-testid="account-budgets">
                      <BudgetBars budgets={account.budgets} owner={account.id} />
                    </td>
                    <td>
                      <button
                        type="button"
                        onClick={() => setSelected(account.id)}
                        aria-pressed={account.id === selected}
                      >
                        {t('open')}
                      </button>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </Section>
      {selected !== undefined && <AccountDetail id={selected} changed={accounts.reload} />}
      <Section title={t('createAccount')}>
        <CreateAccountForm
          created={(id) => {
            accounts.reload();
            setSelected(id);
          }}
        />
      </Section>
    </>
  );
}
