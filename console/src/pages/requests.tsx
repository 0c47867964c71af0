import { useEffect, useRef, useState } from 'preact/hooks';
import { admin, queryString } from '../api.js';
import { formatDecimal, formatTime } from '../format.js';
import { t } from '../i18n.js';
import type { RequestPage, RequestRecordView } from '../types.js';
import { ErrorNote, Field, Loading, Section } from '../ui.js';
import { FilterForm, useFilterChoices } from './filter-form.js';

/** Rows asked per page. */
const PAGE_SIZE = 50;
/** The list never holds more rows than this (older pages stop loading). */
const MAX_ROWS = 500;
/** How often the live view asks for the newest page. */
const LIVE_MS = 5_000;
/** Scrolled further down than this: the live view waits (the rows under the reader's eyes stay put). */
const SCROLL_PAUSE_PX = 40;

export const REQUEST_FILTERS = [
  'from',
  'to',
  'status',
  'error_code',
  'key',
  'account',
  'end_user',
  'model',
  'node',
  'door',
] as const;
type FilterName = (typeof REQUEST_FILTERS)[number];
export type RequestFilters = Record<FilterName, string>;

const EMPTY: RequestFilters = {
  from: '',
  to: '',
  status: '',
  error_code: '',
  key: '',
  account: '',
  end_user: '',
  model: '',
  node: '',
  door: '',
};

/** Filters given in the page's address (`#/requests?error_code=rate_limited`), the others empty. */
export function filtersOf(query: URLSearchParams): RequestFilters {
  const filters = { ...EMPTY };
  for (const name of REQUEST_FILTERS) filters[name] = query.get(name) ?? '';
  return filters;
}

const STATUS_CLASSES = ['2xx', '4xx', '5xx'].map((value) => ({ value, label: value }));
const DOORS = ['chat', 'messages', 'responses'].map((value) => ({ value, label: value }));

const isoOf = (local: string): string => (local === '' ? '' : new Date(local).toISOString());
const sameFilters = (left: RequestFilters, right: RequestFilters) =>
  REQUEST_FILTERS.every((name) => left[name] === right[name]);

function fetchPage(filters: RequestFilters, cursor: string | undefined): Promise<RequestPage> {
  return admin<RequestPage>(
    'GET',
    `/requests${queryString({ ...filters, from: isoOf(filters.from), to: isoOf(filters.to), limit: PAGE_SIZE, cursor })}`,
  );
}

/** `200`, `429 rate_limited`, or only the code of an attempt no node answered (`bad_gateway`). */
export function statusText(status: number | null, code: string | null): string {
  if (status === null) return code ?? t('noAnswer');
  return code === null ? String(status) : `${status} ${code}`;
}

export function milliseconds(value: number | null | undefined): string {
  return value === null || value === undefined ? t('none') : `${formatDecimal(value)} ms`;
}

/** The model asked, and the one that served it when they differ (an alias). */
function modelText(record: RequestRecordView): string {
  if (record.model === null) return t('none');
  return record.model_served !== null && record.model_served !== record.model
    ? `${record.model} → ${record.model_served}`
    : record.model;
}

/**
 * The request record: filters, older pages by cursor, a search by id, and a live view of
 * the newest requests (polled every 5 s on the first page only, paused while the reader
 * scrolls down, edits the filters or reads older pages; at most 500 rows held).
 */
