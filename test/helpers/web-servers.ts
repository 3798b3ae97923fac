import { execFileSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { createServer, type IncomingMessage, request, type Server, type ServerResponse } from "node:http";
import { createServer as createHttpsServer } from "node:https";
import { connect, type Socket } from "node:net";
import { join } from "node:path";
import { tempDir } from "./temp.js";

/**
 * Local stand-ins for the network the web tools and proxies reach, all on 127.0.0.1: a fixture web
 * site (HTTP, and HTTPS with a certificate made at test time), a forward proxy that records what
 * went through it, and a SearXNG-like search API. Nothing leaves the machine.
 */

type Route = (req: IncomingMessage, res: ServerResponse, origin: { http: string; other: string }) => void;

export type Listening = { url: string; port: number; close(): Promise<void> };

const open: Listening[] = [];

/** Closes every server these helpers started (call in afterEach). */
export async function closeWebServers(): Promise<void> {
  await Promise.all(open.splice(0).map((server) => server.close()));
}

function listen(server: Server, scheme: "http" | "https", sockets: Set<Socket>): Promise<Listening> {
  server.on("connection", (socket: Socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });
  return new Promise((resolve) => {
    server.listen(0, "127.0.0.1", () => {
      const port = (server.address() as { port: number }).port;
      const listening: Listening = {
        url: `${scheme}://127.0.0.1:${port}`,
        port,
        close: () =>
          new Promise((done) => {
            for (const socket of sockets) socket.destroy();
            server.close(() => done());
          }),
      };
      open.push(listening);
      resolve(listening);
    });
  });
}

/** A one-page PDF whose text is `text` (a valid cross-reference table, so any reader opens it). */
export function pdfBytes(text: string): Buffer {
  const stream = `BT /F1 18 Tf 20 100 Td (${text}) Tj ET`;
  const objects = [
    "<</Type/Catalog/Pages 2 0 R>>",
    "<</Type/Pages/Kids[3 0 R]/Count 1>>",
    "<</Type/Page/Parent 2 0 R/MediaBox[0 0 400 144]/Contents 4 0 R/Resources<</Font<</F1 5 0 R>>>>>>",
    `<</Length ${stream.length}>>\nstream\n${stream}\nendstream`,
    "<</Type/Font/Subtype/Type1/BaseFont/Helvetica>>",
  ];
  let out = "%PDF-1.4\n";
  const offsets: number[] = [];
  objects.forEach((body, index) => {
    offsets.push(out.length);
    out += `${index + 1} 0 obj\n${body}\nendobj\n`;
  });
  const xref = out.length;
  out += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`;
  for (const offset of offsets) out += `${String(offset).padStart(10, "0")} 00000 n \n`;
  out += `trailer\n<</Size ${objects.length + 1}/Root 1 0 R>>\nstartxref\n${xref}\n%%EOF\n`;
  return Buffer.from(out, "latin1");
}

export const ARTICLE_HTML = `<!doctype html><html><head><title>Cairn building</title></head><body>
<nav><a href="/">Home</a> <a href="/about">About</a> <a href="/shop">Shop</a></nav>
<article><h1>Cairn building</h1>
<p>A cairn is a human-made pile of stones. Builders place the <strong>largest stones</strong> at the base,
so that the pile stays upright through wind and snow for many years. This paragraph is long enough
for a reader to keep it as the main content of the page rather than as boilerplate around it.</p>
<p>Each walker adds one stone on the way past: the pile grows, and the path stays marked for the
next walker who comes this way in fog. See <a href="https://example.org/cairns">more about cairns</a>.</p>
<ul><li>Flat stones first</li><li>Heavy stones low</li></ul>
</article>
<script>window.tracking = "script text must not appear";</script>
<footer>Copyright footer</footer></body></html>`;

/** The fixture site's pages; `other` is the same server under another host name (localhost). */
const ROUTES: Record<string, Route> = {
  "/article.html": (_req, res) => {
    res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
    res.end(ARTICLE_HTML);
  },
  "/notes.txt": (_req, res) => {
    res.writeHead(200, { "content-type": "text/plain" });
    res.end("plain notes: stones 42");
  },
  "/data.json": (_req, res) => {
    res.writeHead(200, { "content-type": "application/json" });
    res.end('{"stones":42,"kind":"cairn"}');
  },
  "/doc.pdf": (_req, res) => {
    res.writeHead(200, { "content-type": "application/pdf" });
    res.end(pdfBytes("Stones of the PDF cairn"));
  },
  "/image.png": (_req, res) => {
    res.writeHead(200, { "content-type": "image/png" });
    res.end(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0, 0, 0, 1, 2, 3]));
  },
  "/big.txt": (_req, res) => {
    // 11 MB: more than the 10 MB WebFetch reads.
    res.writeHead(200, { "content-type": "text/plain" });
    const line = `${"cairn ".repeat(16)}\n`;
    const chunk = line.repeat(Math.ceil((1024 * 1024) / line.length));
    for (let i = 0; i < 11; i += 1) res.write(chunk);
    res.end();
  },
  "/slow.txt": (_req, res) => {
    // Sends a start, then nothing more, never ending the response.
    res.writeHead(200, { "content-type": "text/plain" });
    res.write("the beginning of a slow page\n");
  },
  "/missing": (_req, res) => {
    res.writeHead(404, { "content-type": "text/plain" });
    res.end("no such page");
  },
  "/same-host-redirect": (_req, res) => {
    res.writeHead(301, { location: "/notes.txt" });
    res.end();
  },
  "/cross-host-redirect": (_req, res, origin) => {
    res.writeHead(302, { location: `${origin.other}/notes.txt` });
    res.end();
  },
};

function site(
  port: () => number,
  scheme: "http" | "https",
): (req: IncomingMessage, res: ServerResponse) => void {
  return (req, res) => {
    const path = new URL(req.url ?? "/", "http://x").pathname;
    const route = ROUTES[path];
    const origin = { http: `${scheme}://127.0.0.1:${port()}`, other: `${scheme}://localhost:${port()}` };
    if (route) route(req, res, origin);
    else {
      res.writeHead(404);
      res.end();
    }
  };
}

