/**
 * `npm run schema`: print the schema built from the resolver classes to ./schema.graphql.
 * Printing needs no services, so none are opened; the venue names do not change the schema.
 */
import 'reflect-metadata';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { marketEndpoints } from '../domain/params/market-endpoints';
import { Exchanges } from '../domain/exchanges';
import { buildGraphQLSchema, printSchemaSdl, type SchemaDeps } from './schema';

export const SCHEMA_FILE = path.resolve(__dirname, '..', '..', '..', 'schema.graphql');

export async function currentSdl(): Promise<string> {
  return printSchemaSdl(await buildGraphQLSchema({ endpoints: marketEndpoints(new Exchanges(['perp', 'spot'])) } as SchemaDeps));
}

if (require.main === module) {
  currentSdl().then((sdl) => {
    writeFileSync(SCHEMA_FILE, sdl);
    process.stdout.write(`wrote ${SCHEMA_FILE}\n`);
  });
}
