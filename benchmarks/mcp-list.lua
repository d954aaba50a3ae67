-- wrk script: one MCP tools/call list_resources per request, the same page as the
-- GET /discovery/resources?limit=100 it is measured beside (benchmarks/run).
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
wrk.headers["Accept"] = "application/json, text/event-stream"
wrk.headers["MCP-Protocol-Version"] = "2025-11-25"
wrk.body = '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"list_resources","arguments":{"limit":100}}}'
