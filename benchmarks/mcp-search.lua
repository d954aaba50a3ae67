-- wrk script: one MCP tools/call search_resources per request, the same query and page size as
-- the GET /discovery/search it is measured beside (benchmarks/run).
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
wrk.headers["Accept"] = "application/json, text/event-stream"
wrk.headers["MCP-Protocol-Version"] = "2025-11-25"
wrk.body = '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"search_resources","arguments":{"query":"weather forecast for a city","limit":10}}}'
