import { createHmac, timingSafeEqual } from "node:crypto";
import { createServer, type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";

export type ReceivedWebhook = {
  headers: IncomingHttpHeaders;
  raw: string;
  // biome-ignore lint/suspicious/noExplicitAny: the payload, which the tests' expectations check.
  body: any;
  /** The signature checked as the reference's page says a receiver checks it. */
  signatureValid: boolean;
  /** The status this receiver answered. */
  answered: number;
};

/**
 * A webhook receiver on 127.0.0.1, as a user's would be: it checks each request's
 * `X-Webhook-Signature` against the raw body with the secret, and answers each request with the
 * next status of `answers` (then 200).
 */
export async function startWebhookReceiver(secret: string, answers: number[] = []) {
  const received: ReceivedWebhook[] = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk) => chunks.push(chunk));
    request.on("end", () => {
      const raw = Buffer.concat(chunks).toString("utf8");
      const expected = Buffer.from(`sha256=${createHmac("sha256", secret).update(raw).digest("hex")}`);
      const got = Buffer.from(String(request.headers["x-webhook-signature"] ?? ""));
      const answered = answers.shift() ?? 200;
      received.push({
        headers: request.headers,
        raw,
        body: JSON.parse(raw),
        signatureValid: got.length === expected.length && timingSafeEqual(got, expected),
        answered,
      });
      response.writeHead(answered).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    received,
    answers,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