export function RequestsPage({ initial }: { initial: RequestFilters }) {
  const [draft, setDraft] = useState<RequestFilters>(initial);
  const [filters, setFilters] = useState<RequestFilters>(initial);
  const [rows, setRows] = useState<RequestRecordView[] | undefined>(undefined);
  const [cursor, setCursor] = useState<string | null>(null);
  const [pages, setPages] = useState(1);
  const [error, setError] = useState<string | undefined>(undefined);
  const [live, setLive] = useState(true);
  const [scrolled, setScrolled] = useState(false);
  const [searchId, setSearchId] = useState('');
  // The answer of an older query that arrives late is dropped.
  const generation = useRef(0);

  useEffect(() => {
    setDraft(initial);
    setFilters(initial);
  }, [REQUEST_FILTERS.map((name) => initial[name]).join('\u0000')]);

  const loadFirst = () => {
    const mine = ++generation.current;
    fetchPage(filters, undefined).then(
      (page) => {
        if (mine !== generation.current) return;
        setRows(page.data);
        setCursor(page.next_cursor);
        setPages(1);
        setError(undefined);
      },
      (failure: unknown) => mine === generation.current && setError((failure as Error).message),
    );
  };
  useEffect(loadFirst, [filters]);

  useEffect(() => {
    const onScroll = () => setScrolled(window.scrollY > SCROLL_PAUSE_PX);
    window.addEventListener('scroll', onScroll, { passive: true });
    return () => window.removeEventListener('scroll', onScroll);
  }, []);

  const paused = scrolled || pages > 1 || !sameFilters(draft, filters);
  useEffect(() => {
    if (!live || paused) return undefined;
    const timer = setInterval(loadFirst, LIVE_MS);
    return () => clearInterval(timer);
  }, [live, paused, filters]);

  const loadOlder = () => {
    if (cursor === null) return;
    const mine = ++generation.current;
    fetchPage(filters, cursor).then(
      (page) => {
        if (mine !== generation.current) return;
        setRows((current) => [...(current ?? []), ...page.data].slice(0, MAX_ROWS));
        setCursor(page.next_cursor);
        setPages((count) => count + 1);
      },
      (failure: unknown) => mine === generation.current && setError((failure as Error).message),
    );
  };

  const choices = useFilterChoices();
  const full = rows !== undefined && rows.length >= MAX_ROWS;

  return (
    <>
      <Section title={t('findRequest')}>
        <form
          class="toolbar"
          role="search"
          onSubmit={(event) => {
            event.preventDefault();
            const id = searchId.trim();
            if (id !== '') location.hash = `#/requests/${encodeURIComponent(id)}`;
          }}
        >
          <Field label={t('requestId')}>
            <input
              type="search"
              name="request-id"
              value={searchId}
              maxLength={200}
              onInput={(event) => setSearchId(event.currentTarget.value)}
            />
          </Field>
          <button type="submit" class="primary">
            {t('find')}
          </button>
        </form>
      </Section>
      <Section title={t('requests')}>
        <FilterForm
          fields={[
            { name: 'from', label: t('from'), kind: 'time' },
            { name: 'to', label: t('to'), kind: 'time' },
            { name: 'status', label: t('statusClass'), kind: 'choice', options: STATUS_CLASSES },
            { name: 'error_code', label: t('errorCode'), kind: 'text' },
            { name: 'key', label: t('key'), kind: 'choice', options: choices.key },
            { name: 'account', label: t('account'), kind: 'choice', options: choices.account },
            { name: 'end_user', label: t('endUser'), kind: 'text' },
            { name: 'model', label: t('model'), kind: 'choice', options: choices.model },
            { name: 'node', label: t('node'), kind: 'choice', options: choices.node },
            { name: 'door', label: t('door'), kind: 'choice', options: DOORS },
          ]}
          draft={draft}
          onDraft={setDraft}
          onApply={() => setFilters(draft)}
          actions={
            <>
              <button type="button" onClick={loadFirst}>
                {t('refresh')}
              </button>
              <label class="inline">
                <input type="checkbox" checked={live} onChange={(event) => setLive(event.currentTarget.checked)} />{' '}
                {t('live')}
              </label>
            </>
          }
        />
        {live && (
          <p class="hint" role="status" data-testid="live-state" data-paused={String(paused)}>
            {paused ? t('livePaused') : t('liveOn')}
          </p>
        )}
        <ErrorNote message={error} />
        {rows === undefined ? (
          <Loading />
        ) : rows.length === 0 ? (
          <p class="hint">{t('noRequests')}</p>
        ) : (
          <>
            <div class="table-wrap">
              <table data-testid="request-rows">
                <thead>
                  <tr>
                    <th scope="col">{t('time')}</th>
                    <th scope="col">{t('requestId')}</th>
                    <th scope="col">{t('door')}</th>
                    <th scope="col">{t('status')}</th>
                    <th scope="col">{t('model')}</th>
                    <th scope="col">{t('key')}</th>
                    <th scope="col">{t('account')}</th>
                    <th scope="col">{t('endUser')}</th>
                    <th scope="col">{t('node')}</th>
                    <th scope="col" class="number">
                      {t('firstByte')}
                    </th>
                    <th scope="col" class="number">
                      {t('total')}
                    </th>
                  </tr>
                </thead>
                <tbody>
                  {rows.map((record) => (
                    <tr data-request={record.id} data-status={String(record.status ?? '')}>
                      <td>{formatTime(record.time)}</td>
                      <td>
                        <a href={`#/requests/${encodeURIComponent(record.id)}`}>{record.id}</a>
                      </td>
                      <td>{record.door}</td>
                      <td class={record.status === null || record.status >= 400 ? 'status-error' : undefined}>
                        {statusText(record.status, record.error_code)}
                      </td>
                      <td>{modelText(record)}</td>
                      <td>{record.key_prefix === null ? '' : `${record.key_prefix}…`}</td>
                      <td>{record.account ?? ''}</td>
                      <td>{record.end_user ?? ''}</td>
                      <td>
                        {record.attempts.length > 1
                          ? record.attempts.map((attempt) => attempt.node).join(' → ')
                          : (record.node ?? '')}
                      </td>
                      <td class="number">{milliseconds(record.first_byte_ms)}</td>
                      <td class="number">{milliseconds(record.total_ms)}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
            {cursor !== null && !full && (
              <p>
                <button type="button" onClick={loadOlder}>
                  {t('olderRequests')}
                </button>
              </p>
            )}
          </>
        )}
      </Section>
    </>
  );
}
