-- wrk script of bench/cold-start-probe.mjs: GETs the paths of a file (one a line) in turn from a
-- start line, and prints the window's figures as one JSON line.
-- Arguments: the paths file, the start line (1-based).
local paths = {}
local cursor = 1

function init(args)
  for line in io.lines(args[1]) do paths[#paths + 1] = line end
  cursor = ((tonumber(args[2] or "1") - 1) % #paths) + 1
end

function request()
  local path = paths[cursor]
  cursor = cursor + 1
  if cursor > #paths then cursor = 1 end
  return wrk.format("GET", path)
end

function done(summary, latency, requests)
  local e = summary.errors
  io.write(string.format(
    'WRK_RESULT {"requests":%d,"durationMicros":%d,"errors":%d,"p50Micros":%d,"p99Micros":%d,"maxMicros":%d}\n',
    summary.requests, summary.duration, e.connect + e.read + e.write + e.status + e.timeout,
    latency:percentile(50), latency:percentile(99), latency.max))
end
