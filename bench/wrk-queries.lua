-- wrk script of the bench (wrk-load.ts): POSTs the query list's bodies in turn, each wrk thread
-- starting at its own share of the list, and prints the run's figures as one JSON line.
-- Arguments: the bodies file (one JSON body per line), the search path, wrk's thread count.
local counter = 0

function setup(thread)
  thread:set("id", counter)
  counter = counter + 1
end

local bodies = {}
local cursor = 1
local path = "/"
local headers = { ["content-type"] = "application/json" }

function init(args)
  for line in io.lines(args[1]) do bodies[#bodies + 1] = line end
  path = args[2]
  -- Threads start apart so they do not send the same sequence in lockstep.
  cursor = (math.floor(#bodies * id / tonumber(args[3])) % #bodies) + 1
end

function request()
  local body = bodies[cursor]
  cursor = cursor + 1
  if cursor > #bodies then cursor = 1 end
  return wrk.format("POST", path, headers, body)
end

function done(summary, latency, requests)
  local e = summary.errors
  io.write(string.format(
    'WRK_RESULT {"requests":%d,"durationMicros":%d,"connectErrors":%d,"readErrors":%d,"writeErrors":%d,"statusErrors":%d,"timeouts":%d,' ..
    '"meanMicros":%.1f,"p50Micros":%d,"p90Micros":%d,"p99Micros":%d,"maxMicros":%d}\n',
    summary.requests, summary.duration, e.connect, e.read, e.write, e.status, e.timeout,
    latency.mean, latency:percentile(50), latency:percentile(90), latency:percentile(99), latency.max))
end
