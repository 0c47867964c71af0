import { useState } from 'preact/hooks';
import { admin, queryString } from '../api.js';
import { formatDecimal, formatInteger, formatTime, formatUsd } from '../format.js';
import { t } from '../i18n.js';
import type { UsageReport, UsageRowView } from '../types.js';
import { ErrorNote, Loading, Section, useLoad } from '../ui.js';
import { FilterForm, useFilterChoices } from './filter-form.js';
import { EndUserTotalsTable } from './end-user-totals.js';

/** The columns of the CSV export, in order: every field of a usage row. */
const CSV_COLUMNS = [
  'created_at',
  'request_id',
  'correlation_id',
  'key',
  'account',
  'model',
  'node',
  'end_user',
  'attempts',
  'status',
  'error_code',
  'prompt_tokens',
  'completion_tokens',
  'reasoning_tokens',
  'cached_tokens',
  'cache_write_tokens',
  'cost',
  'estimated',
  'latency_ms',
  'first_byte_ms',
  'stream',
  'finish_reason',
] as const;

function csvCell(value: unknown): string {
  const text = value === null || value === undefined ? '' : String(value);
  // A leading =, +, - or @ would be a formula in a spreadsheet.
  const safe = /^[=+\-@]/.test(text) && Number.isNaN(Number(text)) ? `'${text}` : text;
  return /[",\n\r]/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
}

export function usageCsv(rows: readonly UsageRowView[]): string {
  const lines = [CSV_COLUMNS.join(',')];
  for (const row of rows) lines.push(CSV_COLUMNS.map((column) => csvCell(row[column])).join(','));
  return `${lines.join('\r\n')}\r\n`;
}

function download(name: string, text: string): void {
  const url = URL.createObjectURL(new Blob([text], { type: 'text/csv;charset=utf-8' }));
  const link = document.createElement('a');
  link.href = url;
  link.download = name;
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1_000);
}

const isoOf = (local: string): string => (local === '' ? '' : new Date(local).toISOString());

interface Filters {
  key: string;
  end_user: string;
  account: string;
  model: string;
  node: string;
  status: string;
  from: string;
  to: string;
  limit: string;
}

const EMPTY: Filters = {
  key: '',
  end_user: '',
  account: '',
  model: '',
  node: '',
  status: '',
  from: '',
  to: '',
  limit: '100',
};

