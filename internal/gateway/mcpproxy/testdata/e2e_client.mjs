// The official TypeScript MCP SDK client, driving `parallax mcp proxy`
// for TestTypeScriptClient (proxy_e2e_test.go).
//
//   PX_SDK=<node_modules/@modelcontextprotocol/sdk> node e2e_client.mjs MODE COMMAND [ARG...]
//
// MODE "everything": the real mcp-server-everything behind the proxy;
// "everything-nosampling": the same with a client that offers no
// sampling; "secrets:PART": the proxy's test server, which plants
// credentials in resources and prompts (PART resources), a tool result's
// other channels (channel=meta|item_meta|structured|image), log messages
// (log) and sampling requests (sampling); "fileuris": e2e_fileserver.mjs,
// which reads any file URI with a WHATWG parser, asked for every odd
// spelling of each path in PX_TARGETS (a JSON list), none of which may
// be read, and for PX_CONTROL, which may. Prints "ok <step>" per step;
// exits 1 on the first failure.
import assert from "node:assert/strict";
import { resolve } from "node:path";
import { fileURLToPath } from "node:url";

const sdk = process.env.PX_SDK;
const { Client } = await import(sdk + "/dist/esm/client/index.js");
const { StdioClientTransport } = await import(sdk + "/dist/esm/client/stdio.js");
const types = await import(sdk + "/dist/esm/types.js");

const [mode, cmd, ...args] = process.argv.slice(2);
const sampling = mode !== "everything-nosampling";
const client = new Client({ name: "px-e2e", version: "1" },
  { capabilities: sampling ? { sampling: {}, roots: { listChanged: true } } : { roots: { listChanged: true } } });

const logs = [];
const samples = [];
client.setNotificationHandler(types.LoggingMessageNotificationSchema, (n) => { logs.push(n.params); });
client.setRequestHandler(types.ListRootsRequestSchema, () => { throw new Error("roots must not be asked through the proxy"); });
if (sampling) {
  client.setRequestHandler(types.CreateMessageRequestSchema, (req) => {
    samples.push(req.params);
    return { model: "px-canned", role: "assistant", content: { type: "text", text: "canned answer 42" } };
  });
}

