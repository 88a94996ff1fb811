/**
 * The floor of the access benchmark: a bare Express 5 route returning the same body as
 * GET /v1/features/available, with no request id, CORS, logging, auth or quota.
 */
import express from 'express';
import { FEATURE_CATALOGUE } from '../src/domain/feature-catalogue';

const app = express();
app.disable('x-powered-by');
app.set('etag', false);
app.get('/v1/features/available', (_req, res) => {
  res.json({ features: FEATURE_CATALOGUE });
});
const port = Number(process.env.PORT ?? 0);
const server = app.listen(port, '127.0.0.1', () => {
  process.stdout.write(`listening on http://127.0.0.1:${(server.address() as { port: number }).port}\n`);
});
process.once('SIGTERM', () => server.close(() => process.exit(0)));
