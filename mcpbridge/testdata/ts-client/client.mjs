// Drives docforge-mcp over stdio with the official TypeScript SDK: lists the tools, calls
// every read tool, reads the suspect marks and opens the graph browser; then, through a second
// session bound to a writer, drives the proposal tools. It prints one JSON summary line for
// the Go test to check.
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
  ["docforge_get_task_context", { kind: "change", task: "reorder late events in the store" }],
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
// Task context paged four items at a time: every page repeats the capsule hash, and the pages
// together hold the unpaged stream.
const task = async (args) => JSON.parse((await client.callTool({ name: "docforge_get_task_context", arguments: args })).content[0].text).result;
const taskArgs = { kind: "change", task: "reorder late events in the store" };
const whole = await task(taskArgs);
const paged = [];
let capsuleHashes = new Set();
for (let cursor = undefined, n = 0; n < 100; n++) {
  const page = await task({ ...taskArgs, limit: 4, ...(cursor ? { cursor } : {}) });
  capsuleHashes.add(page.capsule_hash);
  paged.push(...page.items);
  if (!page.pagination.has_more) break;
  cursor = page.pagination.next_cursor;
}
const taskPaging = {
  items: whole.items.length,
  samePages: JSON.stringify(paged) === JSON.stringify(whole.items),
  oneCapsule: capsuleHashes.size === 1 && capsuleHashes.has(whole.capsule_hash),
};
// The Go test stamped every relation, then edited arch.store's body: the relations to it are
// suspect, and say why.
const suspects = async (name, args) => JSON.parse((await client.callTool({ name, arguments: args })).content[0].text)
  .result.links.filter((l) => l.review === "suspect").map((l) => `${l.relation} ${l.node_id}: ${(l.review_changes ?? []).join(", ")}`);
const suspect = {
  backlinks: await suspects("docforge_backlinks", { node_id: "arch.store" }),
  dependencies: await suspects("docforge_dependencies", { node_id: "arch.api" }),
};
// The graph browser: a viewer in the worker, which must outlive this session's bridge.
const shown = JSON.parse((await client.callTool({ name: "docforge_visualize", arguments: { node_id: "arch.store" } })).content[0].text).result;
const shownStatus = JSON.parse((await client.callTool({ name: "docforge_visualization_status", arguments: {} })).content[0].text).result;
const viewer = { url: shown?.url ?? null, template: shown?.template ?? null, state: shownStatus?.state ?? null, snapshotState: shownStatus?.snapshot_state ?? null };
// Without a writer a mutation is refused; with one, the whole review cycle runs.
const disabled = await client.callTool({ name: "docforge_register_changes", arguments: { title: "t", operations: [{ op: "update", node_id: "arch.store", fields: { title: "x" } }] } });
const disabledCode = JSON.parse(disabled.content[0].text).error?.code ?? null;
await client.close();

const writerTransport = new StdioClientTransport({ command: bin, args: ["--project-root", root, "--proposal-writer", "agent"], env: process.env, stderr: "inherit" });
const writer = new Client({ name: "docforge-ts-e2e-writer", version: "1.0.0" });
await writer.connect(writerTransport);
const proposals = [];
const step = async (name, args) => {
  const r = await writer.callTool({ name, arguments: args });
  const env = JSON.parse(r.content[0].text);
  proposals.push({ name, isError: r.isError === true, code: env.error ? env.error.code : null, status: env.result?.status ?? null });
  return env.result;
};
const reg = await step("docforge_register_changes", {
  title: "Rename the store", changeset_id: "cs-ts",
  operations: [{ op: "update", node_id: "arch.store", fields: { title: "Event store" } }],
});
await step("docforge_propose_relationship_update", { changeset_id: "cs-ts", node_id: "arch.store", add: [{ relation: "depends_on", target_id: "arch.api" }] });
await step("docforge_get_changeset", { changeset_id: "cs-ts" });
await step("docforge_validate_changeset", { changeset_id: "cs-ts" });
await step("docforge_get_changeset_diff", { changeset_id: "cs-ts" });
await step("docforge_preview_changeset", { changeset_id: "cs-ts", view_id: "architecture" });
await step("docforge_list_changesets", {});
await step("docforge_propose_relationship_update", { changeset_id: "cs-ts", node_id: "arch.store", add: [] });
await step("docforge_abandon_changeset", { changeset_id: "cs-ts", reason: "end of test" });
// An agent re-confirms a suspect relation: the changeset's diff writes the new stamp.
const confirmed = await writer.callTool({ name: "docforge_register_changes", arguments: {
  title: "The API still holds for the edited store", changeset_id: "cs-confirm",
  operations: [{ op: "relationship_update", node_id: "arch.api", confirm: [{ target_id: "arch.store" }] }],
} });
const confirmDiff = (await writer.callTool({ name: "docforge_get_changeset_diff", arguments: { changeset_id: "cs-confirm" } })).content[0].text;
const confirm = {
  status: JSON.parse(confirmed.content[0].text).result?.status ?? null,
  stamped: confirmDiff.includes('+\\"arch.store\\" = \\"sha256:'),
};
await writer.close();

console.log(JSON.stringify({
  tools: tools.map((t) => t.name),
  readOnly: tools.filter((t) => t.annotations && t.annotations.readOnlyHint).map((t) => t.name),
  results, taskPaging, suspect, confirm, viewer, disabledCode, registered: reg?.changeset_hash ?? null, proposals,
}));
