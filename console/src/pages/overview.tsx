import { useEffect, useMemo, useState } from 'preact/hooks';
import { admin, queryString } from '../api.js';
import { Chart, type ChartData } from '../chart.js';
import { formatDecimal, formatInteger, formatPercent, formatUsd } from '../format.js';
import { t } from '../i18n.js';
import type { List, NodeView, RequestStats, StatsBucket, UnauthenticatedView, UsageStats } from '../types.js';
import { ErrorNote, Loading, Section, StateBadge, useLoad } from '../ui.js';

type Range = 'hour' | 'day' | 'week';
type Split = '' | 'model' | 'node';

/** Each range's span and bucket width, in seconds (as the usage stats of the ledger use them). */
const RANGES: Record<Range, { span: number; bucket: number }> = {
  hour: { span: 3600, bucket: 60 },
  day: { span: 86_400, bucket: 1800 },
  week: { span: 7 * 86_400, bucket: 3 * 3600 },
};
/** The reason of the request record's count of answers without a valid key that were no error. */
const UNAUTHENTICATED_SUCCESS = 'none';
/** Error codes drawn as their own line; the rest are summed as "other". */
const CHARTED_CODES = 6;

/** The answers clients got in the range, per bucket: the request record's stats plus the refusals of requests without a valid key. */
interface ClientAnswers {
  x: number[];
  requests: number[];
  classes: Record<'2xx' | '4xx' | '5xx', number[]>;
  codes: Map<string, number[]>;
  firstByteP50: Array<number | null>;
  firstByteP95: Array<number | null>;
  total: number;
  errors: number;
  totalCodes: Array<[string, number]>;
  withoutKey: number;
}

/**
 * Puts the record's buckets on a full axis, and adds the requests without a valid key (the
 * record counts them per client address and reason, not one row each: each count lands in
 * the bucket it was last seen in, as a 401 with its reason as the code).
 */
function clientAnswers(
  stats: RequestStats,
  unauthenticated: readonly UnauthenticatedView[],
  from: number,
  bucket: number,
  count: number,
): ClientAnswers {
  const x = Array.from({ length: count }, (_unused, index) => from + index * bucket);
  const zeros = () => x.map(() => 0);
  const answers: ClientAnswers = {
    x,
    requests: zeros(),
    classes: { '2xx': zeros(), '4xx': zeros(), '5xx': zeros() },
    codes: new Map(),
    firstByteP50: x.map(() => null),
    firstByteP95: x.map(() => null),
    total: stats.totals.requests,
    errors: stats.totals.errors,
    totalCodes: [],
    withoutKey: 0,
  };
  const indexOf = (iso: string) =>
    Math.min(count - 1, Math.max(0, Math.floor((Date.parse(iso) / 1000 - from) / bucket)));
  const addCode = (code: string, index: number, value: number) => {
    let values = answers.codes.get(code);
    if (values === undefined) answers.codes.set(code, (values = zeros()));
    values[index] = (values[index] ?? 0) + value;
  };
  for (const entry of stats.buckets) {
    const index = indexOf(entry.start);
    answers.requests[index] = (answers.requests[index] ?? 0) + entry.requests;
    for (const name of ['2xx', '4xx', '5xx'] as const)
      answers.classes[name][index] = (answers.classes[name][index] ?? 0) + (entry.status_classes[name] ?? 0);
    for (const [code, value] of Object.entries(entry.error_codes)) addCode(code, index, value);
    answers.firstByteP50[index] = entry.first_byte_ms_p50;
    answers.firstByteP95[index] = entry.first_byte_ms_p95;
  }
  const totalCodes = new Map(Object.entries(stats.totals.error_codes));
  let refusedWithoutKey = 0;
  for (const entry of unauthenticated) {
    if (Date.parse(entry.last_seen) / 1000 < from) continue;
    const index = indexOf(entry.last_seen);
    answers.requests[index] = (answers.requests[index] ?? 0) + entry.count;
    answers.withoutKey += entry.count;
    // `none`: answered without an error (a path that needs no key); every other reason is the error's code.
    if (entry.reason === UNAUTHENTICATED_SUCCESS) {
      answers.classes['2xx'][index] = (answers.classes['2xx'][index] ?? 0) + entry.count;
      continue;
    }
    answers.classes['4xx'][index] = (answers.classes['4xx'][index] ?? 0) + entry.count;
    addCode(entry.reason, index, entry.count);
    totalCodes.set(entry.reason, (totalCodes.get(entry.reason) ?? 0) + entry.count);
    refusedWithoutKey += entry.count;
  }
  answers.total += answers.withoutKey;
  answers.errors += refusedWithoutKey;
  answers.totalCodes = [...totalCodes].sort((left, right) => right[1] - left[1] || left[0].localeCompare(right[0]));
  return answers;
}

