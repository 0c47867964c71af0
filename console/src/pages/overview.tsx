import { useMemo, useState } from 'preact/hooks';
import { admin, queryString } from '../api.js';
import { Chart, type ChartData } from '../chart.js';
import { formatDecimal, formatInteger, formatPercent, formatUsd } from '../format.js';
import { t } from '../i18n.js';
import type { StatsBucket, UsageStats } from '../types.js';
import { ErrorNote, Loading, useLoad } from '../ui.js';

type Range = 'hour' | 'day' | 'week';
type Split = '' | 'model' | 'node';

/** One chart's series: a line per group (or one line), a value per bucket, null where a group had no requests. */
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

export function OverviewPage() {
  const [range, setRange] = useState<Range>('hour');
  const [split, setSplit] = useState<Split>('');
  const { data, error, reload } = useLoad(
    () => admin<UsageStats>('GET', `/stats${queryString({ range, group_by: split })}`),
    [range, split],
    15_000,
  );
  const charts = useMemo(() => {
    if (data === undefined) return undefined;
    return {
      requests: chartOf(data, (bucket) => bucket.requests, 0),
      errors: chartOf(data, (bucket) => bucket.error_rate, null),
      latency: latencyChart(data),
      tokens: chartOf(data, (bucket) => bucket.total_tokens, 0),
      spend: chartOf(data, (bucket) => bucket.cost, 0),
    };
  }, [data]);
  const totals = useMemo(() => {
    const sum = (pick: (bucket: StatsBucket) => number) =>
      (data?.data ?? []).reduce((total, bucket) => total + pick(bucket), 0);
    const requests = sum((bucket) => bucket.requests);
    return {
      requests,
      errorRate: requests === 0 ? 0 : sum((bucket) => bucket.errors) / requests,
      tokens: sum((bucket) => bucket.total_tokens),
      spend: sum((bucket) => bucket.cost),
    };
  }, [data]);
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
        <label class="inline">
          {t('groupBy')}{' '}
          <select value={split} onChange={(event) => setSplit(event.currentTarget.value as Split)}>
            <option value="">{t('all')}</option>
            <option value="model">{t('byModel')}</option>
            <option value="node">{t('byNode')}</option>
          </select>
        </label>
        <button type="button" onClick={reload}>
          {t('refresh')}
        </button>
      </div>
      <ErrorNote message={error} />
      <div class="tiles">
        <div class="tile">
          <span>{t('requests')}</span>
          <strong data-testid="total-requests">{formatInteger(totals.requests)}</strong>
        </div>
        <div class="tile">
          <span>{t('errorRate')}</span>
          <strong>{formatPercent(totals.errorRate)}</strong>
        </div>
        <div class="tile">
          <span>{t('tokens')}</span>
          <strong>{formatInteger(totals.tokens)}</strong>
        </div>
        <div class="tile">
          <span>{t('spend')}</span>
          <strong>{formatUsd(totals.spend)}</strong>
        </div>
      </div>
      {charts === undefined ? (
        <Loading />
      ) : (
        <>
          {totals.requests === 0 && <p class="hint">{t('noTraffic')}</p>}
          <div class="charts">
            <Chart title={t('requests')} data={charts.requests} format={formatInteger} />
            <Chart title={t('errorRate')} data={charts.errors} format={formatPercent} minimumTop={0.1} />
            <Chart
              title={split === '' ? t('latency') + ' (ms)' : t('latencyP95')}
              data={charts.latency}
              format={formatDecimal}
            />
            <Chart title={t('tokens')} data={charts.tokens} format={formatInteger} />
            <Chart title={t('spend')} data={charts.spend} format={formatUsd} minimumTop={0.0001} />
          </div>
        </>
      )}
    </>
  );
}
