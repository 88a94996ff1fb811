/**
 * The whole contract, answer by answer, against a recording (recorded-suite.ts): every case in
 * recorded-responses.cases.ts over the market fixtures, with the spec's two exchanges
 * (EXCHANGES=perp,spot), byte for byte. A meant change: re-record with `RECORD_RESPONSES=1 npm
 * test -- test/api/recorded-responses.test.ts`, read the diff of
 * test/fixtures/recorded-responses.json and name the differences in the commit message.
 */
import path from 'node:path';
import { loadFixtures } from '../helpers/fixtures';
import { CASES } from './recorded-responses.cases';
import { recordedResponses } from './recorded-suite';

recordedResponses({
  title: 'recorded responses',
  file: path.join(__dirname, '..', 'fixtures', 'recorded-responses.json'),
  cases: CASES,
  env: { EXCHANGES: 'perp,spot' },
  load: loadFixtures,
});
