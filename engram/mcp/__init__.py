"""Engram as an MCP server (the official `mcp` SDK, v2): `engram mcp [--http]`.

Import `engram.mcp.server` for `build_server`, `run_stdio` and `run_http`; this package
file stays empty of imports so `import engram` never pulls in the SDK.
"""
