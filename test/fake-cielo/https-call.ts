// A raw HTTPS call for the fake Cielo's own tests (they speak to it as Cielo's clients would, without
// Cofre's client in between): JSON answer or null, with the fake's CA and, for the Chargeback API, a
// client certificate.
import { readFileSync } from 'node:fs';
import https from 'node:https';

export type Res = { status: number; body: any };

export function httpsCall(url: string, o: { method: string; headers: Record<string, string>; payload?: string | Buffer; caFile: string; cert?: Buffer; key?: Buffer }): Promise<Res> {
  return new Promise((resolve, reject) => {
    const r = https.request(url, { method: o.method, headers: o.headers, ca: readFileSync(o.caFile), ...(o.cert ? { cert: o.cert, key: o.key } : {}) }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const raw = Buffer.concat(chunks).toString('utf8');
        resolve({ status: res.statusCode ?? 0, body: raw ? JSON.parse(raw) : null });
      });
    });
    r.on('error', reject);
    r.end(o.payload);
  });
}
