/**
 * `applyGcra` (gcra.ts) in Lua, so a batch of rules is checked and applied in one
 * atomic round trip. Same expressions in the same order, so both backends agree to
 * the unit. A bucket is one string `level|stamp` that expires once drained. Numbers
 * go back as `%.17g` strings because Redis truncates Lua numbers to integers.
 *
 * KEYS: one bucket per rule. ARGV[1]: now in ms, or '' to use the server's TIME (so
 * instances with skewed clocks agree). Then four per rule: limit, period_ms, cost, mode.
 * Reply: { allowed (1|0), then per rule: fits (1|0), remaining, reset_ms, retry_after_ms }.
 */
export const GCRA_LUA = `
local now = tonumber(ARGV[1])
if now == nil then
  if redis.replicate_commands then redis.replicate_commands() end
  local t = redis.call('TIME')
  now = tonumber(t[1]) * 1000 + tonumber(t[2]) / 1000
end
local eps = 1e-6
local n = #KEYS
local limits, periods, costs, modes, levels, stamps, fits = {}, {}, {}, {}, {}, {}, {}
local allowed = true
for i = 1, n do
  local base = 1 + (i - 1) * 4
  local limit = tonumber(ARGV[base + 1])
  local period = tonumber(ARGV[base + 2])
  local cost = tonumber(ARGV[base + 3])
  local mode = ARGV[base + 4]
  local level, stamp = 0, now
  local stored = redis.call('GET', KEYS[i])
  if stored then
    local storedLevel, storedStamp = string.match(stored, '^([^|]+)|(.+)$')
    storedLevel, storedStamp = tonumber(storedLevel), tonumber(storedStamp)
    if storedLevel and storedStamp then
      local elapsed = now - storedStamp
      if elapsed < 0 then elapsed = 0 end
      level = storedLevel - elapsed * limit / period
      if level < 0 then level = 0 end
      if storedStamp > now then stamp = storedStamp end
    end
  end
  local ok = (mode == 'force') or (level + cost <= limit + eps)
  limits[i], periods[i], costs[i], modes[i], levels[i], stamps[i], fits[i] = limit, period, cost, mode, level, stamp, ok
  if not ok then allowed = false end
end
local reply = { allowed and 1 or 0 }
for i = 1, n do
  local limit, period = limits[i], periods[i]
  local nxt = levels[i] + costs[i]
  local after = levels[i]
  if allowed and modes[i] ~= 'check' then
    after = nxt
    local emptyIn = after * period / limit
    redis.call('SET', KEYS[i], string.format('%.17g|%.17g', after, stamps[i]), 'PX', math.ceil(stamps[i] - now + emptyIn) + 1000)
  end
  local remaining = math.floor(limit - after + eps)
  if remaining < 0 then remaining = 0 end
  local retry = 0
  if not fits[i] then retry = (nxt - limit) * period / limit end
  reply[#reply + 1] = fits[i] and 1 or 0
  reply[#reply + 1] = string.format('%.17g', remaining)
  reply[#reply + 1] = string.format('%.17g', after * period / limit)
  reply[#reply + 1] = string.format('%.17g', retry)
end
return reply
`;
