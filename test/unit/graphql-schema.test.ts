import { readFileSync } from 'node:fs';
import path from 'node:path';
import { currentSdl } from '../../src/graphql/emit-schema';

describe('schema.graphql', () => {
  it('when the resolvers change, then schema.graphql must be regenerated (npm run schema)', async () => {
    const file = readFileSync(path.resolve(__dirname, '..', '..', 'schema.graphql'), 'utf8');
    expect(await currentSdl()).toBe(file);
  });
});