/** The fixture site over HTTP. */
export async function startWebSite(): Promise<Listening> {
  let port = 0;
  const server = createServer(site(() => port, "http"));
  const listening = await listen(server, "http", new Set());
  port = listening.port;
  return listening;
}

/** Whether the `openssl` binary is here (the HTTPS fixture makes its certificate with it). */
export function hasOpenssl(): boolean {
  try {
    execFileSync("openssl", ["version"], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
}

/**
 * The fixture site over HTTPS, with a self-signed certificate for 127.0.0.1 and localhost made now;
 * `caFile` is the PEM to trust (NODE_EXTRA_CA_CERTS).
 */
export async function startHttpsWebSite(): Promise<Listening & { caFile: string }> {
  const dir = tempDir("cairn-tls-");
  const key = join(dir, "key.pem");
  const cert = join(dir, "cert.pem");
  execFileSync(
    "openssl",
    [
      "req",
      "-x509",
      "-newkey",
      "rsa:2048",
      "-nodes",
      "-keyout",
      key,
      "-out",
      cert,
      "-days",
      "2",
      "-subj",
      "/CN=cairn test site",
      "-addext",
      "subjectAltName=IP:127.0.0.1,DNS:localhost",
      "-addext",
      "basicConstraints=critical,CA:TRUE",
    ],
    { stdio: "ignore" },
  );
  if (!existsSync(cert)) throw new Error("openssl made no certificate");
  let port = 0;
  const server = createHttpsServer(
    { key: readFileSync(key), cert: readFileSync(cert) },
    site(() => port, "https"),
  );
  const listening = await listen(server, "https", new Set());
  port = listening.port;
  return { ...listening, caFile: cert };
}

/**
 * A forward proxy: CONNECT tunnels (https, and undici's tunnels for http) and absolute-URI requests.
 * `seen` holds the `host:port` of every request it carried, in order.
 */
export async function startForwardProxy(): Promise<Listening & { seen: string[] }> {
  const seen: string[] = [];
  const sockets = new Set<Socket>();
  const server = createServer((req, res) => {
    const target = new URL(req.url ?? "");
    seen.push(target.host);
    const upstream = request(
      target,
      { method: req.method, headers: { ...req.headers, host: target.host } },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    upstream.on("error", () => {
      res.writeHead(502);
      res.end();
    });
    req.pipe(upstream);
  });
  server.on("connect", (req: IncomingMessage, client: Socket, head: Buffer) => {
    seen.push(req.url ?? "");
    const [host, port] = (req.url ?? "").split(":");
    const upstream = connect(Number(port), host, () => {
      client.write("HTTP/1.1 200 Connection Established\r\n\r\n");
      upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    sockets.add(upstream);
    upstream.on("close", () => sockets.delete(upstream));
    upstream.on("error", () => client.destroy());
    client.on("error", () => upstream.destroy());
  });
  const listening = await listen(server, "http", sockets);
  return { ...listening, seen };
}

/** A SearXNG-like search API: `GET /search?q=…&format=json`; `queries` records each `q`. */
export async function startSearchApi(): Promise<Listening & { queries: string[] }> {
  const queries: string[] = [];
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://x");
    if (url.pathname !== "/search" || url.searchParams.get("format") !== "json") {
      res.writeHead(403);
      res.end();
      return;
    }
    queries.push(url.searchParams.get("q") ?? "");
    res.writeHead(200, { "content-type": "application/json" });
    res.end(
      JSON.stringify({
        query: url.searchParams.get("q"),
        results: [
          {
            url: "https://stones.example.org/cairns",
            title: "Cairns of the north",
            content: "How cairns are built.",
          },
          {
            url: "https://blocked.example.com/cairn",
            title: "A blocked page",
            content: "Should be filtered.",
          },
          { url: "https://docs.example.net/piles", title: "Stone piles", content: "A guide." },
        ],
      }),
    );
  });
  const listening = await listen(server, "http", new Set());
  return { ...listening, queries };
}