function errorRateChart(answers: ClientAnswers): ChartData {
  return {
    x: answers.x,
    series: [
      {
        label: t('errorRate'),
        values: answers.requests.map((requests, index) =>
          requests === 0
            ? null
            : ((answers.classes['4xx'][index] ?? 0) + (answers.classes['5xx'][index] ?? 0)) / requests,
        ),
      },
    ],
  };
}

function errorCodesChart(answers: ClientAnswers): ChartData {
  const charted = answers.totalCodes.slice(0, CHARTED_CODES).map(([code]) => code);
  const series = charted.map((code) => ({
    label: code,
    values: answers.codes.get(code) ?? ([] as Array<number | null>),
  }));
  const rest = [...answers.codes].filter(([code]) => !charted.includes(code));
  if (rest.length > 0) {
    series.push({
      label: 'other',
      values: answers.x.map((_unused, index) => rest.reduce((sum, [, values]) => sum + (values[index] ?? 0), 0)),
    });
  }
  if (series.length === 0) series.push({ label: t('errors'), values: answers.x.map(() => 0) });
  return { x: answers.x, series };
}

/** One chart's series of the usage ledger's stats: a line per group (or one line), null where a group had no requests. */
function chartOf(stats: UsageStats, pick: (bucket: StatsBucket) => number, fill: number | null): ChartData {
  const width = stats.bucket_seconds;
  const first = Date.parse(stats.from) / 1000;
  const count = Math.round((Date.parse(stats.to) / 1000 - first) / width);
  const x = Array.from({ length: count }, (_unused, index) => first + index * width);
  const groups = [...new Set(stats.data.map((bucket) => bucket.group ?? '—'))].sort();
  if (groups.length === 0) groups.push(t('all'));
  const series = groups.map((group) => {
    const values: Array<number | null> = x.map(() => fill);
    for (const bucket of stats.data) {
      if ((bucket.group ?? '—') !== group && stats.group_by !== null) continue;
      const index = Math.round((Date.parse(bucket.start) / 1000 - first) / width);
      if (index >= 0 && index < count) values[index] = pick(bucket);
    }
    return { label: stats.group_by === null ? t('all') : group, values };
  });
  return { x, series };
}

function latencyChart(stats: UsageStats): ChartData {
  if (stats.group_by !== null) return chartOf(stats, (bucket) => bucket.latency_p95_ms, null);
  const p50 = chartOf(stats, (bucket) => bucket.latency_p50_ms, null);
  const p95 = chartOf(stats, (bucket) => bucket.latency_p95_ms, null);
  return {
    x: p50.x,
    series: [
      { label: 'p50', values: p50.series[0]?.values ?? [] },
      { label: 'p95', values: p95.series[0]?.values ?? [] },
    ],
  };
}

