-- wrk script of the real-text windows (window-phase.ts): each request is the next GET path of the query
-- file (one path with its query string per line), starting at a given line so that consecutive windows
-- continue the list instead of repeating its head; prints the run's figures as one JSON line.
-- Arguments: the paths file, the 0-based line to start at.
local paths = {}
local cursor = 1

function init(args)
  for line in io.lines(args[1]) do paths[#paths + 1] = line end
  -- wrk calls request() once before the run to check the script (script_verify_request on thread 0's
  -- state): start one line early so that the first request sent is line args[2].
  cursor = (((tonumber(args[2]) or 0) - 1) % #paths) + 1
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
    'WRK_RESULT {"requests":%d,"durationMicros":%d,"connectErrors":%d,"readErrors":%d,"writeErrors":%d,"statusErrors":%d,"timeouts":%d,' ..
    '"meanMicros":%.1f,"p50Micros":%d,"p90Micros":%d,"p99Micros":%d,"maxMicros":%d}\n',
    summary.requests, summary.duration, e.connect, e.read, e.write, e.status, e.timeout,
    latency.mean, latency:percentile(50), latency:percentile(90), latency:percentile(99), latency.max))
end
