// One short session of docforge-mcp driven by the official TypeScript SDK: lists the tools and
// calls docforge_bootstrap and docforge_search, printing one JSON summary line for the Go
// test. With "default-env" the transport passes the SDK's default environment, as a host
// configured without env does; otherwise this process's whole environment.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

const [bin, root, envMode] = process.argv.slice(2);
const options = { command: bin, args: ["--project-root", root], stderr: "pipe" };
if (envMode !== "default-env") {
  options.env = process.env;
}
const transport = new StdioClientTransport(options);
let stderr = "";
transport.stderr?.on("data", (chunk) => { stderr += chunk; });
const client = new Client({ name: "docforge-ts-session", version: "1.0.0" });
await client.connect(transport);
const { tools } = await client.listTools();
const calls = [];
for (const [name, args] of [["docforge_bootstrap", {}], ["docforge_search", { query: "store", limit: 3 }]]) {
  const r = await client.callTool({ name, arguments: args });
  const env = JSON.parse(r.content[0].text);
  calls.push({ name, isError: r.isError === true, code: env.error?.code ?? null, remediation: env.error?.remediation ?? null });
}
await client.close();
console.log(JSON.stringify({ tools: tools.map((t) => t.name), calls, stderr }));