export function UsagePage() {
  const [draft, setDraft] = useState<Filters>(EMPTY);
  const [filters, setFilters] = useState<Filters>(EMPTY);
  const report = useLoad(
    () =>
      admin<UsageReport>(
        'GET',
        `/usage${queryString({ ...filters, from: isoOf(filters.from), to: isoOf(filters.to), group_by: 'end_user' })}`,
      ),
    [filters],
  );
  const choices = useFilterChoices();
  const rows = report.data?.data ?? [];
  return (
    <>
      <Section title={t('usage')}>
        <FilterForm
          fields={[
            { name: 'key', label: t('key'), kind: 'choice', options: choices.key },
            { name: 'account', label: t('account'), kind: 'choice', options: choices.account },
            { name: 'end_user', label: t('endUser'), kind: 'text', maxLength: 128 },
            { name: 'model', label: t('model'), kind: 'choice', options: choices.model },
            { name: 'node', label: t('node'), kind: 'choice', options: choices.node },
            {
              name: 'status',
              label: t('status'),
              kind: 'choice',
              options: [
                { value: 'ok', label: t('ok') },
                { value: 'error', label: t('error') },
              ],
            },
            { name: 'from', label: t('from'), kind: 'time' },
            { name: 'to', label: t('to'), kind: 'time' },
            { name: 'limit', label: t('limit'), kind: 'number', min: 1, max: 1000 },
          ]}
          draft={draft}
          onDraft={setDraft}
          onApply={() => setFilters(draft)}
          actions={
            <button
              type="button"
              disabled={rows.length === 0}
              onClick={() => download(`switchyard-usage-${new Date().toISOString().slice(0, 19)}.csv`, usageCsv(rows))}
            >
              {t('exportCsv')}
            </button>
          }
        />
        <ErrorNote message={report.error} />
        {report.data !== undefined && (
          <p class="totals" data-testid="usage-totals">
            <strong>{t('totals')}:</strong> {formatInteger(report.data.totals.requests)} {t('requests').toLowerCase()} ·{' '}
            {formatInteger(report.data.totals.prompt_tokens)} {t('promptTokens')} ·{' '}
            {formatInteger(report.data.totals.completion_tokens)} {t('completionTokens')} ·{' '}
            {formatInteger(report.data.totals.reasoning_tokens)} {t('reasoningTokens')} ·{' '}
            {formatUsd(report.data.totals.cost)}
          </p>
        )}
      </Section>
      {report.data?.end_users !== undefined && report.data.end_users.length > 0 && (
        <Section title={t('perEndUser')}>
          <EndUserTotalsTable
            groups={report.data.end_users}
            choose={(endUser) => {
              setDraft({ ...draft, end_user: endUser });
              setFilters({ ...filters, end_user: endUser });
            }}
          />
        </Section>
      )}
      <Section title={t('requests')}>
        {report.data === undefined ? (
          <Loading />
        ) : rows.length === 0 ? (
          <p class="hint">{t('noRows')}</p>
        ) : (
          <div class="table-wrap">
            <table data-testid="usage-rows">
              <thead>
                <tr>
                  <th scope="col">{t('time')}</th>
                  <th scope="col">{t('requestId')}</th>
                  <th scope="col">{t('account')}</th>
                  <th scope="col">{t('model')}</th>
                  <th scope="col">{t('node')}</th>
                  <th scope="col">{t('endUser')}</th>
                  <th scope="col">{t('status')}</th>
                  <th scope="col" class="number">
                    {t('tokens')}
                  </th>
                  <th scope="col" class="number">
                    {t('cost')}
                  </th>
                  <th scope="col" class="number">
                    {t('latency')}
                  </th>
                </tr>
              </thead>
              <tbody>
                {rows.map((row) => (
                  <tr data-request={row.request_id}>
                    <td>{formatTime(row.created_at)}</td>
                    <td>
                      <a href={`#/requests/${encodeURIComponent(row.request_id)}`}>{row.request_id}</a>
                    </td>
                    <td>{row.account ?? ''}</td>
                    <td>{row.model}</td>
                    <td>{row.node ?? ''}</td>
                    <td data-testid="row-end-user">{typeof row.end_user === 'string' ? row.end_user : ''}</td>
                    <td class={row.status >= 400 ? 'status-error' : undefined}>
                      {row.status}
                      {row.error_code === null ? '' : ` ${row.error_code}`}
                    </td>
                    <td class="number">
                      {formatInteger(row.prompt_tokens)} / {formatInteger(row.completion_tokens)}
                    </td>
                    <td class="number">{formatUsd(row.cost)}</td>
                    <td class="number">{formatDecimal(row.latency_ms)} ms</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </Section>
    </>
  );
}

/** Everything the usage ledger knows about one request (nothing when it was refused before reaching a node). */
export function LedgerRows({ requestId }: { requestId: string }) {
  const { data, error } = useLoad(
    () => admin<UsageReport>('GET', `/usage${queryString({ request_id: requestId, limit: 1 })}`),
    [requestId],
  );
  const row = data?.data[0];
  return (
    <Section title={t('usageLedger')}>
      <ErrorNote message={error} />
      {data === undefined ? (
        <Loading />
      ) : row === undefined ? (
        <p class="hint">{t('notFoundRequest')}</p>
      ) : (
        <dl class="details" data-testid="ledger-details">
          {CSV_COLUMNS.map((column) => (
            <>
              <dt>{column}</dt>
              <dd>
                {column === 'created_at'
                  ? `${formatTime(row.created_at)} (${row.created_at})`
                  : column === 'cost'
                    ? formatUsd(row.cost)
                    : String(row[column] ?? '–')}
              </dd>
            </>
          ))}
        </dl>
      )}
    </Section>
  );
}
