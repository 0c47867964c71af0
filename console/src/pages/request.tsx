import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import { admin, ApiError, traceLink } from '../api.js';
import { formatInteger, formatTime, formatUsd } from '../format.js';
import { t } from '../i18n.js';
import type { RequestAttemptView, RequestRecordView } from '../types.js';
import { ErrorNote, Loading, Section, useLoad } from '../ui.js';
import { milliseconds, statusText } from './requests.js';
import { LedgerRows } from './usage.js';

/** The shared time axis of the attempts: from the request's arrival to its end or the last attempt's, whichever is later. */
function axisMs(record: RequestRecordView): number {
  let end = record.total_ms ?? 0;
  for (const attempt of record.attempts) end = Math.max(end, (attempt.started_ms ?? 0) + (attempt.total_ms ?? 0));
  return Math.max(end, 1);
}

const share = (value: number, axis: number) => `${Math.min(100, Math.max(0, (value / axis) * 100)).toFixed(2)}%`;

/** The attempts in order as bars on one time axis: where each started, its first byte, its end. */
function AttemptTimeline({ record }: { record: RequestRecordView }) {
  const axis = axisMs(record);
  return (
    <ol class="timeline" data-testid="attempts" aria-label={t('timeline')}>
      {record.attempts.map((attempt: RequestAttemptView, index) => {
        const started = attempt.started_ms ?? 0;
        const total = attempt.total_ms ?? 0;
        const failed = attempt.error_code !== null || (attempt.status !== null && attempt.status >= 400);
        return (
          <li class="timeline-row" data-node={attempt.node} data-index={String(index + 1)}>
            <span class="timeline-label">
              <strong>
                {index + 1}. {attempt.node}
              </strong>{' '}
              <span class={failed ? 'status-error' : undefined}>{statusText(attempt.status, attempt.error_code)}</span>
              {' · '}
              {t('firstByte')} {milliseconds(attempt.first_byte_ms)} · {t('total')} {milliseconds(attempt.total_ms)}
            </span>
            <span class="timeline-track" aria-hidden="true">
              <span
                class={failed ? 'timeline-bar failed' : 'timeline-bar'}
                style={{ left: share(started, axis), width: `max(2px, ${share(total, axis)})` }}
              />
              {attempt.first_byte_ms !== null && (
                <span class="timeline-first-byte" style={{ left: share(started + attempt.first_byte_ms, axis) }} />
              )}
            </span>
          </li>
        );
      })}
      <li class="timeline-axis" aria-hidden="true">
        <span>0 ms</span>
        <span>{milliseconds(axis)}</span>
      </li>
    </ol>
  );
}

/** A trace id: a link when console.trace_url is set, else the id with a copy button. */
function TraceId({ traceId }: { traceId: string }) {
  const [copied, setCopied] = useState(false);
  const link = traceLink(traceId);
  if (link !== undefined) {
    return (
      <a href={link} target="_blank" rel="noopener noreferrer" data-testid="trace-link">
        {traceId} ({t('openTrace')})
      </a>
    );
  }
  return (
    <span class="secret-row">
      <code data-testid="trace-id">{traceId}</code>
      <button type="button" onClick={() => void navigator.clipboard?.writeText(traceId).then(() => setCopied(true))}>
        {copied ? t('copied') : t('copy')}
      </button>
    </span>
  );
}

function Item({ term, children }: { term: string; children: ComponentChildren }) {
  return (
    <>
      <dt>{term}</dt>
      <dd>{children}</dd>
    </>
  );
}

function Body({ title, text }: { title: string; text: string | null | undefined }) {
  if (text === null || text === undefined) return null;
  return (
    <details class="body">
      <summary>{title}</summary>
      <pre>{text}</pre>
    </details>
  );
}

/** One request of the request record: who, what, the answer, its attempts as a timeline, its trace; then its usage rows. */
export function RequestPage({ requestId }: { requestId: string }) {
  const { data, error } = useLoad(
    () =>
      admin<RequestRecordView>('GET', `/requests/${encodeURIComponent(requestId)}`).catch((failure: unknown) => {
        if (failure instanceof ApiError && failure.status === 404) return null;
        throw failure;
      }),
    [requestId],
  );
  const record = data ?? undefined;
  const none = t('none');
  return (
    <>
      <Section title={`${t('request')} ${requestId}`}>
        <p>
          <a href="#/requests">← {t('requests')}</a>
        </p>
        <ErrorNote message={error} />
        {data === undefined && error === undefined ? (
          <Loading />
        ) : record === undefined ? (
          <p class="hint">{t('notFoundRecord')}</p>
        ) : (
          <>
            <dl class="details" data-testid="request-details">
              <Item term={t('requestId')}>{record.id}</Item>
              <Item term={t('time')}>
                {formatTime(record.time)} ({record.time})
              </Item>
              <Item term={t('door')}>{record.door}</Item>
              <Item term={t('path')}>{`${record.method ?? ''} ${record.path ?? ''}`.trim() || none}</Item>
              <Item term={t('status')}>
                <span data-testid="request-status">{statusText(record.status, record.error_code)}</span>
              </Item>
              <Item term={t('endUser')}>{record.end_user ?? none}</Item>
              <Item term={t('key')}>
                {record.key_prefix === null ? none : `${record.key_prefix}… (${record.key_id ?? ''})`}
              </Item>
              <Item term={t('account')}>{record.account ?? none}</Item>
              <Item term={t('modelAsked')}>{record.model ?? none}</Item>
              <Item term={t('modelServed')}>{record.model_served ?? none}</Item>
              <Item term={t('node')}>{record.node ?? none}</Item>
              <Item term={t('affinity')}>{record.affinity ?? none}</Item>
              <Item term={t('stream')}>{record.stream === null ? none : record.stream ? t('yes') : t('no')}</Item>
              <Item term={t('tokens')}>
                {record.usage === null
                  ? none
                  : `${formatInteger(record.usage.prompt_tokens)} ${t('promptTokens')} · ${formatInteger(record.usage.completion_tokens)} ${t('completionTokens')} · ${formatInteger(record.usage.cached_tokens ?? 0)} ${t('cachedTokens')} · ${formatInteger(record.usage.reasoning_tokens ?? 0)} ${t('reasoningTokens')}`}
              </Item>
              <Item term={t('cost')}>{record.cost_usd === null ? none : formatUsd(record.cost_usd)}</Item>
              <Item term={t('firstByte')}>{milliseconds(record.first_byte_ms)}</Item>
              <Item term={t('total')}>{milliseconds(record.total_ms)}</Item>
              <Item term={t('correlationId')}>{record.correlation_id ?? none}</Item>
              <Item term={t('traceId')}>{record.trace_id === null ? none : <TraceId traceId={record.trace_id} />}</Item>
            </dl>
            <h3>
              {t('attempts')} ({record.attempts.length})
            </h3>
            {record.attempts.length > 0 && <AttemptTimeline record={record} />}
            <Body title={t('requestBody')} text={record.request_body} />
            <Body title={t('replyBody')} text={record.reply_body} />
          </>
        )}
      </Section>
      <LedgerRows requestId={requestId} />
    </>
  );
}
