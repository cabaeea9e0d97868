// An MCP server on the official TypeScript SDK that serves files as
// resources the way the attacked server did: the URI is read by Node's
// WHATWG URL parser and fileURLToPath, and the file is returned, whatever
// it is. Every URI it receives (read, subscribe) is appended to LOG as
// a JSON line before anything else, so the test can tell what reached
// it. (Arguments, not the environment: the client starts the proxy, and
// the proxy the server, with a minimal environment.)
//
//   node e2e_fileserver.mjs <node_modules/@modelcontextprotocol/sdk> LOG
import { appendFileSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

const [sdk, log] = process.argv.slice(2);
const { Server } = await import(sdk + "/dist/esm/server/index.js");
const { StdioServerTransport } = await import(sdk + "/dist/esm/server/stdio.js");
const types = await import(sdk + "/dist/esm/types.js");

const received = (method, uri) => appendFileSync(log, JSON.stringify({ method, uri }) + "\n");

const server = new Server({ name: "px-fileserver", version: "1.0.0" },
  { capabilities: { resources: { subscribe: true } } });
server.setRequestHandler(types.ListResourcesRequestSchema, () => ({ resources: [] }));
server.setRequestHandler(types.ReadResourceRequestSchema, (req) => {
  const uri = req.params.uri;
  received("resources/read", uri);
  const path = fileURLToPath(new URL(uri));
  return { contents: [{ uri, mimeType: "text/plain", text: readFileSync(path, "utf8") }] };
});
server.setRequestHandler(types.SubscribeRequestSchema, (req) => {
  received("resources/subscribe", req.params.uri);
  return {};
});
server.setRequestHandler(types.UnsubscribeRequestSchema, (req) => {
  received("resources/unsubscribe", req.params.uri);
  return {};
});
await server.connect(new StdioServerTransport());
