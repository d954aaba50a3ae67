-- wrk script: POST /discovery/settled, cycling through the settle bodies of a file (one JSON
-- body a line). Arguments: BODIES_FILE SETTLE_KEY
local bodies, i = {}, 0
function init(args)
  for line in io.lines(args[1]) do bodies[#bodies + 1] = line end
  wrk.headers["Authorization"] = "Bearer " .. args[2]
  wrk.headers["Content-Type"] = "application/json"
end
function request()
  i = (i % #bodies) + 1
  return wrk.format("POST", "/discovery/settled", nil, bodies[i])
end
