// Drives `mastermind mcp` with the MCP TypeScript SDK's Client (@modelcontextprotocol/sdk, npm):
// every tool, every resource (list and read), and the malformed-line cases of integrations.md §3
// sent as raw lines on the same session. Usage: node drive.mjs MASTERMIND ROOT. It prints one
// JSON summary line on stdout and exits 1 on the first failed check (the reason on stderr).
// cmd_mcp_client_test.go runs it; see that file for where the SDK comes from.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { ReadBuffer, serializeMessage } from '@modelcontextprotocol/sdk/shared/stdio.js';
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const [bin, root] = process.argv.slice(2);
let checks = 0;
function check(ok, what, detail) {
  checks++;
  if (!ok) {
    process.stderr.write(`FAIL: ${what}${detail === undefined ? '' : ': ' + JSON.stringify(detail).slice(0, 2000)}\n`);
    process.exit(1);
  }
}

// RawStdioTransport is the SDK's stdio client transport with one addition: sendRaw writes a line
// as it is, and error replies the Client did not ask for (no id, or an id only a raw line used)
// are kept for the test instead of being handed to the Client. Every line the server writes
// must parse with the SDK's own JSON-RPC message schema.
class RawStdioTransport {
  constructor(args) {
    this.args = args;
    this.buf = new ReadBuffer();
    this.rawIDs = new Set();
    this.raw = [];
    this.waiters = [];
  }
  async start() {
    this.proc = spawn(bin, this.args, { cwd: root, stdio: ['pipe', 'pipe', 'inherit'] });
    this.exited = new Promise((resolve) => this.proc.on('exit', (code) => resolve(code)));
    this.proc.stdout.on('data', (chunk) => {
      this.buf.append(chunk);
      for (;;) {
        let msg;
        try {
          msg = this.buf.readMessage();
        } catch (e) {
          check(false, 'the server wrote a line that is not a JSON-RPC message', String(e));
        }
        if (msg === null) break;
        if ('error' in msg && (msg.id === null || msg.id === undefined || this.rawIDs.has(msg.id))) {
          this.raw.push(msg);
          this.waiters.splice(0).forEach((w) => w());
        } else {
          this.onmessage?.(msg);
        }
      }
    });
    this.proc.on('exit', () => this.onclose?.());
  }
  async send(message) {
    await this.write(serializeMessage(message));
  }
  write(s) {
    return new Promise((resolve, reject) => {
      if (this.proc.stdin.write(s, (err) => (err ? reject(err) : undefined))) resolve();
      else this.proc.stdin.once('drain', resolve);
    });
  }
  // sendRaw writes line (a string, or a generator of chunks) and a newline.
  async sendRaw(line, id) {
    if (id !== undefined) this.rawIDs.add(id);
    if (typeof line === 'string') await this.write(line + '\n');
    else {
      for (const chunk of line) await this.write(chunk);
      await this.write('\n');
    }
  }
  // nextRaw waits for the next kept error reply.
  async nextRaw(what) {
    const deadline = Date.now() + 60000;
    while (this.raw.length === 0) {
      check(Date.now() < deadline, `no reply to ${what} within 60s`);
      await new Promise((resolve) => {
        this.waiters.push(resolve);
        setTimeout(resolve, 1000);
      });
    }
    return this.raw.shift();
  }
  async close() {
    this.proc.stdin.end();
    await this.exited;
  }
}

// rawSession runs the server, writes lines, closes stdin and returns every reply line.
async function rawSession(lines) {
  const proc = spawn(bin, ['mcp', '--root', root], { cwd: root, stdio: ['pipe', 'pipe', 'inherit'] });
  let out = '';
  proc.stdout.on('data', (c) => (out += c));
  const code = new Promise((resolve) => proc.on('exit', resolve));
  proc.stdin.end(lines.map((l) => l + '\n').join(''));
  check((await code) === 0, 'mcp exits 0 when stdin closes');
  return out.trim().split('\n').map((l) => JSON.parse(l));
}

const INIT = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '0' } } });
const INITIALIZED = JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' });
const spec = '.mastermind/tasks/001-greet/spec.md';
const text = (res) => (res.content || []).filter((c) => c.type === 'text').map((c) => c.text).join('');

const transport = new RawStdioTransport(['mcp', '--root', root]);
const client = new Client({ name: 'mastermind-ts-sdk-test', version: '0' });
await client.connect(transport);
check(client.getServerVersion()?.name === 'mastermind', 'serverInfo.name', client.getServerVersion());

// Every tool.
const tools = (await client.listTools()).tools.map((t) => t.name).sort();
check(JSON.stringify(tools) === JSON.stringify(['brief', 'changes', 'gate', 'postflight', 'preflight', 'schema', 'status', 'validate_report']), 'tools/list', tools);
const call = async (name, args) => client.callTool({ name, arguments: args });

