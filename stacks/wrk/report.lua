-- Prints one JSON line after wrk's own summary, marked so the harness can find it.
-- Latencies are in microseconds; errors.status counts responses with status > 399.
-- A second marked line holds the latency spectrum (lib/roles/wrk.ts reads both).

-- HdrHistogram's percentile iteration (5 ticks per half distance to 100%): the
-- percentile levels to report, in %, up to the last below 100.
local TICKS = 5
local function next_level(p)
  local half = 2 ^ (math.floor(math.log(100 / (100 - p)) / math.log(2)) + 1)
  return p + 100 / (TICKS * half)
end

-- latency(i) is wrk's i-th distinct value and its count; each call scans from the
-- minimum, so a very wide distribution (timeouts) reads only the levels instead.
local EXACT_COST = 2e10

local function spectrum(latency)
  local n = #latency
  local points = {}
  if n == 0 then return '{"exact":true,"total_count":0,"max_us":0,"points":[]}' end
  if n * (latency.max - latency.min + 1) > EXACT_COST then
    local p = 0
    while p < 99.9999 do
      points[#points + 1] = string.format('{"percentile":%.12g,"value_us":%d,"count":null}', p, latency:percentile(p))
      p = next_level(p)
    end
    points[#points + 1] = string.format('{"percentile":100,"value_us":%d,"count":null}', latency.max)
    return string.format('{"exact":false,"total_count":null,"max_us":%d,"points":[%s]}', latency.max, table.concat(points, ','))
  end
  local values, counts, total = {}, {}, 0
  for i = 1, n do
    local v, c = latency(i)
    values[i], counts[i] = v, c
    total = total + c
  end
  -- Walk the values; report each level at the first value whose cumulative share reaches
  -- it. Like HdrHistogram, the last value reports one level, then the 100% row ends it
  -- (the levels approach 100 without reaching it).
  local level, cum = 0, 0
  for i = 1, n do
    cum = cum + counts[i]
    while 100 * cum / total >= level do
      points[#points + 1] = string.format('{"percentile":%.12g,"value_us":%d,"count":%d}', level, values[i], cum)
      level = next_level(level)
      if cum == total then break end
    end
  end
  points[#points + 1] = string.format('{"percentile":100,"value_us":%d,"count":%d}', values[n], total)
  return string.format('{"exact":true,"total_count":%d,"max_us":%d,"points":[%s]}', total, values[n], table.concat(points, ','))
end

done = function(summary, latency, requests)
  local e = summary.errors
  io.write(string.format(
    'PROXYBENCH_JSON {"requests":%d,"duration_us":%d,"bytes":%d,' ..
    '"errors":{"connect":%d,"read":%d,"write":%d,"status":%d,"timeout":%d},' ..
    '"latency_us":{"p50":%d,"p90":%d,"p99":%d,"p999":%d,"max":%d,"mean":%.2f}}\n',
    summary.requests, summary.duration, summary.bytes,
    e.connect, e.read, e.write, e.status, e.timeout,
    latency:percentile(50), latency:percentile(90), latency:percentile(99),
    latency:percentile(99.9), latency.max, latency.mean))
  -- The summary line above is already out whatever happens here.
  local ok, text = pcall(spectrum, latency)
  io.write('PROXYBENCH_SPECTRUM ', ok and text or string.format('{"error":%q}', tostring(text)), '\n')
end
