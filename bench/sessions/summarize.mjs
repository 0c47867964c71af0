// What the session benchmark reports, from the clients' records and the gateways' log lines.
import { readFileSync } from 'node:fs';

/** The p-th percentile (0..100) of numbers, nearest rank; undefined when there are none. */
export function percentile(values, p) {
  if (values.length === 0) return undefined;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
}

/** The gateways' request lines (one JSON object a line), by correlation id. */
export function readRequestLines(logFiles) {
  const byCorrelation = new Map();
  for (const file of logFiles) {
    for (const line of readFileSync(file, 'utf8').split('\n')) {
      if (!line.includes('"correlation_id"')) continue;
      try {
        const entry = JSON.parse(line);
        if (entry.path?.endsWith('/chat/completions')) byCorrelation.set(entry.correlation_id, entry);
      } catch {
        // not a JSON line
      }
    }
  }
  return byCorrelation;
}

/** Busiest over mean of a per-node count (nodes with none count as 0). */
function busiestOverMean(counts, nodeIds) {
  const values = nodeIds.map((id) => counts.get(id) ?? 0);
  const mean = values.reduce((sum, value) => sum + value, 0) / values.length;
  return mean === 0 ? undefined : Math.max(...values) / mean;
}

/**
 * One run's figures: hit ratio, first-token p50/p95 (measured by the client, and as the
 * nodes scheduled it: `firstByteMs` + `prefillMsPerToken` × uncached tokens, which leaves
 * out this machine's queueing), load spread, failures, affinity outcomes.
 */
export function summarizeRun(records, lines, nodeIds, { firstByteMs, prefillMsPerToken }) {
  const ok = records.filter((record) => record.status === 200);
  const scheduled = ok.map((record) => firstByteMs + prefillMsPerToken * (record.promptTokens - record.cachedTokens));
  const prompt = ok.reduce((sum, record) => sum + record.promptTokens, 0);
  const cached = ok.reduce((sum, record) => sum + record.cachedTokens, 0);
  const ttfts = ok.map((record) => record.ttftMs).filter((value) => value !== undefined);
  const requestsPerNode = new Map();
  const tokensPerNode = new Map();
  const affinity = {};
  let failovers = 0;
  for (const record of ok) {
    const line = lines.get(record.correlationId);
    if (line === undefined) continue;
    record.node = line.node;
    requestsPerNode.set(line.node, (requestsPerNode.get(line.node) ?? 0) + 1);
    tokensPerNode.set(line.node, (tokensPerNode.get(line.node) ?? 0) + record.promptTokens);
    if (line.affinity !== undefined) affinity[line.affinity] = (affinity[line.affinity] ?? 0) + 1;
    if ((line.attempts?.length ?? 0) > 1) failovers++;
  }
  return {
    requests: records.length,
    failed: records.length - ok.length,
    failures: records
      .filter((record) => record.status !== 200)
      .slice(0, 5)
      .map((record) => record.error),
    hitRatio: prompt === 0 ? 0 : cached / prompt,
    promptTokens: prompt,
    ttftP50: percentile(ttfts, 50),
    ttftP95: percentile(ttfts, 95),
    scheduledP50: percentile(scheduled, 50),
    scheduledP95: percentile(scheduled, 95),
    busiestRequests: busiestOverMean(requestsPerNode, nodeIds),
    busiestTokens: busiestOverMean(tokensPerNode, nodeIds),
    requestsPerNode: Object.fromEntries(nodeIds.map((id) => [id, requestsPerNode.get(id) ?? 0])),
    affinity,
    failovers,
  };
}

/**
 * What placement did to the cache, from records whose `node` summarizeRun filled in: the
 * ideal hit ratio (every turn finding its session's previous prompt cached, the first turn
 * the shared system prompt of `sharedTokens`; whole 16-token blocks), a ceiling set by the
 * workload alone (the tokens a turn adds are never cached), and the hit ratio of the turns
 * served where their session's previous turn was (`sameNode`) against those that moved.
 */
