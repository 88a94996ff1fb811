/** Structured JSON logs (pino). Secrets are redacted wherever they could appear. */
import pino, { type Logger } from 'pino';

export const REDACT_PATHS = [
  'req.headers["x-api-key"]',
  'req.headers["x-admin-token"]',
  'req.headers.authorization',
  'req.headers.cookie',
  'headers["x-api-key"]',
  'headers["x-admin-token"]',
  'headers.authorization',
  'key',
  'apiKey',
  'adminToken',
];

export function createLogger(level: string, destination?: pino.DestinationStream): Logger {
  return pino(
    {
      level,
      base: { service: 'market-data' },
      timestamp: pino.stdTimeFunctions.isoTime,
      redact: { paths: REDACT_PATHS, censor: '[redacted]' },
    },
    destination,
  );
}

export type { Logger };
