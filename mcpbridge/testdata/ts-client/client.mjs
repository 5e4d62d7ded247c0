// Drives docforge-mcp over stdio with the official TypeScript SDK: lists the tools and calls
// every read tool, printing one JSON summary line for the Go test to check.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

const [bin, root] = process.argv.slice(2);
// The whole environment, as an MCP host configured with env would pass it: the test points
// XDG_RUNTIME_DIR at its own manager.
const transport = new StdioClientTransport({ command: bin, args: ["--project-root", root], env: process.env, stderr: "inherit" });
const client = new Client({ name: "docforge-ts-e2e", version: "1.0.0" });
await client.connect(transport);

const { tools } = await client.listTools();
const calls = [
  ["docforge_bootstrap", {}],
  ["docforge_sync", {}],
  ["docforge_project_info", {}],
  ["docforge_get_contract", {}],
  ["docforge_get_node", { node_id: "arch.store" }],
  ["docforge_get_logic", { node_id: "go:example.com/courier/store.Log.State" }],
  ["docforge_search", { query: "late events", limit: 3 }],
  ["docforge_filter_nodes", { family: "requirements" }],
  ["docforge_backlinks", { node_id: "arch.store" }],
  ["docforge_dependencies", { node_id: "arch.api" }],
  ["docforge_impact", { node_id: "arch.store", depth: 2 }],
  ["docforge_get_context", { node_id: "arch.store", limit: 5 }],
  ["docforge_validate_project", {}],
  ["docforge_render_status", {}],
  ["docforge_get_generation_diff", { limit: 5 }],
  ["docforge_get_node", { node_id: "no.such.node" }],
];
const results = [];
for (const [name, args] of calls) {
  const r = await client.callTool({ name, arguments: args });
  const env = JSON.parse(r.content[0].text);
  results.push({
    name,
    isError: r.isError === true,
    code: env.error ? env.error.code : null,
    revision: env.revision,
    staleness: env.staleness,
    notice: typeof env.content_notice === "string" && env.content_notice.length > 0,
    size: r.content[0].text.length,
  });
}
console.log(JSON.stringify({ tools: tools.map((t) => t.name), readOnly: tools.every((t) => t.annotations && t.annotations.readOnlyHint), results }));
await client.close();
