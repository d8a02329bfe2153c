-- wrk script of the real-text windows (window-phase.ts): each request is the next GET path of the query
-- file (one path with its query string per line), starting at a given line so that consecutive windows
-- continue the list instead of repeating its head; prints the run's figures as one JSON line. With a third
-- argument (a path), each line is instead a JSON body POSTed to that path, with the headers given by -H
-- (the instant-search window).
-- Arguments: the paths (or bodies) file, the 0-based line to start at, [the path to POST to].
local lines = {}
local cursor = 1
local postTo = nil

function init(args)
  for line in io.lines(args[1]) do lines[#lines + 1] = line end
  -- wrk calls request() once before the run to check the script (script_verify_request on thread 0's
  -- state): start one line early so that the first request sent is line args[2].
  cursor = (((tonumber(args[2]) or 0) - 1) % #lines) + 1
  postTo = args[3]
end

function request()
  local line = lines[cursor]
  cursor = cursor + 1
  if cursor > #lines then cursor = 1 end
  if postTo then return wrk.format("POST", postTo, nil, line) end
  return wrk.format("GET", line)
end

function done(summary, latency, requests)
  local e = summary.errors
  io.write(string.format(
    'WRK_RESULT {"requests":%d,"durationMicros":%d,"connectErrors":%d,"readErrors":%d,"writeErrors":%d,"statusErrors":%d,"timeouts":%d,' ..
    '"meanMicros":%.1f,"p50Micros":%d,"p90Micros":%d,"p99Micros":%d,"maxMicros":%d}\n',
    summary.requests, summary.duration, e.connect, e.read, e.write, e.status, e.timeout,
    latency.mean, latency:percentile(50), latency:percentile(90), latency:percentile(99), latency.max))
end