export function placementEffect(records, sharedTokens, blockTokens = 16) {
  const bySession = new Map();
  for (const record of records) {
    if (record.status !== 200) continue;
    if (!bySession.has(record.session)) bySession.set(record.session, []);
    bySession.get(record.session).push(record);
  }
  const whole = (tokens) => Math.max(0, Math.floor(tokens / blockTokens) * blockTokens);
  let prompt = 0;
  let ideal = 0;
  const groups = { sameNode: { requests: 0, prompt: 0, cached: 0 }, moved: { requests: 0, prompt: 0, cached: 0 } };
  for (const list of bySession.values()) {
    list.sort((a, b) => a.turn - b.turn);
    list.forEach((record, index) => {
      const previous = list[index - 1];
      prompt += record.promptTokens;
      // A turn's prompt opens with the previous turn's, less the two tokens that opened its reply.
      ideal += previous === undefined ? whole(sharedTokens) : whole(previous.promptTokens - 2);
      if (previous === undefined || record.node === undefined) return;
      const group = previous.node === record.node ? groups.sameNode : groups.moved;
      group.requests++;
      group.prompt += record.promptTokens;
      group.cached += record.cachedTokens;
    });
  }
  const ratio = (group) => ({
    requests: group.requests,
    hitRatio: group.prompt === 0 ? 0 : group.cached / group.prompt,
  });
  return {
    idealHitRatio: prompt === 0 ? 0 : ideal / prompt,
    sameNode: ratio(groups.sameNode),
    moved: ratio(groups.moved),
  };
}

/**
 * The most conversation the live sessions held at once: at each request's start, the sum
 * over sessions between their first request's start and their last one's end of their
 * latest prompt, in tokens; with the number of those sessions. What every node would have
 * to cache without affinity; with it, each node about its share of it.
 */
export function peakWorkingSet(records) {
  const events = [];
  const lastEnd = new Map();
  for (const record of records) {
    events.push(record);
    const end = record.startedAt + (record.totalMs ?? 0);
    lastEnd.set(record.session, Math.max(lastEnd.get(record.session) ?? 0, end));
  }
  events.sort((a, b) => a.startedAt - b.startedAt);
  const live = new Map();
  let peak = { tokens: 0, sessions: 0 };
  for (const record of events) {
    for (const [session] of live) if ((lastEnd.get(session) ?? 0) < record.startedAt) live.delete(session);
    live.set(record.session, record.promptTokens);
    let tokens = 0;
    for (const value of live.values()) tokens += value;
    if (tokens > peak.tokens) peak = { tokens, sessions: live.size };
  }
  return peak;
}

/**
 * The node-failure run: the sessions whose node died (their last request before the kill
 * was served by it) and, per turn after the kill, their hit ratio and first-token p50.
 */
export function summarizeKill(records, killedNode, killedAt, { firstByteMs, prefillMsPerToken }) {
  const bySession = new Map();
  for (const record of records) {
    if (!bySession.has(record.session)) bySession.set(record.session, []);
    bySession.get(record.session).push(record);
  }
  const moved = [];
  for (const [session, list] of bySession) {
    list.sort((a, b) => a.turn - b.turn);
    const before = list.filter((record) => record.startedAt < killedAt);
    if (before.at(-1)?.node === killedNode && list.length > before.length) moved.push(session);
  }
  const perTurn = [];
  for (let offset = 1; offset <= 4; offset++) {
    const turnRecords = moved
      .map((session) => {
        const list = bySession.get(session);
        const firstAfter = list.findIndex((record) => record.startedAt >= killedAt);
        return firstAfter < 0 ? undefined : list[firstAfter + offset - 1];
      })
      .filter((record) => record !== undefined && record.status === 200);
    if (turnRecords.length === 0) break;
    const prompt = turnRecords.reduce((sum, record) => sum + record.promptTokens, 0);
    const cached = turnRecords.reduce((sum, record) => sum + record.cachedTokens, 0);
    perTurn.push({
      turnAfterKill: offset,
      sessions: turnRecords.length,
      hitRatio: prompt === 0 ? 0 : cached / prompt,
      ttftP50: percentile(
        turnRecords.map((record) => record.ttftMs),
        50,
      ),
      scheduledP50: percentile(
        turnRecords.map((record) => firstByteMs + prefillMsPerToken * (record.promptTokens - record.cachedTokens)),
        50,
      ),
    });
  }
  return { movedSessions: moved.length, perTurn };
}