const ok = (step) => console.log("ok " + step);
const text = (res) => JSON.stringify(res);
const waitFor = async (cond, what, ms = 5000) => {
  for (let t = 0; t < ms; t += 20) {
    if (cond()) return;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error("timed out waiting for " + what);
};

await client.connect(new StdioClientTransport({ command: cmd, args, stderr: "inherit" }));
ok("connect");
const caps = client.getServerCapabilities();
assert.ok(caps.tools && caps.resources && (mode === "fileuris" || caps.prompts), "capabilities: " + JSON.stringify(caps));

if (mode.startsWith("everything")) {
  assert.ok(caps.logging && caps.completions, "capabilities: " + JSON.stringify(caps));
  assert.equal(caps.tasks, undefined, "experimental task capability must not be forwarded");
  ok("capabilities");

  const { resources } = await client.listResources();
  assert.ok(resources.length > 0, "no resources");
  const r = await client.readResource({ uri: resources[0].uri });
  assert.ok(r.contents.length > 0 && (r.contents[0].text || r.contents[0].blob), "empty read: " + text(r));
  ok("resource " + resources[0].uri);

  const updates = [];
  client.setNotificationHandler(types.ResourceUpdatedNotificationSchema, (n) => { updates.push(n.params.uri); });
  assert.ok(caps.resources.subscribe, "subscribe not offered: " + JSON.stringify(caps));
  await client.subscribeResource({ uri: resources[0].uri });
  await client.callTool({ name: "toggle-subscriber-updates", arguments: {} });
  await waitFor(() => updates.includes(resources[0].uri), "a resource update");
  await client.unsubscribeResource({ uri: resources[0].uri });
  ok("subscription");

  const { resourceTemplates } = await client.listResourceTemplates();
  assert.ok(resourceTemplates.length > 0, "no templates");
  ok("templates");

  const p = await client.getPrompt({ name: "simple-prompt" });
  assert.ok(p.messages.length > 0, "empty prompt: " + text(p));
  const p2 = await client.getPrompt({ name: "args-prompt", arguments: { city: "Lyon" } });
  assert.match(text(p2), /Lyon/);
  ok("prompts");

  const c = await client.complete({ ref: { type: "ref/prompt", name: "completable-prompt" },
    argument: { name: "department", value: "E" } });
  assert.ok(c.completion.values.length > 0, "no completion: " + text(c));
  ok("completion");

  const echo = await client.callTool({ name: "echo", arguments: { message: "hello through parallax" } });
  assert.match(text(echo), /hello through parallax/);
  ok("tool echo");

  const progress = [];
  const long = await client.callTool({ name: "trigger-long-running-operation", arguments: { duration: 0.4, steps: 2 } },
    undefined, { onprogress: (pr) => progress.push(pr) });
  assert.ok(!long.isError, text(long));
  assert.ok(progress.length >= 1, "no progress notification");
  ok("progress " + progress.length);

  await client.setLoggingLevel("debug");
  await client.callTool({ name: "toggle-simulated-logging", arguments: {} });
  await waitFor(() => logs.length > 0, "a log message");
  ok("logging");

  const tools = (await client.listTools()).tools.map((t) => t.name);
  assert.ok(!tools.includes("get-roots-list"), "roots offered to the server: " + tools);
  if (sampling) {
    assert.ok(tools.includes("trigger-sampling-request"), "sampling not offered to the server: " + tools);
    const s = await client.callTool({ name: "trigger-sampling-request", arguments: { prompt: "say hi", maxTokens: 5 } });
    assert.match(text(s), /canned answer 42/);
    assert.equal(samples.length, 1);
    ok("sampling");
  } else {
    assert.ok(!tools.includes("trigger-sampling-request"), "sampling offered though the client offers none: " + tools);
    ok("no sampling");
  }
} else if (mode.startsWith("secrets:")) {
  // One part per proxy session: what one part reads taints the session,
  // and the gate then blocks the next call that could carry it away.
  const part = mode.slice("secrets:".length);
  const secret = "q8Vt2LmN0xR5bY7wKp3ZcF9sHd1JgA6eUo4iTnQm";
  const pem = "BEGIN OPENSSH PRIVATE KEY";
  const tainted = async () => {
    const after = await client.callTool({ name: "leak", arguments: { channel: "none" } });
    assert.ok(after.isError && /credentials_stay_home|taint/.test(text(after)), "session not tainted: " + text(after));
  };
  if (part === "resources") {
    const aws = await client.readResource({ uri: "test://secret/aws" });
    assert.ok(!text(aws).includes(secret), "resource leaked: " + text(aws));
    assert.match(text(aws), /REDACTED/);
    ok("resource redacted");
    for (const uri of ["test://secret/key", "test://secret/blob"]) {
      await assert.rejects(client.readResource({ uri }), /mcp_result_withheld/);
    }
    ok("resource withheld");
    const inj = await client.readResource({ uri: "test://doc/inject" });
    assert.match(inj.contents[0].text, /Parallax warning/);
    ok("resource flagged");
    const p = await client.getPrompt({ name: "secret-prompt" });
    assert.ok(!text(p).includes(secret), "prompt leaked: " + text(p));
    ok("prompt redacted");
    await tainted();
    ok("tainted by the resource read");
  } else if (part.startsWith("channel=")) {
    const channel = part.slice("channel=".length);
    const res = await client.callTool({ name: "leak", arguments: { channel } });
    const all = text(res);
    assert.ok(!all.includes(secret) && !all.includes(pem), channel + " leaked: " + all);
    if (channel === "image") {
      assert.ok(res.isError && all.includes("mcp_result_withheld"), "image with a key not withheld: " + all);
    } else {
      assert.ok(!res.isError && all.includes("REDACTED"), channel + " not redacted: " + all);
    }
    await tainted();
    ok("channel " + channel);
  } else if (part === "log") {
    await client.setLoggingLevel("debug");
    await client.callTool({ name: "log_secret", arguments: {} });
    await waitFor(() => logs.length > 0, "a log message");
    assert.ok(!JSON.stringify(logs).includes(secret), "log leaked: " + JSON.stringify(logs));
    assert.match(JSON.stringify(logs), /REDACTED/);
    ok("log redacted");
  } else if (part === "sampling") {
    const s1 = await client.callTool({ name: "sample", arguments: { kind: "aws" } });
    assert.match(text(s1), /canned answer 42/);
    assert.equal(samples.length, 1);
    assert.ok(!JSON.stringify(samples).includes(secret), "sampling leaked: " + JSON.stringify(samples));
    assert.equal(samples[0].includeContext, undefined, "includeContext forwarded");
    const s2 = await client.callTool({ name: "sample", arguments: { kind: "key" } });
    assert.match(text(s2), /sampling failed.*mcp_sampling_refused/);
    assert.equal(samples.length, 1, "a sampling request with a private key reached the client");
    for (const kind of ["approval", "approval-early"]) {
      const s3 = await client.callTool({ name: "sample", arguments: { kind } });
      assert.match(text(s3), /sampling failed.*mcp_sampling_refused/, kind + ": " + text(s3));
    }
    assert.equal(samples.length, 1, "a sampling request claiming the user's approval reached the client");
    ok("sampling screened");
  } else {
    throw new Error("unknown part " + part);
  }
} else if (mode === "fileuris") {
  // The spellings of the attack on the proxy (issue 20, item 6): each a
  // WHATWG parser reads as the target itself.
  const spellings = (p) => {
    const i = p.lastIndexOf("/") + 1;
    const dir = p.slice(0, i), base = p.slice(i);
    return {
      "plain": "file://" + p,
      "leading space": " file://" + p,
      "leading tab": "\tfile://" + p,
      "tab in scheme": "fi\tle://" + p,
      "tab in path": "file://" + dir + base.slice(0, 2) + "\t" + base.slice(2),
      "newline in path": "file://" + dir + "\n" + base,
      "trailing LF": "file://" + p + "\n",
      "trailing space": "file://" + p + " ",
      "upper case": "FILE://" + p,
      "one slash": "file:" + p,
      "four slashes": "file:///" + p,
      "localhost": "file://localhost" + p,
      "LOCALHOST": "file://LOCALHOST" + p,
      "backslashes": "file:" + p.replaceAll("/", "\\"),
      "backslash": "file://" + dir.slice(0, -1) + "\\" + base,
      "escaped name": "file://" + dir + "%" + base.charCodeAt(0).toString(16) + base.slice(1),
      "dot dot": "file://" + dir + "x/../" + base,
      "escaped dot dot": "file://" + dir + "x/%2e%2e/" + base,
      "escaped dot": "file://" + dir + "%2E/" + base,
      "query": "file://" + p + "?raw=1",
      "fragment": "file://" + p + "#x",
    };
  };
  const secret = process.env.PX_SECRET;
  for (const target of JSON.parse(process.env.PX_TARGETS)) {
    for (const [name, uri] of Object.entries(spellings(target))) {
      // What the attacked server would open: the spelling is an attack
      // on target only if a WHATWG parser reads it as target.
      assert.equal(resolve(fileURLToPath(new URL(uri))), target, name + ": " + JSON.stringify(uri));
      let got;
      try {
        got = await client.readResource({ uri });
      } catch (e) {
        assert.ok(!String(e).includes(secret), "a refusal leaked the secret: " + e);
        assert.match(String(e), /Blocked by Parallax/, name + ": " + JSON.stringify(uri));
      }
      assert.equal(got, undefined, "read " + name + " " + JSON.stringify(uri) + " was served: " + text(got));
      await assert.rejects(client.subscribeResource({ uri }), /Blocked by Parallax/, "subscribe " + name);
    }
    ok("refused " + target);
  }
  const control = await client.readResource({ uri: "file://" + process.env.PX_CONTROL });
  assert.match(text(control), /control file/, "control: " + text(control));
  ok("control read");
} else {
  throw new Error("unknown mode " + mode);
}
await client.close();
console.log("PASS");
