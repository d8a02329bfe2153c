-- wrk script of the instant-search window (window-phase.ts): each request POSTs the next JSON body of the
-- bodies file (one body per line) to one path, starting at a given line, with the headers given by -H
-- (wrk.headers); prints the run's figures as one JSON line, as wrk-get-paths.lua does.
-- Arguments: the bodies file, the 0-based line to start at, the path.
local bodies = {}
local cursor = 1
local target = "/"

function init(args)
  for line in io.lines(args[1]) do bodies[#bodies + 1] = line end
  -- As wrk-get-paths.lua: request() runs once before the run to check the script.
  cursor = (((tonumber(args[2]) or 0) - 1) % #bodies) + 1
  target = args[3] or target
end

function request()
  local body = bodies[cursor]
  cursor = cursor + 1
  if cursor > #bodies then cursor = 1 end
  return wrk.format("POST", target, nil, body)
end

function done(summary, latency, requests)
  local e = summary.errors
  io.write(string.format(
    'WRK_RESULT {"requests":%d,"durationMicros":%d,"connectErrors":%d,"readErrors":%d,"writeErrors":%d,"statusErrors":%d,"timeouts":%d,' ..
    '"meanMicros":%.1f,"p50Micros":%d,"p90Micros":%d,"p99Micros":%d,"maxMicros":%d}\n',
    summary.requests, summary.duration, e.connect, e.read, e.write, e.status, e.timeout,
    latency.mean, latency:percentile(50), latency:percentile(90), latency:percentile(99), latency.max))
end
