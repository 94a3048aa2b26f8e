// `web-ai-snapshot mcp`: the agent surface as an MCP server, on the official
// SDK, over stdio or (with a port) streamable HTTP. Every tool call goes to
// one AgentHost (one browser); the browser starts with the server, while the
// client initializes, and is closed when the server ends (stdin closed,
// SIGINT, SIGTERM), so none is left running.
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import { AgentHost, UNTRUSTED_WARNING } from './host.mjs';

// The SDK is loaded after the browser has been asked to start (about 0.3 s of
// module loading that the launch overlaps). The streamable HTTP transport
// (43 ms of it here) only for `--port`.
let sdk = null;
async function loadSdk() {
    sdk ??= Promise.all([
        import('@modelcontextprotocol/sdk/server/index.js'),
        import('@modelcontextprotocol/sdk/server/stdio.js'),
        import('@modelcontextprotocol/sdk/types.js'),
    ]).then(([index, stdio, types]) => ({ ...index, ...stdio, ...types }));
    return sdk;
}

async function loadHttpTransport() {
    return import('@modelcontextprotocol/sdk/server/streamableHttp.js');
}

const INSTRUCTIONS = `Browse with refs: get_snapshot shows the page with a ref (@e4) on every control; act with browser_click, browser_fill and the others by ref. Each result starts with one status line, then the page or only what changed since the last result. Refs stay valid while their element exists. ${UNTRUSTED_WARNING}`;

/** One MCP server (one client's connection) over `host`. */
export async function createMcpServer(host, { name = 'web-ai-snapshot', version = '0.0.0' } = {}) {
    const { Server, ListToolsRequestSchema, CallToolRequestSchema } = await loadSdk();
    const server = new Server({ name, version }, { capabilities: { tools: {} }, instructions: INSTRUCTIONS });
    server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: host.tools }));
    // Human approval through MCP elicitation, where the client supports it.
    const approve = async ({ action, reason }) => {
        const r = await server.elicitInput({
            message: `The agent asks to: ${action}\nReason: ${reason}`,
            requestedSchema: { type: 'object', properties: { approved: { type: 'boolean', title: 'Approve' }, message: { type: 'string', title: 'Message to the agent' } }, required: ['approved'] },
        });
        return { approved: r.action === 'accept' && r.content?.approved === true, message: r.content?.message ?? (r.action === 'accept' ? null : r.action) };
    };
    server.setRequestHandler(CallToolRequestSchema, async request => {
        const { name: tool, arguments: args } = request.params;
        const r = await host.call(tool, args ?? {}, { approve: server.getClientCapabilities()?.elicitation ? approve : undefined });
        const content = [{ type: 'text', text: r.text }];
        if (r.image) content.push({ type: 'image', data: r.image.data, mimeType: r.image.mimeType });
        return { content, isError: r.isError === true };
    });
    return server;
}

/**
 * Serve over stdio (default) or streamable HTTP on `port` (at /mcp).
 * Resolves once the server ends (stdio) or to the HTTP server.
 */
export async function runMcpServer(options = {}, { version } = {}) {
    const host = new AgentHost(options);
    let closing = null;
    const shutdown = () => {
        closing ??= host.close().catch(() => undefined);
        return closing;
    };
    const exitAfter = code => () => {
        shutdown().finally(() => process.exit(code));
    };
    process.once('SIGINT', exitAfter(130));
    process.once('SIGTERM', exitAfter(143));
    // The browser starts with the server, while the client initializes; a
    // failed start is reported by the first tool call, which tries again.
    host.start().catch(() => undefined);
    const { StdioServerTransport, isInitializeRequest } = await loadSdk();
    if (options.port === undefined) {
        const server = await createMcpServer(host, { version });
        const transport = new StdioServerTransport();
        const ended = new Promise(resolve => {
            server.onclose = resolve;
            process.stdin.once('end', resolve);
            process.stdin.once('close', resolve);
        });
        await server.connect(transport);
        await ended;
        await shutdown();
        return null;
    }
    const { StreamableHTTPServerTransport } = await loadHttpTransport();
    const sessions = new Map();
    const http = createServer(async (req, res) => {
        const url = new URL(req.url, 'http://localhost');
        if (url.pathname !== '/mcp') {
            res.writeHead(404, { 'content-type': 'text/plain' }).end('the MCP endpoint is /mcp\n');
            return;
        }
        try {
            let body;
            if (req.method === 'POST') {
                const chunks = [];
                for await (const c of req) chunks.push(c);
                body = JSON.parse(Buffer.concat(chunks).toString('utf8') || 'null');
            }
            const id = req.headers['mcp-session-id'];
            let transport = typeof id === 'string' ? sessions.get(id) : undefined;
            if (!transport) {
                if (req.method !== 'POST' || !isInitializeRequest(body)) {
                    res.writeHead(400, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message: 'no such MCP session: initialize first' }, id: null }));
                    return;
                }
                transport = new StreamableHTTPServerTransport({ sessionIdGenerator: randomUUID, onsessioninitialized: sid => sessions.set(sid, transport) });
                transport.onclose = () => {
                    if (transport.sessionId) sessions.delete(transport.sessionId);
                };
                await (await createMcpServer(host, { version })).connect(transport);
            }
            await transport.handleRequest(req, res, body);
        } catch (err) {
            if (!res.headersSent) res.writeHead(400, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32700, message: err.message }, id: null }));
        }
    });
    await new Promise((resolve, reject) => {
        http.once('error', reject);
        http.listen(options.port, '127.0.0.1', resolve);
    });
    http.on('close', shutdown);
    return http;
}
