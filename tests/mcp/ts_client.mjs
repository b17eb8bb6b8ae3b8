// The TypeScript MCP SDK's client against eve: `node ts_client.mjs http URL` or
// `node ts_client.mjs stdio COMMAND ARGS...`. Prints one JSON document of what it saw.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

const [mode, target, ...rest] = process.argv.slice(2);
const transport = mode === "http"
  ? new StreamableHTTPClientTransport(new URL(target))
  : new StdioClientTransport({ command: target, args: rest, env: { ...process.env }, stderr: "ignore" });
const client = new Client({ name: "eve-build-tests", version: "0" });
await client.connect(transport);
const tools = (await client.listTools()).tools;
const seen = {
  tools: Object.fromEntries(tools.map((t) => [t.name, { meta: t._meta ?? null, annotations: t.annotations ?? null }])),
  greet: await client.callTool({ name: "greet", arguments: { name: "ada" } }),
  search: await client.callTool({ name: "crm__search", arguments: { query: "ada" } }),
  create: await client.callTool({ name: "crm__create_contact", arguments: { name: "Ada", email: "ada@example.com" } }),
  prompts: await client.listPrompts(),
  templates: await client.listResourceTemplates(),
};
console.log(JSON.stringify(seen));
await client.close();