let r = await call('preflight', { spec });
check(!r.isError && r.structuredContent?.outcome === 'pre_ready', 'preflight', r);
r = await call('brief', { spec });
check(!r.isError && r.structuredContent?.task === '001-greet', 'brief', r);
const template = r.structuredContent.report.template;
r = await call('postflight', { spec });
check(!r.isError && r.structuredContent?.outcome === 'post_broken' && r.structuredContent.findings.length > 0, 'postflight: a broken verdict is a successful result', r);
r = await call('postflight', { spec, run_verify: true });
check(!r.isError && r.structuredContent?.outcome === 'post_broken', 'postflight run_verify', r);
r = await call('validate_report', { text: template });
check(!r.isError && r.structuredContent?.valid === true, 'validate_report text', r);
r = await call('validate_report', { text: 'schema_version: 1\nstatus: done\n' });
check(!r.isError && r.structuredContent?.valid === false, 'validate_report invalid text', r);
r = await call('validate_report', { path: 'report.md' });
check(!r.isError && r.structuredContent?.valid === true && r.structuredContent.file === 'report.md', 'validate_report path', r);
r = await call('status', {});
check(!r.isError && r.structuredContent?.command === 'status', 'status', r);
r = await call('gate', {});
check(!r.isError && r.structuredContent?.command === 'gate', 'gate', r);
r = await call('gate', { base: 'HEAD' });
check(!r.isError && r.structuredContent?.command === 'gate', 'gate base', r);
r = await call('changes', { since: 'HEAD' });
check(!r.isError && r.structuredContent?.source === 'git', 'changes', r);
r = await call('schema', { name: 'executor-report-v1' });
check(!r.isError && typeof r.structuredContent?.$schema === 'string', 'schema', r);
// isError only when the command could not run; the text is the command's own, without the CLI's
// usage hint.
r = await call('postflight', { spec: 'README.md' });
check(r.isError && text(r).includes('README.md') && !text(r).includes('--help'), 'postflight on a non-spec', r);
r = await call('changes', { since: '--output=/tmp/x' });
check(r.isError && text(r).includes('--output=/tmp/x'), 'changes: a revision is never a flag', r);
// Paths stay inside the root and off symlinks, and echo nothing of the file.
for (const p of ['../outside/secret.md', join(root, '..', 'outside', 'secret.md'), 'link.md', 'linkdir/secret.md']) {
  r = await call('validate_report', { path: p });
  check(r.isError && !JSON.stringify(r).includes('TOPSECRET'), `validate_report ${p} refused`, r);
}

// Every resource, listed and read.
const listed = (await client.listResources()).resources.map((x) => x.uri).sort();
check(JSON.stringify(listed) === JSON.stringify(['mastermind://tasks/001-greet/audit.md', 'mastermind://tasks/001-greet/state.json']), 'resources/list', listed);
for (const uri of listed) {
  const rr = await client.readResource({ uri });
  const file = join(root, '.mastermind/tasks/001-greet', uri.split('/').pop());
  check(rr.contents.length === 1 && rr.contents[0].text === readFileSync(file, 'utf8'), `resources/read ${uri}`, rr);
}
const templates = (await client.listResourceTemplates()).resourceTemplates.map((x) => x.uriTemplate).sort();
check(templates.length === 2, 'resources/templates/list', templates);
for (const uri of ['mastermind://tasks/001-greet/spec.md', 'mastermind://tasks/../../etc/state.json', 'mastermind://tasks/002-none/state.json']) {
  let failed = false;
  try {
    await client.readResource({ uri });
  } catch (e) {
    failed = typeof e.code === 'number' && e.code !== 0;
  }
  check(failed, `resources/read ${uri} is an error with a code`);
}

// Malformed lines on the same session: each answered with its code, the session goes on.
const bad = [
  ['{bad json', -32700, undefined],
  ['[{"jsonrpc":"2.0","id":"b1","method":"ping"}]', -32600, undefined],
  ['[]', -32600, undefined],
  ['{"id":"b2","method":"ping"}', -32600, 'b2'],
  ['{"jsonrpc":"2.0","id":{"o":1},"method":"ping"}', -32600, undefined],
  ['{"jsonrpc":"2.0","id":[1],"method":"ping"}', -32600, undefined],
  ['{"jsonrpc":"2.0","id":null,"method":"ping"}', -32600, undefined],
  ['{"jsonrpc":"2.0","id":"b3","method":7}', -32600, 'b3'],
  ['42', -32600, undefined],
];
for (const [line, code, id] of bad) {
  await transport.sendRaw(line, id);
  const reply = await transport.nextRaw(line);
  check(reply.error?.code === code && reply.id === id, `reply to ${line}`, reply);
  await client.ping();
}
// A 100 MB line: answered, never buffered, the session goes on.
function* big() {
  yield '{"jsonrpc":"2.0","id":"big","method":"ping","params":{"x":"';
  const mb = 'a'.repeat(1 << 20);
  for (let i = 0; i < 100; i++) yield mb;
  yield '"}}';
}
await transport.sendRaw(big(), 'big');
const bigReply = await transport.nextRaw('a 100 MB line');
check(bigReply.error?.code === -32600 && bigReply.id === undefined, 'reply to a 100 MB line', bigReply);
await client.ping();
const hwm = Number(/VmHWM:\s+(\d+)/.exec(readFileSync(`/proc/${transport.proc.pid}/status`, 'utf8'))?.[1]);
check(hwm > 0 && hwm < 100 * 1024, 'the server did not keep the 100 MB line (peak RSS under 100 MB)', hwm);
r = await call('status', {});
check(!r.isError, 'a tool call after the malformed lines', r);
await client.close();
check((await transport.exited) === 0, 'mcp exits 0 when the client closes');

// Before initialize: a JSON-RPC error code, not 0.
let replies = await rawSession([JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' })]);
check(replies.length === 1 && replies[0].error?.code === -32600, 'tools/list before initialize', replies);
// stdin closes right after tools/list: the reply is written, every time.
for (let i = 0; i < 10; i++) {
  replies = await rawSession([INIT, INITIALIZED, JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' })]);
  check(replies.some((x) => x.id === 2 && Array.isArray(x.result?.tools)), `run ${i}: the tools/list reply before exit`, replies);
}
process.stdout.write(JSON.stringify({ ok: true, checks, peak_rss_kb_after_100mb_line: hwm }) + '\n');
