-- wrk script for bench/serve.sh: every request asks for another resource of
-- the mock Source, cycling through /res/0000000.txt .. /res/N-1 (N is the
-- first argument after --, default 100000; the extension follows the mock's
-- naming: i % 3 = 0 txt, 1 html, 2 json). Each thread starts at its own
-- offset and strides by a prime, so that threads do not ask for the same
-- resources in step. Errors are what wrk reports: socket errors and
-- "Non-2xx or 3xx responses" (a 404 for a resource the mock does not have).
--   wrk -t2 -c32 -d10s -s bench/wrk-resources.lua http://127.0.0.1:PORT -- 100000

local exts = { [0] = "txt", [1] = "html", [2] = "json" }
local threads = {}

function setup(thread)
  thread:set("tid", #threads)
  table.insert(threads, thread)
end

function init(args)
  n = tonumber(args[1]) or 100000
  i = (tid or 0) * 7919 % n
  step = 104729 % n
  if step == 0 then step = 1 end
end

function request()
  local path = string.format("/res/%07d.%s", i, exts[i % 3])
  i = (i + step) % n
  return wrk.format("GET", path)
end
