-- wrk script for POST /v1/evaluate (parallax serve).
--
--   PARALLAX_TOKEN=$(cat WS/.parallax/api.token) PARALLAX_WS=WS \
--     wrk -t2 -c64 -d15s --latency -s evaluate.lua http://127.0.0.1:7420/v1/evaluate
--
-- Every request is a distinct action (a counter in the path or command),
-- cycling through a routine mix: workspace reads (ALLOW), a safe test
-- command (ALLOW), a credential read (BLOCK by the guard) and a sudo
-- command (ESCALATE). Every decision is audited (fsync, group commit).
-- Any status other than 200 is counted and reported at the end.
-- PARALLAX_MIX=guard sends only the credential reads, which the guard
-- blocks before any session state is read or written: the HTTP and gate
-- ceiling without the store.

local token = os.getenv("PARALLAX_TOKEN")
local ws = os.getenv("PARALLAX_WS")
if token == nil or ws == nil then
  error("set PARALLAX_TOKEN (the content of .parallax/api.token) and PARALLAX_WS (the workspace root)")
end

-- PARALLAX_SESSION_LEN (default 100) is the number of actions per
-- session; each wrk thread then starts a new one. A session's taint
-- records grow with the distinct files it reads.
local guardOnly = os.getenv("PARALLAX_MIX") == "guard"
local sessionLen = tonumber(os.getenv("PARALLAX_SESSION_LEN") or "100")
local threads = {}

function setup(thread)
  thread:set("tid", #threads)
  table.insert(threads, thread)
end

function init(args)
  n = 0
  bad = 0
  wrk.headers["Authorization"] = "Bearer " .. token
  wrk.headers["Content-Type"] = "application/json"
end

function request()
  n = n + 1
  local tag = tid .. "-" .. n
  local kind = n % 4
  if guardOnly then
    kind = 2
  end
  local session = "wrk-" .. tid .. "-" .. math.floor(n / sessionLen)
  local body
  if kind == 0 then
    body = '{"id":"' .. tag .. '","session":"' .. session .. '","type":"read_file","payload":{"path":"' .. ws .. '/src/f' .. tag .. '.go"}}'
  elseif kind == 1 then
    body = '{"id":"' .. tag .. '","session":"' .. session .. '","type":"execute_command","payload":{"command":"go test ./pkg' .. n .. '/..."}}'
  elseif kind == 2 then
    body = '{"id":"' .. tag .. '","session":"' .. session .. '","type":"read_file","payload":{"path":"~/.ssh/id_' .. n .. '"}}'
  else
    body = '{"id":"' .. tag .. '","session":"' .. session .. '","type":"execute_command","payload":{"command":"sudo systemctl restart svc' .. n .. '"}}'
  end
  return wrk.format("POST", nil, nil, body)
end

function response(status, headers, body)
  if status ~= 200 then
    bad = bad + 1
  end
end

function done(summary, latency, requests)
  local total = 0
  for _, t in ipairs(threads) do
    total = total + t:get("bad")
  end
  io.write(string.format("non-200 responses: %d\n", total))
  io.write(string.format("p50 %.2f ms, p90 %.2f ms, p99 %.2f ms\n",
    latency:percentile(50) / 1000, latency:percentile(90) / 1000, latency:percentile(99) / 1000))
end