/** What clients got (request record), the nodes now, and the usage of the nodes (ledger). */
export function OverviewPage() {
  const [range, setRange] = useState<Range>('hour');
  const [split, setSplit] = useState<Split>('');
  // Every refresh (the button, or each 15 s) loads everything again over a range ending now.
  const [tick, setTick] = useState(0);
  const refresh = () => setTick((value) => value + 1);
  useEffect(() => {
    const timer = setInterval(refresh, 15_000);
    return () => clearInterval(timer);
  }, []);
  const { span, bucket } = RANGES[range];
  // The axis ends at the end of the current bucket.
  const axisEnd = useMemo(() => Math.ceil(Date.now() / 1000 / bucket) * bucket, [bucket, tick]);
  const axisStart = axisEnd - span;
  const records = useLoad(async () => {
    const bounds = { from: new Date(axisStart * 1000).toISOString(), to: new Date(axisEnd * 1000).toISOString() };
    const [stats, unauthenticated] = await Promise.all([
      admin<RequestStats>('GET', `/requests/stats${queryString({ ...bounds, bucket })}`),
      // Refusals without a valid key are counted apart; without that list the rest still shows.
      admin<List<UnauthenticatedView>>(
        'GET',
        `/requests/unauthenticated${queryString({ from: bounds.from, limit: 1000 })}`,
      ).catch(() => ({ data: [] })),
    ]);
    return clientAnswers(stats, unauthenticated.data, axisStart, bucket, span / bucket);
  }, [range, axisEnd, tick]);
  const usage = useLoad(
    () => admin<UsageStats>('GET', `/stats${queryString({ range, group_by: split })}`),
    [range, split, tick],
  );
  const nodes = useLoad(() => admin<List<NodeView>>('GET', '/nodes'), [tick]);

  const answers = records.data;
  const clientCharts = useMemo(() => {
    if (answers === undefined) return undefined;
    return {
      classes: {
        x: answers.x,
        series: (['2xx', '4xx', '5xx'] as const).map((name) => ({ label: name, values: answers.classes[name] })),
      },
      errorRate: errorRateChart(answers),
      codes: errorCodesChart(answers),
      firstByte: {
        x: answers.x,
        series: [
          { label: 'p50', values: answers.firstByteP50 },
          { label: 'p95', values: answers.firstByteP95 },
        ],
      },
    };
  }, [answers]);
  const usageCharts = useMemo(() => {
    if (usage.data === undefined) return undefined;
    return {
      latency: latencyChart(usage.data),
      tokens: chartOf(usage.data, (entry) => entry.total_tokens, 0),
      spend: chartOf(usage.data, (entry) => entry.cost, 0),
    };
  }, [usage.data]);
  const ledger = useMemo(() => {
    const sum = (pick: (entry: StatsBucket) => number) =>
      (usage.data?.data ?? []).reduce((total, entry) => total + pick(entry), 0);
    return {
      requests: sum((entry) => entry.requests),
      tokens: sum((entry) => entry.total_tokens),
      spend: sum((entry) => entry.cost),
    };
  }, [usage.data]);
  const errorRate = answers === undefined || answers.total === 0 ? 0 : answers.errors / answers.total;

  return (
    <>
      <div class="toolbar" role="group" aria-label={t('range')}>
        {(['hour', 'day', 'week'] as const).map((value) => (
          <button
            type="button"
            class={value === range ? 'toggle active' : 'toggle'}
            aria-pressed={value === range}
            onClick={() => setRange(value)}
          >
            {t(value === 'hour' ? 'lastHour' : value === 'day' ? 'lastDay' : 'lastWeek')}
          </button>
        ))}
        <button type="button" onClick={refresh}>
          {t('refresh')}
        </button>
      </div>
      <ErrorNote message={records.error ?? usage.error} />
      <div class="tiles">
        <div class="tile">
          <span>{t('requests')}</span>
          <strong data-testid="total-requests">{formatInteger(answers?.total ?? 0)}</strong>
        </div>
        <div class="tile">
          <span>{t('errorRate')}</span>
          <strong data-testid="error-rate" data-value={String(errorRate)}>
            {formatPercent(errorRate)}
          </strong>
        </div>
        <div class="tile">
          <span>{t('reachedNode')}</span>
          <strong data-testid="ledger-requests">{formatInteger(ledger.requests)}</strong>
        </div>
        <div class="tile">
          <span>{t('tokens')}</span>
          <strong>{formatInteger(ledger.tokens)}</strong>
        </div>
        <div class="tile">
          <span>{t('spend')}</span>
          <strong>{formatUsd(ledger.spend)}</strong>
        </div>
      </div>
      <Section title={t('clientAnswers')}>
        <p class="hint">{t('clientAnswersHint')}</p>
        {answers === undefined || clientCharts === undefined ? (
          <Loading />
        ) : (
          <>
            {answers.total === 0 && <p class="hint">{t('noTraffic')}</p>}
            <div class="charts">
              <Chart title={t('statusClasses')} data={clientCharts.classes} format={formatInteger} />
              <Chart title={t('errorRate')} data={clientCharts.errorRate} format={formatPercent} minimumTop={0.1} />
              <Chart title={t('errorsByCode')} data={clientCharts.codes} format={formatDecimal} />
              <Chart title={t('firstByteMs')} data={clientCharts.firstByte} format={formatDecimal} />
            </div>
            <ErrorCodes answers={answers} />
          </>
        )}
      </Section>
      <NodesNow nodes={nodes.data?.data} />
      <Section title={t('nodeUsage')}>
        <div class="toolbar">
          <label class="inline">
            {t('groupBy')}{' '}
            <select value={split} onChange={(event) => setSplit(event.currentTarget.value as Split)}>
              <option value="">{t('all')}</option>
              <option value="model">{t('byModel')}</option>
              <option value="node">{t('byNode')}</option>
            </select>
          </label>
        </div>
        {usageCharts === undefined ? (
          <Loading />
        ) : (
          <div class="charts">
            <Chart
              title={split === '' ? t('latency') + ' (ms)' : t('latencyP95')}
              data={usageCharts.latency}
              format={formatDecimal}
            />
            <Chart title={t('tokens')} data={usageCharts.tokens} format={formatInteger} />
            <Chart title={t('spend')} data={usageCharts.spend} format={formatUsd} minimumTop={0.0001} />
          </div>
        )}
      </Section>
    </>
  );
}

