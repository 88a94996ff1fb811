/**
 * The CSV stream against a client that is gone: rendering stops and the handler returns,
 * rather than waiting for a 'drain' that never comes while holding the page.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { sendCsv } from '../../src/rest/csv';
import { pollUntil } from '../helpers/wait';

it('when the client disconnects before a 2,000-row page is written, then sendCsv returns at once', async () => {
  let finished: Promise<void> | undefined;
  const app = express();
  app.get('/', (req, res) => {
    // The client leaves while the page is being read: 'close' has fired before the first write.
    res.once('close', () => {
      const rows = Array.from({ length: 2_000 }, (_, i) => [String(i), '1.000000']);
      finished = sendCsv(req, res, { columns: ['time', 'close'], rows, cells: (r) => r, scaleOf: () => 6, nextStart: null }, { params: '{}', span: null });
    });
    req.socket.destroy();
  });
  const server = http.createServer(app).listen(0, '127.0.0.1');
  await new Promise((r) => server.once('listening', r));
  const port = (server.address() as AddressInfo).port;
  await fetch(`http://127.0.0.1:${port}/`).catch(() => undefined);
  await pollUntil(async () => finished, (f) => f !== undefined, { withinMs: 500, everyMs: 10 });
  const outcome = await Promise.race([finished!.then(() => 'returned'), new Promise((r) => setTimeout(() => r('stuck'), 2_000))]);
  server.close();
  expect(outcome).toBe('returned');
});
