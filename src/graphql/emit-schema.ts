/**
 * `npm run schema`: print the schema built from the resolver classes to ./schema.graphql, as
 * the default configuration (every exchange) serves it. Printing needs no services, so none are
 * opened. The venue names do not change the schema; a context backfill does (binance-perp's:
 * nullable open interest and predicted rate), and EXCHANGES without such an exchange serves
 * those fields non-null.
 */
import 'reflect-metadata';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { marketEndpoints } from '../domain/params/market-endpoints';
import { Exchanges } from '../domain/exchanges';
import { buildGraphQLSchema, printSchemaSdl, type SchemaDeps } from './schema';

export const SCHEMA_FILE = path.resolve(__dirname, '..', '..', '..', 'schema.graphql');

export async function currentSdl(): Promise<string> {
  const exchanges = new Exchanges();
  return printSchemaSdl(await buildGraphQLSchema({ endpoints: marketEndpoints(exchanges), contextBackfill: exchanges.backfillsContext() } as SchemaDeps));
}

if (require.main === module) {
  currentSdl().then((sdl) => {
    writeFileSync(SCHEMA_FILE, sdl);
    process.stdout.write(`wrote ${SCHEMA_FILE}\n`);
  });
}
