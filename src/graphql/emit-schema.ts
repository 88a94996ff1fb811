/**
 * `npm run schema`: print the schema built from the resolver classes to ./schema.graphql.
 * Printing needs no services, so none are opened; the venue names do not change the schema.
 */
import 'reflect-metadata';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { marketReads } from '../domain/params/reads';
import { Venues } from '../domain/venues';
import { buildGraphQLSchema, printSchemaSdl, type SchemaDeps } from './schema';

export const SCHEMA_FILE = path.resolve(__dirname, '..', '..', '..', 'schema.graphql');

export async function currentSdl(): Promise<string> {
  return printSchemaSdl(await buildGraphQLSchema({ reads: marketReads(new Venues('perp', 'spot')) } as SchemaDeps));
}

if (require.main === module) {
  currentSdl().then((sdl) => {
    writeFileSync(SCHEMA_FILE, sdl);
    process.stdout.write(`wrote ${SCHEMA_FILE}\n`);
  });
}
