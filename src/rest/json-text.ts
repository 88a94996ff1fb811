import type { Response } from 'express';

/** Send JSON text built by a serializer (no second JSON.stringify). */
export function sendJsonText(res: Response, body: string): void {
  res.type('application/json').send(body);
}