/** The error codes of the range, most frequent first, each a link to the matching requests. */
function ErrorCodes({ answers }: { answers: ClientAnswers }) {
  if (answers.totalCodes.length === 0) return <p class="hint">{t('noErrors')}</p>;
  return (
    <div class="table-wrap">
      <table data-testid="error-codes">
        <caption>{t('errorsByCode')}</caption>
        <thead>
          <tr>
            <th scope="col">{t('code')}</th>
            <th scope="col" class="number">
              {t('count')}
            </th>
            <th scope="col" class="number">
              {t('share')}
            </th>
          </tr>
        </thead>
        <tbody>
          {answers.totalCodes.map(([code, count]) => (
            <tr data-code={code}>
              <td>
                <a href={`#/requests?error_code=${encodeURIComponent(code)}`}>{code}</a>
              </td>
              <td class="number">{formatInteger(count)}</td>
              <td class="number">{formatPercent(answers.total === 0 ? 0 : count / answers.total)}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {answers.withoutKey > 0 && (
        <p class="hint">
          {formatInteger(answers.withoutKey)} {t('withoutKey')}
        </p>
      )}
    </div>
  );
}

/** Each node's state and recent error rate: a node failing every request stands out here. */
function NodesNow({ nodes }: { nodes: NodeView[] | undefined }) {
  return (
    <Section title={t('nodeHealth')}>
      {nodes === undefined ? (
        <Loading />
      ) : (
        <div class="table-wrap">
          <table data-testid="overview-nodes">
            <thead>
              <tr>
                <th scope="col">{t('node')}</th>
                <th scope="col">{t('state')}</th>
                <th scope="col" class="number">
                  {t('errorRate')}
                </th>
                <th scope="col" class="number">
                  {t('inFlight')}
                </th>
              </tr>
            </thead>
            <tbody>
              {nodes.map((node) => (
                <tr data-node={node.id} class={node.error_rate >= 0.5 ? 'row-alert' : undefined}>
                  <td>
                    <a href={`#/requests?node=${encodeURIComponent(node.id)}`}>{node.id}</a>
                  </td>
                  <td>
                    <StateBadge state={node.state} />
                  </td>
                  <td class={node.error_rate > 0 ? 'number status-error' : 'number'}>
                    {formatPercent(node.error_rate)}
                  </td>
                  <td class="number">
                    {formatInteger(node.in_flight)} / {formatInteger(node.max_concurrency)}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </Section>
  );
}
